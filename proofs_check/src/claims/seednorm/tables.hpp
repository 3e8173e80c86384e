// The result tables of Sec. 4 and Appendix F, transcribed from
// /work/shared/papers/seednorm.txt (cited by the file's own line numbers; row
// labels in ASCII: alpha, beta, gamma for the Greek letters, (.) for the
// element-wise product, x for the multiplication sign), and the cell-by-cell
// comparisons that tables.cpp and prose.cpp decide from them.
//
// Tables 1, 4 and 18 share their 7 columns: the c4_en-validation Loss and PPL,
// lower is better, printed with 3 and 2 decimals; then Acc. % on ARC-C, ARC-E,
// HellaSwag, MMLU-Var and PIQA, higher is better, 1 decimal. Table 2 is Acc@1
// %, higher is better, 1 decimal. Two cells of one column are printed with the
// same decimals, so a difference of 0 is a tie at the printed precision and is
// not "better".
#pragma once

#include <scaleref/error.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "claims/support.hpp"

namespace scaleref::audit::seednorm_claims {

inline constexpr int kLmCols = 7;
inline constexpr int kLoss = 0, kPpl = 1, kFirstAcc = 2;
inline constexpr const char* kLmCol[kLmCols] = {"Loss",      "PPL",      "ARC-C", "ARC-E",
                                                "HellaSwag", "MMLU-Var", "PIQA"};
inline constexpr bool kLowerIsBetter[kLmCols] = {true, true, false, false, false, false, false};
inline constexpr int kLmDecimals[kLmCols] = {3, 2, 1, 1, 1, 1, 1};

struct LmRow {
  const char* model;
  double v[kLmCols];  // Loss, PPL, ARC-C, ARC-E, HellaSwag, MMLU-Var, PIQA
};

// Table 1, seednorm.txt lines 329-344 (header line 333; MoE rows 335-339,
// dense rows 341-344; each row's leading number is the PDF's margin line
// number). Its Training Tokens (B) column, 500 / 1000 / 400 / 500, is not used.
inline constexpr LmRow kTable1[] = {
    {"OLMoE-1.3B", {2.922, 18.63, 32.3, 62.2, 55.2, 32.4, 72.6}},
    {"OLMoE-1.3B-DyT", {2.968, 19.45, 30.4, 61.9, 53.2, 30.5, 70.6}},
    {"OLMoE-1.3B-SeeDNorm", {2.900, 18.12, 34.5, 65.4, 56.8, 33.2, 73.1}},
    {"OLMoE-7B", {2.644, 14.07, 40.8, 73.7, 71.2, 38.8, 76.6}},
    {"OLMoE-7B-SeeDNorm", {2.631, 13.88, 44.5, 76.1, 71.8, 40.2, 79.1}},
    {"OLMo2-550M", {3.011, 20.30, 30.0, 62.7, 52.3, 31.5, 71.5}},
    {"OLMo2-550M-SeeDNorm", {3.008, 20.24, 31.4, 63.4, 52.0, 31.6, 71.5}},
    {"OLMo2-1B", {2.884, 17.88, 35.6, 68.7, 60.4, 33.9, 74.5}},
    {"OLMo2-1B-SeeDNorm", {2.879, 17.79, 37.8, 70.0, 61.0, 34.8, 74.5}}};

// Table 4, lines 515-531 (header line 522, rows 523-531).
inline constexpr LmRow kTable4[] = {
    {"OLMoE-1.3B", {2.922, 18.63, 32.3, 62.2, 55.2, 32.4, 72.6}},
    {"OLMoE-1.3B-SeeDNorm (alpha <- 1)", {2.900, 18.12, 34.5, 65.4, 56.8, 33.2, 73.1}},
    {"OLMoE-1.3B-SeeDNorm (alpha <- 0.1)", {2.912, 18.39, 31.2, 63.7, 55.6, 32.3, 72.8}},
    {"OLMoE-1.3B-SeeDNorm (alpha <- 10)", {3.154, 23.42, 27.8, 53.0, 43.0, 28.6, 68.2}},
    {"OLMoE-1.3B-SeeDNorm (scalar alpha)", {2.909, 18.33, 32.6, 62.2, 55.9, 32.4, 72.6}},
    {"OLMoE-1.3B-SeeDNorm (x (.) beta)", {2.909, 18.33, 36.5, 64.9, 55.7, 32.0, 72.7}},
    {"OLMoE-1.3B-SeeDNorm (w/o alpha)", {2.907, 18.29, 32.1, 67.0, 56.5, 32.9, 73.2}},
    {"OLMoE-1.3B-SeeDNorm (w/o beta)", {2.911, 18.37, 31.9, 63.7, 55.4, 31.7, 72.9}},
    {"OLMoE-1.3B-SeeDNorm (w/o gamma)", {2.913, 18.41, 33.7, 65.4, 56.0, 32.5, 72.8}}};

// Table 18, lines 1733-1747 (header line 1738, rows 1739-1747).
inline constexpr LmRow kTable18[] = {
    {"OLMoE-1.3B", {2.922, 18.63, 32.3, 62.2, 55.2, 32.4, 72.6}},
    {"OLMoE-1.3B-SeeDNorm", {2.900, 18.12, 34.5, 65.4, 56.8, 33.2, 73.1}},
    {"OLMoE-7B-SeeDNorm", {2.631, 13.88, 44.5, 76.1, 71.8, 40.2, 79.1}},
    {"OLMoE-1.3B-QKNormAll", {2.902, 18.20, 34.1, 64.2, 56.2, 32.6, 74.2}},
    {"OLMoE-1.3B-MultiheadSeeDNorm", {2.904, 18.25, 31.5, 63.9, 55.7, 32.9, 71.9}},
    {"OLMoE-1.3B-FCx2", {2.908, 18.32, 32.1, 63.5, 55.9, 31.6, 72.4}},
    {"OLMoE-1.3B-SeeDNorm-FCx2", {2.899, 18.11, 34.8, 64.7, 56.9, 33.4, 73.9}},
    {"OLMoE-7B-FCx4", {2.630, 13.88, 44.3, 75.6, 71.9, 39.6, 78.2}},
    {"OLMoE-7B-SeeDNorm-FCx4", {2.629, 13.86, 44.9, 76.6, 72.4, 39.9, 79.1}}};

struct LmTable {
  const char* name;
  std::span<const LmRow> rows;
};
inline constexpr LmTable kLmTables[] = {
    {"Table 1", kTable1}, {"Table 4", kTable4}, {"Table 18", kTable18}};

// Table 2, lines 460-468 (header line 462, rows 463-468): Acc@1 % on
// ImageNet-1K. The first 4 rows are supervised training, the last 2
// fine-tune MAE pre-trained models.
struct VisRow {
  const char* model;
  double layernorm, dyt, seednorm;
};
inline constexpr VisRow kTable2[] = {
    {"ViT-B", 82.3, 82.5, 82.7},       {"ViT-L", 83.1, 83.6, 83.6},
    {"ConvNeXT-B", 83.7, 83.7, 83.7},  {"ConvNeXT-L", 84.3, 84.4, 84.6},
    {"ViT-B (MAE)", 83.2, 83.2, 83.5}, {"ViT-L (MAE)", 85.5, 85.4, 85.5}};
inline constexpr int kSupervisedRows = 4;

// Two printed values of one column that differ differ by at least 0.001.
inline constexpr double kTie = 1e-9;

inline const LmRow& lm_row(std::span<const LmRow> table, std::string_view model) {
  for (const LmRow& r : table)
    if (model == r.model) return r;
  scaleref::fail("seednorm tables: no row '", model, "'");
}
inline const LmRow* t1(std::string_view model) { return &lm_row(kTable1, model); }
inline const LmRow* t4(std::string_view model) { return &lm_row(kTable4, model); }
inline const LmRow* t18(std::string_view model) { return &lm_row(kTable18, model); }

// One comparison of a candidate's cell with a reference's.
struct Cell {
  std::string column, a_name, b_name;
  double a, b;
  int decimals;
  bool lower_is_better;
  // a's gain over b, positive when a is better
  double gain() const { return lower_is_better ? b - a : a - b; }
};

using LmPairs = std::vector<std::pair<const LmRow*, const LmRow*>>;  // (candidate, reference)

// The cells of columns [first, end) of each (candidate, reference) pair.
inline std::vector<Cell> lm_cells(const LmPairs& pairs, int first, int end) {
  std::vector<Cell> out;
  for (const auto& [a, b] : pairs)
    for (int c = first; c < end; ++c)
      out.push_back(
          {kLmCol[c], a->model, b->model, a->v[c], b->v[c], kLmDecimals[c], kLowerIsBetter[c]});
  return out;
}

// Table 2's SeeDNorm cell against LayerNorm's and/or DyT's in rows [first, end).
inline std::vector<Cell> vis_cells(int first, int end, bool vs_layernorm, bool vs_dyt) {
  std::vector<Cell> out;
  for (int i = first; i < end; ++i) {
    const VisRow& r = kTable2[i];
    if (vs_layernorm)
      out.push_back({r.model, "SeeDNorm", "LayerNorm", r.seednorm, r.layernorm, 1, false});
    if (vs_dyt) out.push_back({r.model, "SeeDNorm", "DyT", r.seednorm, r.dyt, 1, false});
  }
  return out;
}

enum class Want { better, worse, not_better, not_worse };

// How many cells are as wanted, and the first few that are not.
struct CellTally {
  int cells = 0, ok = 0, better = 0, tied = 0, worse = 0;
  std::string counter;  // "HellaSwag: OLMo2-550M-SeeDNorm 52.0 vs OLMo2-550M 52.3 (worse); ..."
  std::string frac() const { return std::to_string(ok) + "/" + std::to_string(cells); }
};

inline CellTally tally(const std::vector<Cell>& cells, Want want) {
  constexpr int kListed = 3;
  CellTally t;
  int unlisted = 0;
  for (const Cell& c : cells) {
    const double g = c.gain();
    const int sign = g > kTie ? 1 : (g < -kTie ? -1 : 0);
    ++t.cells;
    t.better += sign > 0;
    t.tied += sign == 0;
    t.worse += sign < 0;
    const bool ok = want == Want::better       ? sign > 0
                    : want == Want::worse      ? sign < 0
                    : want == Want::not_better ? sign <= 0
                                               : sign >= 0;
    if (ok) {
      ++t.ok;
    } else if (t.cells - t.ok > kListed) {
      ++unlisted;
    } else {
      t.counter += std::string(t.counter.empty() ? "" : "; ") + c.column + ": " + c.a_name + " " +
                   fixed(c.a, c.decimals) + " vs " + c.b_name + " " + fixed(c.b, c.decimals) +
                   (sign > 0 ? " (better)" : (sign < 0 ? " (worse)" : " (tie)"));
    }
  }
  if (unlisted > 0) t.counter += "; +" + std::to_string(unlisted) + " more";
  return t;
}

// "2/2" or "6/7 (ARC-C: ... (worse))".
inline std::string described(const CellTally& t) {
  return t.frac() + (t.counter.empty() ? "" : " (" + t.counter + ")");
}

inline void add_tally(std::vector<Measure>& m, const std::string& name, const CellTally& t) {
  m.push_back({name + "_ok", static_cast<double>(t.ok)});
  m.push_back({name + "_cells", static_cast<double>(t.cells)});
  m.push_back({name + "_better", static_cast<double>(t.better)});
  m.push_back({name + "_tied", static_cast<double>(t.tied)});
  m.push_back({name + "_worse", static_cast<double>(t.worse)});
}

// A sentence comparing rows of Tables 1, 4 or 18, by kOutperformsReading:
// "main", the tables' main metric, the c4 validation Loss and PPL (columns
// 0-1; Table 5's caption, line 1210: 'our primary metrics are validation loss
// and perplexity (PPL)'), decides unless the sentence names its columns;
// "every", all 7 columns, is reported beside it.
struct LmReadings {
  CellTally primary, every;
  std::string text() const {
    return "main metric (Loss and PPL) " + described(primary) + "; all 7 columns " +
           described(every);
  }
};
inline LmReadings readings(const LmPairs& pairs, Want want) {
  return {tally(lm_cells(pairs, kLoss, kFirstAcc), want),
          tally(lm_cells(pairs, kLoss, kLmCols), want)};
}
inline void add_readings(std::vector<Measure>& m, const std::string& prefix, const LmReadings& r) {
  add_tally(m, prefix + "main", r.primary);
  add_tally(m, prefix + "every", r.every);
}
inline bool all_ok(const CellTally& t) { return t.ok == t.cells; }

// A sentence whose verdict is computed under each reading kOutperformsReading
// records (claims/support.hpp): the main metric strictly better (preferred),
// every column strictly better, and the main metric never worse (ties
// allowed). Each reading holds when all its cells do, else the sentence is an
// overstatement under it, with `finding` (what the preferred reading finds
// wrong). by_reading then gives one verdict when the readings agree, else
// reading-dependent.
// A sentence that names its columns, all of them, prefers the every-column
// reading (`every_named`): the others are then evaluated beside it.
inline Verdict outperforms_by_reading(const CellTally& main, const CellTally& every,
                                      const CellTally& main_not_worse, const std::string& detail,
                                      std::vector<Measure> m, const Finding& finding,
                                      bool every_named = false) {
  // The preferred reading fails with the caller's finding; another with its
  // own cells.
  const auto one = [&](const CellTally& t, const std::string& what, std::string d, bool preferred) {
    const std::string fig = what + " " + t.frac();
    const Finding own{"under this reading " + std::to_string(t.ok) + " of " +
                      std::to_string(t.cells) + " compared cells go the sentence's way (" +
                      t.counter + ")"};
    return all_ok(t) ? holds(fig, std::move(d))
                     : fails(Fault::overstatement, preferred ? finding : own, fig, std::move(d));
  };
  std::vector<ReadingOutcome> r{
      {"main metric, strictly better",
       one(main, "main", every_named ? "main metric " + described(main) : detail, !every_named)},
      {"every column, strictly better",
       one(every, "all", every_named ? detail : "all columns " + described(every), every_named)},
      {"main metric, ties allowed",
       one(main_not_worse, "never worse", "main metric " + described(main_not_worse), false)}};
  if (every_named) std::swap(r[0], r[1]);  // the preferred reading first
  r[0].verdict.measured = std::move(m);
  return by_reading(std::move(r),
                    every_named ? "the sentence names its columns, and they are all of the table's"
                                : "outperforming is being better, and a summary sentence speaks "
                                  "of the table's main metric");
}

// A sentence comparing rows of Tables 1, 4 and 18 and of Table 2, as data:
// the comparisons that decide (row against row, the direction wanted; Table
// 2's SeeDNorm column against LayerNorm's and/or DyT's in a range of its
// rows, better wanted), whether the sentence names all 7 columns, and
// comparisons only reported. sentence_verdict evaluates it under each
// reading (outperforms_by_reading); a new sentence of these tables is a row,
// not a function. Table 2's one column, Acc@1, is its main metric and all its
// columns; the means of its compared rows are reported (not a column of the
// table).
struct Compare {
  int table;  // 1, 4 or 18
  const char* row;
  const char* against;
  Want want;
};
struct VisionCompare {
  int first, end;  // rows of kTable2
  bool vs_layernorm, vs_dyt;
};
struct Sentence {
  std::vector<Compare> decide;
  bool every_named = false;
  std::vector<Compare> report = {};
  std::vector<VisionCompare> decide_vision = {};
  std::vector<VisionCompare> report_vision = {};
};
Verdict sentence_verdict(const Sentence& s);

// What every prose claim's threshold says.
inline constexpr const char* kEachReadingDecides =
    "computed under each reading shared.reading.outperforms records: the main metric strictly "
    "better (or worse, as the sentence wants) in every compared cell (preferred), every column "
    "strictly so, the main metric with ties allowed; each holds when all its cells do, else it is "
    "an overstatement; the verdict is "
    "reading-dependent when the readings disagree";

}  // namespace scaleref::audit::seednorm_claims
