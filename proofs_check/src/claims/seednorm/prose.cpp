// The sentences of the abstract, Sec. 1, 4 and Appendix F that summarize the
// result tables, each computed from the numbers of tables.hpp under every
// reading the shared kOutperformsReading (claims/support.hpp) records: the
// main metric strictly better (preferred unless the sentence names its
// columns: the LM tables' Loss and PPL, Table 2's Acc@1), every column
// strictly better, the main metric with ties allowed; "consistently" means
// every row compared. A sentence that compares rows of the LM tables or
// Table 2's columns is data (Sentence, sentence_verdict); the one that adds a
// condition of its own (Frac-Connection's relative gains) stays code.
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "claims/seednorm/seednorm.hpp"
#include "claims/seednorm/tables.hpp"

namespace scaleref::audit::seednorm_claims {

namespace {

const LmRow* row_of(int table, const char* model) {
  return table == 1 ? t1(model) : table == 4 ? t4(model) : t18(model);
}

Want ties_allowed(Want w) {
  return w == Want::better ? Want::not_worse : w == Want::worse ? Want::not_better : w;
}

const char* wanted(Want w) {
  return w == Want::better       ? "better"
         : w == Want::worse      ? "worse"
         : w == Want::not_better ? "not better"
                                 : "not worse";
}

// Adds one comparison's tally to a sentence's.
void merge(CellTally& t, const CellTally& one) {
  t.cells += one.cells;
  t.ok += one.ok;
  t.better += one.better;
  t.tied += one.tied;
  t.worse += one.worse;
  if (!one.counter.empty()) t.counter += (t.counter.empty() ? "" : "; ") + one.counter;
}

// The cells of comparisons (columns [from, to)), tallied each under its own
// wish (or that wish with ties allowed) and added up.
CellTally tallied(const std::vector<Compare>& cs, int from, int to, bool ties) {
  CellTally t;
  for (const Compare& c : cs)
    merge(t, tally(lm_cells({{row_of(c.table, c.row), row_of(c.table, c.against)}}, from, to),
                   ties ? ties_allowed(c.want) : c.want));
  return t;
}

// Table 2's cells of comparisons, better wanted (or not worse, ties allowed).
CellTally tallied(const std::vector<VisionCompare>& vs, bool ties) {
  CellTally t;
  for (const VisionCompare& v : vs)
    merge(t, tally(vis_cells(v.first, v.end, v.vs_layernorm, v.vs_dyt),
                   ties ? Want::not_worse : Want::better));
  return t;
}

std::string compared(const std::vector<Compare>& cs) {
  std::string s;
  for (const Compare& c : cs)
    s += (s.empty() ? "" : ", ") + std::string(c.row) + " " + wanted(c.want) + " than " +
         c.against + " (Table " + std::to_string(c.table) + ")";
  return s;
}

std::string compared(const VisionCompare& v) {
  const std::string against = v.vs_layernorm && v.vs_dyt ? "LayerNorm and DyT"
                              : v.vs_layernorm           ? "LayerNorm"
                                                         : "DyT";
  return "SeeDNorm better than " + against + " in Table 2's " + kTable2[v.first].model + " .. " +
         kTable2[v.end - 1].model;
}

// The means of Table 2's columns over a comparison's rows, reported (Table 2
// has no mean column): "mean Acc@1 SeeDNorm 83.15, DyT 83.05, LayerNorm 82.85".
std::string row_means(const VisionCompare& v, const std::string& prefix, std::vector<Measure>& m) {
  double ln = 0, dyt = 0, seed = 0;
  const double n = v.end - v.first;
  for (int i = v.first; i < v.end; ++i) {
    ln += kTable2[i].layernorm / n;
    dyt += kTable2[i].dyt / n;
    seed += kTable2[i].seednorm / n;
  }
  m.push_back({prefix + "mean_seednorm", seed});
  m.push_back({prefix + "mean_dyt", dyt});
  m.push_back({prefix + "mean_layernorm", ln});
  return "mean Acc@1 over those rows SeeDNorm " + fixed(seed, 3) + ", DyT " + fixed(dyt, 3) +
         ", LayerNorm " + fixed(ln, 3) + " (not a column of Table 2)";
}

}  // namespace

Verdict sentence_verdict(const Sentence& s) {
  CellTally main = tallied(s.decide, kLoss, kFirstAcc, false);
  CellTally every = tallied(s.decide, kLoss, kLmCols, false);
  CellTally ties = tallied(s.decide, kLoss, kFirstAcc, true);
  // Table 2's one column is its main metric and all its columns.
  merge(main, tallied(s.decide_vision, false));
  merge(every, tallied(s.decide_vision, false));
  merge(ties, tallied(s.decide_vision, true));
  std::vector<Measure> m;
  add_tally(m, "main", main);
  add_tally(m, "every", every);
  add_tally(m, "main_ties_allowed", ties);
  std::string what = compared(s.decide);
  for (const VisionCompare& v : s.decide_vision) what += (what.empty() ? "" : ", ") + compared(v);
  std::string detail = what + ": main metric (" +
                       (s.decide.empty()          ? "Acc@1"
                        : s.decide_vision.empty() ? "Loss and PPL"
                                                  : "Loss and PPL; Table 2's Acc@1") +
                       ") " + described(main) + "; all columns " + described(every) +
                       "; main metric with ties allowed " + described(ties);
  for (std::size_t k = 0; k < s.decide_vision.size(); ++k)
    detail += "; " + row_means(s.decide_vision[k], "vision" + std::to_string(k) + "_", m);
  for (std::size_t k = 0; k < s.report.size(); ++k) {
    const CellTally r = tallied({s.report[k]}, kLoss, kLmCols, false);
    add_tally(m, "reported_" + std::to_string(k), r);
    detail += "; also " + compared({s.report[k]}) + " in " + r.frac() + " columns";
  }
  for (std::size_t k = 0; k < s.report_vision.size(); ++k) {
    const CellTally r = tallied({s.report_vision[k]}, false);
    add_tally(m, "reported_vision_" + std::to_string(k), r);
    detail += "; also " + compared(s.report_vision[k]) + ": " + described(r);
  }
  const CellTally& decides = s.every_named ? every : main;
  return outperforms_by_reading(
      main, every, ties, detail, std::move(m),
      {"the sentence is stronger than its tables: " + std::to_string(decides.ok) + " of " +
           std::to_string(decides.cells) + " compared cells go its way (" +
           std::to_string(decides.better) + " better, " + std::to_string(decides.tied) + " tied, " +
           std::to_string(decides.worse) + " worse; " + decides.counter + ")",
       !s.every_named && all_ok(ties)
           ? "true with ties allowed: no compared main-metric cell goes against it (" +
                 ties.frac() + ")"
           : ""},
      s.every_named);
}

}  // namespace scaleref::audit::seednorm_claims

namespace scaleref::audit {
namespace {

using namespace seednorm_claims;

Verdict check_frac_connection(const Context&) {
  // Line 1785, Table 18: SeeDNorm-FCx2 and SeeDNorm-FCx4 against FCx2 and
  // FCx4, better wanted ("further enhance performance": the main metric
  // decides, all 7 columns reported); and "more pronounced in downstream
  // tasks", the columns it names: at each size the mean relative gain of the 5
  // accuracies, (a - b)/b, exceeds the relative gain of PPL and of Loss, (b - a)/b.
  const LmPairs pairs{{t18("OLMoE-1.3B-SeeDNorm-FCx2"), t18("OLMoE-1.3B-FCx2")},
                      {t18("OLMoE-7B-SeeDNorm-FCx4"), t18("OLMoE-7B-FCx4")}};
  const LmReadings r = readings(pairs, Want::better);
  std::vector<Measure> m;
  add_readings(m, "", r);
  bool pronounced = true;
  std::string rel;
  for (const auto& [a, b] : pairs) {
    double acc = 0;
    for (int c = kFirstAcc; c < kLmCols; ++c) acc += (a->v[c] - b->v[c]) / b->v[c];
    acc /= kLmCols - kFirstAcc;
    const double ppl = (b->v[kPpl] - a->v[kPpl]) / b->v[kPpl];
    const double loss = (b->v[kLoss] - a->v[kLoss]) / b->v[kLoss];
    pronounced = pronounced && acc > ppl && acc > loss;
    const std::string tag = b->model;
    m.push_back({tag + "_rel_gain_acc_mean", acc});
    m.push_back({tag + "_rel_gain_ppl", ppl});
    m.push_back({tag + "_rel_gain_loss", loss});
    rel += std::string(rel.empty() ? "" : "; ") + tag + " accuracies " + fixed(100 * acc, 2) +
           "% vs PPL " + fixed(100 * ppl, 2) + "%, Loss " + fixed(100 * loss, 3) + "%";
  }
  const CellTally ties = tally(lm_cells(pairs, kLoss, kFirstAcc), Want::not_worse);
  const std::string detail =
      "SeeDNorm on Frac-Connection: " + r.text() + "; mean relative gains: " + rel;
  // "More pronounced in downstream tasks" names its columns: where it fails,
  // every reading of "further enhance" fails with it.
  if (!pronounced)
    return fails(Fault::overstatement,
                 {"the gain is not more pronounced in the downstream accuracies than in PPL and "
                  "Loss: " +
                  rel},
                 "acc <= PPL gain", detail, std::move(m));
  return outperforms_by_reading(
      r.primary, r.every, ties, detail, std::move(m),
      {"SeeDNorm does not further enhance Frac-Connection in every compared cell: " +
       std::to_string(r.primary.ok) + " of " + std::to_string(r.primary.cells) + " (" +
       r.primary.counter + ")"});
}

// The check of a sentence written as data.
std::function<Verdict(const Context&)> sentence(Sentence s) {
  return [s = std::move(s)](const Context&) { return sentence_verdict(s); };
}

}  // namespace

void add_seednorm_prose_claims(Registrar& r) {
  const std::string tab1_2 =
      "Table 1 (lines 335-344) and Table 2 (lines 463-468) as transcribed in "
      "claims/seednorm/tables.hpp; no random draw";
  const std::string tab1 = "Table 1 (lines 335-344) as transcribed in claims/seednorm/tables.hpp";
  const std::string tab2 = "Table 2 (lines 463-468) as transcribed in claims/seednorm/tables.hpp";
  const std::string tab4 = "Table 4 (lines 523-531) as transcribed in claims/seednorm/tables.hpp";
  const std::string tab18 =
      "Table 18 (lines 1739-1747) as transcribed in claims/seednorm/tables.hpp";
  const std::string strict =
      "sign of each cell's gain at the printed precision (a difference <= 1e-9 a tie), per "
      "compared cell; ";
  // The abstract and Sec. 1 say the same of the same cells: every SeeDNorm
  // row of Table 1 against its baseline (and OLMoE-1.3B's against DyT), and
  // SeeDNorm against LayerNorm and DyT in every row of Table 2.
  const auto every_baseline = sentence({{{1, "OLMoE-1.3B-SeeDNorm", "OLMoE-1.3B", Want::better},
                                         {1, "OLMoE-1.3B-SeeDNorm", "OLMoE-1.3B-DyT", Want::better},
                                         {1, "OLMoE-7B-SeeDNorm", "OLMoE-7B", Want::better},
                                         {1, "OLMo2-550M-SeeDNorm", "OLMo2-550M", Want::better},
                                         {1, "OLMo2-1B-SeeDNorm", "OLMo2-1B", Want::better}},
                                        false,
                                        {},
                                        {{0, int(std::size(kTable2)), true, true}}});
  r.add(summary_claim(
      {.id = "seednorm.claim.abstract-superior",
       .location = "Abstract (line 32) with Tables 1-2",
       .statement = "\"SeeDNorm achieves consistently superior performance compared to "
                    "previously commonly used normalization layers such as RMSNorm and "
                    "LayerNorm, as well as element-wise activation alternatives to normalization "
                    "layers like DyT.\" (SeeDNorm strictly better in every SeeDNorm-versus-"
                    "baseline cell of Tables 1 and 2, main metric)",
       .quote_line = 32,
       .quote = "achieves consistently superior performance compared to previously commonly "
                "used 032 normalization layers such as RMSNorm and LayerNorm, as well as "
                "element-wise 033 activation alternatives to normalization layers like DyT.",
       .reading = &kOutperformsReading,
       .inputs = tab1_2,
       .formula = strict +
                  "Table 1: OLMoE-1.3B/7B, OLMo2-550M/1B SeeDNorm against their baselines and "
                  "OLMoE-1.3B-SeeDNorm against -DyT; Table 2: SeeDNorm against LayerNorm and "
                  "DyT in all 6 rows; main metric Loss, PPL (Table 1), Acc@1 (Table 2): 22 "
                  "cells; every column: 47 cells",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Tables 1 and 2 (tables.hpp transcription, matches the text)",
       .check = every_baseline}));
  r.add(summary_claim(
      {.id = "seednorm.claim.intro-improves",
       .location = "Sec. 1, contributions (line 70) with Tables 1-2",
       .statement = "\"SeeDNorm consistently accelerates convergence and improves performance "
                    "over RMSNorm, LayerNorm and DyT baselines\" (the performance part: SeeDNorm "
                    "strictly better in every SeeDNorm-versus-baseline cell of Tables 1 and 2, "
                    "main metric; convergence is the figures')",
       .quote_line = 70,
       .quote = "show that SeeDNorm consistently accelerates convergence and improves "
                "performance over RMSNorm, LayerNorm and DyT baselines,",
       .reading = &kOutperformsReading,
       .inputs = tab1_2,
       .formula = strict + "the same 22 main-metric and 47 every-column cells as "
                           "seednorm.claim.abstract-superior",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Tables 1 and 2 (tables.hpp transcription, matches the text)",
       .check = every_baseline}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.1.moe-comprehensive",
       .location = "Sec. 4.1 (line 352) with Table 1",
       .statement = "\"Table 1 and Figure 1 shows that both the 1.3B and 7B models achieve "
                    "comprehensive improvements in various validation metrics and accuracy in "
                    "downstream tasks.\" (each OLMoE SeeDNorm row better than its baseline in "
                    "all 7 columns, the columns the sentence names)",
       .quote_line = 352,
       .quote = "Moreover, Table 1 and Figure 1 shows that both the 1.3B and 7B models achieve "
                "345 comprehensive improvements in various validation metrics and accuracy in "
                "downstream tasks.",
       .reading = &kOutperformsReading,
       .inputs = tab1,
       .formula = strict + "OLMoE-1.3B-SeeDNorm vs OLMoE-1.3B and OLMoE-7B-SeeDNorm vs "
                           "OLMoE-7B, all 7 columns (14 cells); Loss and PPL reported",
       .threshold = "computed under each reading shared.reading.outperforms records, the "
                    "columns the sentence names (validation metrics and downstream "
                    "accuracies: all 7) preferred: strictly better in all 14 cells, a tie not "
                    "counting; the main metric strictly, and with ties allowed, beside; "
                    "reading-dependent when they disagree",
       .against = "the paper's own Table 1",
       .check = sentence({{{1, "OLMoE-1.3B-SeeDNorm", "OLMoE-1.3B", Want::better},
                           {1, "OLMoE-7B-SeeDNorm", "OLMoE-7B", Want::better}},
                          true})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.1.dyt-degrades",
       .location = "Sec. 4.1 (line 355) with Table 1",
       .statement = "\"replacing the normalization layers of the OLMoE-1.3B model with "
                    "saturation activation function like DyT (Zhu et al., 2025b) leads to slow "
                    "convergence and a degradation in performance.\" (OLMoE-1.3B-DyT worse than "
                    "OLMoE-1.3B)",
       .quote_line = 354,
       .quote = "contrast, replacing the normalization layers of the OLMoE-1.3B model with "
                "saturation activation 347 function like DyT (Zhu et al., 2025b) leads to slow "
                "convergence and a degradation in performance.",
       .reading = &kOutperformsReading,
       .inputs = tab1,
       .formula = strict + "OLMoE-1.3B-DyT vs OLMoE-1.3B, worse wanted: Loss, PPL (2 cells); "
                           "all 7 columns reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 1",
       .check = sentence({{{1, "OLMoE-1.3B-DyT", "OLMoE-1.3B", Want::worse}}})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.1.dense-benefits",
       .location = "Sec. 4.1 (line 369) with Table 1",
       .statement = "\"SeeDNorm continues to yield benefits in dense models\" (each OLMo2 "
                    "SeeDNorm row better than its baseline)",
       .quote_line = 369,
       .quote = "Table 1, SeeDNorm continues to yield benefits in dense models,",
       .reading = &kOutperformsReading,
       .inputs = tab1,
       .formula = strict + "OLMo2-550M/1B-SeeDNorm vs OLMo2-550M/1B: Loss, PPL (4 cells); all "
                           "7 columns reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 1",
       .check = sentence({{{1, "OLMo2-550M-SeeDNorm", "OLMo2-550M", Want::better},
                           {1, "OLMo2-1B-SeeDNorm", "OLMo2-1B", Want::better}}})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.2.supervised-better",
       .location = "Sec. 4.2 (line 449) with Table 2",
       .statement = "\"The results in Table 2 demonstrate that applying SeeDNorm achieves better "
                    "performance compared to both DyT and LayerNorm.\" (the 4 supervised rows)",
       .quote_line = 449,
       .quote = "The results in Table 2 demonstrate that applying SeeDNorm achieves better "
                "performance compared to both DyT and LayerNorm.",
       .reading = &kOutperformsReading,
       .inputs = tab2,
       .formula = strict + "SeeDNorm vs LayerNorm and vs DyT in ViT-B, ViT-L, ConvNeXT-B, "
                           "ConvNeXT-L, Acc@1 (8 cells); never worse and the row means "
                           "reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 2 (4 supervised rows)",
       .check = sentence({{}, false, {}, {{0, kSupervisedRows, true, true}}})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.2.mae-finetune",
       .location = "Sec. 4.2 (line 451) with Table 2",
       .statement = "\"Table 2 shows that it also holds an advantage during fine-tuning.\" (the "
                    "2 MAE rows, against DyT as the figures the sentence continues)",
       .quote_line = 451,
       .quote = "while Table 2 shows that it also holds an advantage during fine-tuning.",
       .reading = &kOutperformsReading,
       .inputs = tab2,
       .formula = strict + "SeeDNorm vs DyT in ViT-B (MAE), ViT-L (MAE), Acc@1 (2 cells); vs "
                           "both DyT and LayerNorm (4 cells) reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 2 (2 MAE rows)",
       .check = sentence({{},
                          false,
                          {},
                          {{kSupervisedRows, int(std::size(kTable2)), false, true}},
                          {{kSupervisedRows, int(std::size(kTable2)), true, true}}})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.3.alpha-init",
       .location = "Sec. 4.3 (line 472) with Table 4",
       .statement = "\"excessively large values of alpha adversely degrade training stability "
                    "and lead to poorer final performance.\" (alpha <- 10 worse than alpha <- 1 "
                    "and alpha <- 0.1)",
       .quote_line = 472,
       .quote = "Figure 4 indicates that excessively large values of α adversely degrade "
                "training stability and lead to poorer final performance.",
       .reading = &kOutperformsReading,
       .inputs = tab4,
       .formula = strict + "alpha <- 10 vs alpha <- 1 and vs alpha <- 0.1, worse wanted: "
                           "Loss, PPL (4 cells); all 7 columns, alpha <- 10 vs the baseline "
                           "and alpha <- 1 vs 0.1 reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 4",
       .check = sentence({{{4, "OLMoE-1.3B-SeeDNorm (alpha <- 10)",
                            "OLMoE-1.3B-SeeDNorm (alpha <- 1)", Want::worse},
                           {4, "OLMoE-1.3B-SeeDNorm (alpha <- 10)",
                            "OLMoE-1.3B-SeeDNorm (alpha <- 0.1)", Want::worse}},
                          false,
                          {{4, "OLMoE-1.3B-SeeDNorm (alpha <- 10)", "OLMoE-1.3B", Want::worse},
                           {4, "OLMoE-1.3B-SeeDNorm (alpha <- 1)",
                            "OLMoE-1.3B-SeeDNorm (alpha <- 0.1)", Want::better}}})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.3.scalar-alpha",
       .location = "Sec. 4.3 (line 477) with Table 4",
       .statement = "\"substituting the D-dimensional vector alpha with a scalar leads to a "
                    "degradation in model performance, but it still surpasses the baseline.\"",
       .quote_line = 477,
       .quote = "leads to a degradation in model performance, but it still surpasses the "
                "baseline.",
       .reading = &kOutperformsReading,
       .inputs = tab4,
       .formula = strict + "scalar alpha vs alpha <- 1 (worse wanted) and vs OLMoE-1.3B "
                           "(better wanted): Loss, PPL (2 + 2 cells); all 7 columns reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 4",
       .check =
           sentence({{{4, "OLMoE-1.3B-SeeDNorm (scalar alpha)", "OLMoE-1.3B-SeeDNorm (alpha <- 1)",
                       Want::worse},
                      {4, "OLMoE-1.3B-SeeDNorm (scalar alpha)", "OLMoE-1.3B", Want::better}}})}));
  r.add(summary_claim(
      {.id = "seednorm.sec.4.3.dot-product",
       .location = "Sec. 4.3 (line 483) with Table 4",
       .statement = "\"the results in Table 4 indicate that using the dot product method offers "
                    "better expressive power and performance.\" (than element-wise x (.) beta)",
       .quote_line = 482,
       .quote = "the results in Table 4 indicate that using the dot 438 product method offers "
                "better expressive power and performance.",
       .reading = &kOutperformsReading,
       .inputs = tab4,
       .formula = strict + "alpha <- 1 (dot product) vs x (.) beta: Loss, PPL (2 cells); all 7 "
                           "columns reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 4",
       .check = sentence({{{4, "OLMoE-1.3B-SeeDNorm (alpha <- 1)",
                            "OLMoE-1.3B-SeeDNorm (x (.) beta)", Want::better}}})}));
  r.add(summary_claim(
      {.id = "seednorm.app.F.qknorm-per-head",
       .location = "Appendix F (line 1657) with Table 18",
       .statement = "\"The results indicate that normalization on each attention head yields "
                    "slightly better performance, though the difference is not significant.\" "
                    "(OLMoE-1.3B-SeeDNorm against QKNormAll)",
       .quote_line = 1656,
       .quote = "The results indicate that normalization on each attention head 1558 yields "
                "slightly better performance, though the difference is not significant.",
       .reading = &kOutperformsReading,
       .inputs = tab18,
       .formula = strict + "OLMoE-1.3B-SeeDNorm vs OLMoE-1.3B-QKNormAll: Loss, PPL (2 cells); "
                           "all 7 columns and the Loss gains reported",
       .threshold = kEachReadingDecides,
       .against = "the paper's own Table 18",
       .check = sentence({{{18, "OLMoE-1.3B-SeeDNorm", "OLMoE-1.3B-QKNormAll", Want::better}},
                          false,
                          {{18, "OLMoE-1.3B-SeeDNorm", "OLMoE-1.3B", Want::better}}})}));
  r.add(summary_claim(
      {.id = "seednorm.app.F.multihead",
       .location = "Appendix F (line 1664) with Table 18",
       .statement = "\"The application of multihead SeeDNorm does not improve the performance.\" "
                    "(MultiheadSeeDNorm against SeeDNorm)",
       .quote_line = 1663,
       .quote = "The application of multihead SeeDNorm 1566 does not improve the performance.",
       .reading = &kOutperformsReading,
       .inputs = tab18,
       .formula = strict + "OLMoE-1.3B-MultiheadSeeDNorm vs OLMoE-1.3B-SeeDNorm, not better "
                           "wanted: Loss, PPL (2 cells); all 7 columns reported",
       .threshold = "computed under each reading shared.reading.outperforms records: not "
                    "strictly better in any main-metric cell (preferred; a tie is not an "
                    "improvement), in any column, and on the main metric with ties allowed; "
                    "reading-dependent when they disagree",
       .against = "the paper's own Table 18",
       .check = sentence(
           {{{18, "OLMoE-1.3B-MultiheadSeeDNorm", "OLMoE-1.3B-SeeDNorm", Want::not_better}}})}));
  r.add(summary_claim(
      {.id = "seednorm.app.F.frac-connection",
       .location = "Appendix F (line 1785) with Table 18",
       .statement = "\"SeeDNorm can further enhance performance, with the effect being more "
                    "pronounced in downstream tasks.\" (SeeDNorm-FC rows against their "
                    "Frac-Connection baselines)",
       .quote_line = 1785,
       .quote = "SeeDNorm can further enhance performance, with the effect being more 1665 "
                "pronounced in downstream tasks.",
       .reading = &kOutperformsReading,
       .inputs = tab18,
       .formula = strict + "SeeDNorm-FCx2 vs FCx2 (1.3B), SeeDNorm-FCx4 vs FCx4 (7B): Loss, PPL "
                           "(4 cells); and per size the mean relative gain of the 5 accuracies, "
                           "(a - b) / b, against the relative PPL and Loss gains, (b - a) / b",
       .threshold = std::string(kEachReadingDecides) +
                    "; under each, and at each size, the mean relative accuracy gain must "
                    "exceed the PPL and the Loss gain ('more pronounced in downstream tasks', "
                    "the columns it names), else an overstatement",
       .against = "the paper's own Table 18",
       .check = check_frac_connection}));
}

}  // namespace scaleref::audit
