// The rescale paper's tables (Tables 2, 3, 5, 6, 7: downstream accuracies of
// the 1B runs, Sec. 4.1-4.2 and Appendix 6.2): transcribed from
// shared/papers/weight_rescaling.txt, their Mean and Delta_base columns
// recomputed within the printed rounding, rows repeated across tables
// compared, and rows repeated within a table sought. The prose sentences that
// cite a table are decided on its numbers in prose.cpp.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "claims/rescale/rescale.hpp"

namespace scaleref::audit {

namespace rescale_paper {

const std::vector<PaperTable>& paper_tables() {
  static const std::vector<PaperTable> t{
      // Table 2: header lines 270-271, rows 272-277, caption 279.
      {2,
       "Table 2 (Sec. 4.1)",
       {
           {272, "0.03", {48.0, 70.9, 40.2, 52.2, 37.2, 59.1, 32.1}, 48.5, -1.3},
           {273, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {274, "0.015", {51.6, 71.6, 40.4, 52.8, 37.3, 60.4, 33.7}, 49.7, -0.1},
           {275, "0.01", {51.8, 71.6, 41.2, 53.0, 37.7, 62.8, 33.7}, 50.3, 0.4},
           {276, "0.008", {51.9, 71.8, 41.0, 54.5, 35.6, 62.4, 36.0}, 50.5, 0.6},
           {277, "0.006", {51.4, 71.2, 41.4, 53.9, 37.8, 61.9, 32.8}, 50.1, 0.2},
       }},
      // Table 3: header lines 299-300, rows 301-304, caption 306.
      {3,
       "Table 3 (Sec. 4.2)",
       {
           {301, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {302, "0.008 + LIR + TVR(0.008)", {54.7, 72.2, 42.2, 57.1, 38.1, 64.0, 35.5}, 52.0, 2.1},
           {303, "0.006 + LIR + TVR(0.006)", {53.7, 72.4, 43.6, 55.6, 40.6, 63.3, 36.1}, 52.2, 2.4},
           {304, "0.006 + LIR + TVR(0.01)", {55.1, 73.4, 42.7, 57.0, 38.9, 64.3, 36.1}, 52.5, 2.7},
       }},
      // Table 5: header lines 418-419, rows 420-422, caption 424.
      {5,
       "Table 5 (Appendix 6.2.1)",
       {
           {420, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {421, "0.03", {48.0, 70.9, 40.2, 52.2, 37.2, 59.1, 32.1}, 48.5, -1.3},
           {422, "0.03 + no WD", {46.2, 70.0, 39.9, 52.1, 38.6, 56.8, 32.8}, 48.1, -1.8},
       }},
      // Table 6: header lines 436-437, rows 438-440, caption 442.
      {6,
       "Table 6 (Appendix 6.2.2)",
       {
           {438, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {439, "0.02 + SIR", {50.8, 70.7, 40.5, 51.9, 38.2, 62.4, 34.8}, 49.9, 0.1},
           {440, "0.02 + LIR", {52.5, 72.0, 40.5, 54.6, 37.8, 62.3, 35.2}, 50.7, 0.9},
       }},
      // Table 7: header lines 456-457, rows 458-481, caption 483. Lines 468 and
      // 469 are both printed "+ LIR + TVR(sigma_target = 0.02)" under
      // sigma_init = 0.01; both are transcribed as printed.
      {7,
       "Table 7 (Appendix 6.2.3)",
       {
           {458, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {459, "0.02 + LIR", {52.5, 72.0, 40.5, 54.6, 37.8, 62.3, 35.2}, 50.7, 0.9},
           {460, "0.02 + LIR + TVR(0.02)", {52.5, 71.9, 41.4, 53.9, 36.3, 62.8, 36.2}, 50.7, 0.9},
           {461, "0.02 + LIR + TVR(0.025)", {52.5, 72.4, 41.4, 53.0, 36.1, 63.0, 34.6}, 50.4, 0.6},
           {462, "0.015", {51.6, 71.6, 40.4, 52.8, 37.3, 60.4, 33.7}, 49.7, -0.1},
           {463, "0.015 + LIR", {52.2, 71.8, 41.9, 53.6, 38.2, 61.5, 34.7}, 50.6, 0.7},
           {464, "0.01", {51.8, 71.6, 41.2, 53.0, 37.7, 62.8, 33.7}, 50.3, 0.4},
           {465, "0.01 + LIR", {53.3, 71.3, 42.0, 55.6, 37.9, 62.2, 35.7}, 51.1, 1.3},
           {466, "0.01 + LIR + TVR(0.01)", {54.3, 71.5, 40.9, 57.3, 39.7, 64.4, 37.7}, 52.3, 2.4},
           {467, "0.01 + LIR + TVR(0.015)", {54.0, 71.9, 41.6, 55.7, 37.5, 62.5, 35.6}, 51.3, 1.4},
           {468, "0.01 + LIR + TVR(0.02)", {53.1, 72.9, 42.0, 55.2, 37.3, 62.8, 35.7}, 51.3, 1.4},
           {469, "0.01 + LIR + TVR(0.02)", {52.2, 71.8, 41.9, 53.6, 38.2, 61.5, 34.7}, 50.6, 0.7},
           {470, "0.008", {51.9, 71.8, 41.0, 54.5, 35.6, 62.4, 36.0}, 50.5, 0.6},
           {471, "0.008 + LIR", {52.4, 72.1, 41.3, 56.0, 38.0, 64.3, 36.1}, 51.5, 1.6},
           {472, "0.008 + LIR + TVR(0.008)", {54.7, 72.2, 42.2, 57.1, 38.1, 64.0, 35.5}, 52.0, 2.1},
           {473, "0.008 + LIR + TVR(0.01)", {55.1, 71.5, 41.6, 54.2, 37.6, 63.6, 37.1}, 51.5, 1.7},
           {474, "0.008 + LIR + TVR(0.015)", {53.7, 72.3, 41.2, 55.4, 38.3, 63.2, 36.0}, 51.4, 1.6},
           {475, "0.008 + LIR + TVR(0.02)", {53.0, 71.4, 42.2, 57.2, 36.6, 64.1, 37.1}, 51.7, 1.8},
           {476, "0.006", {51.4, 71.2, 41.4, 53.9, 37.8, 61.9, 32.8}, 50.1, 0.2},
           {477, "0.006 + LIR", {52.5, 71.2, 40.1, 53.6, 39.2, 61.8, 33.9}, 50.3, 0.5},
           {478, "0.006 + LIR + TVR(0.006)", {53.7, 72.4, 43.6, 55.6, 40.6, 63.3, 36.1}, 52.2, 2.4},
           {479, "0.006 + LIR + TVR(0.008)", {54.6, 71.3, 41.2, 55.6, 43.5, 64.3, 35.7}, 52.3, 2.5},
           {480, "0.006 + LIR + TVR(0.009)", {54.8, 72.1, 42.1, 56.4, 38.9, 65.7, 35.2}, 52.2, 2.4},
           {481, "0.006 + LIR + TVR(0.01)", {55.1, 73.4, 42.7, 57.0, 38.9, 64.3, 36.1}, 52.5, 2.7},
       }}};
  return t;
}

const PaperTable& paper_table(int number) {
  for (const PaperTable& t : paper_tables())
    if (t.number == number) return t;
  throw std::out_of_range("rescale: no Table " + std::to_string(number) + " transcribed");
}

const TableRow& row_of(const PaperTable& t, const std::string& setting) {
  for (const TableRow& r : t.rows)
    if (r.setting == setting) return r;
  throw std::out_of_range("rescale: Table " + std::to_string(t.number) + " has no row '" + setting +
                          "'");
}

const TableRow& baseline_of(const PaperTable& t) { return row_of(t, "0.02"); }

std::string row_name(const TableRow& r) { return r.setting + " (L" + std::to_string(r.line) + ")"; }

double task_average(const TableRow& r) {
  double s = 0;
  for (const double v : r.task) s += v;
  return s / double(kTasks);
}

}  // namespace rescale_paper

namespace {

using namespace rescale_paper;

std::string cell_name(std::size_t c) {
  return c < kTasks ? kTableTasks[c] : c == kTasks ? "Mean" : "Delta_base";
}

bool same_cells(const TableRow& a, const TableRow& b) {
  for (std::size_t c = 0; c < kCells; ++c)
    if (std::fabs(a.cell(c) - b.cell(c)) > kTie) return false;
  return true;
}

// Mean = the average of the 7 task columns, Delta_base = Mean minus the
// baseline's Mean. Every printed entry is within 0.05 of its value, so the
// average of the 7 printed tasks is within 0.05 of the true average and the
// printed Mean within 0.05 of that: |Mean - task average| <= 0.10. Delta_base
// rounds (0.05) the difference of two true Means, each within 0.05 of its
// printed Mean: |Delta_base - (Mean - baseline Mean)| <= 0.15.
constexpr double kMeanTol = 0.10, kDeltaTol = 0.15;

Verdict table_arithmetic(const PaperTable& t) {
  const int number = t.number;
  const TableRow& base = baseline_of(t);
  double mean_dev = 0, delta_dev = 0, delta_avg_dev = 0;
  const TableRow* mean_worst = &t.rows.front();
  const TableRow* delta_worst = &t.rows.front();
  int delta_off = 0;  // rows whose Delta_base is not the difference of the printed Means
  for (const TableRow& r : t.rows) {
    const double dm = std::fabs(r.mean - task_average(r));
    const double dd = std::fabs(r.delta - (r.mean - base.mean));
    delta_avg_dev =
        std::max(delta_avg_dev, std::fabs(r.delta - (task_average(r) - task_average(base))));
    delta_off += dd > 0.01;
    if (dm > mean_dev + kTie) {  // the first row of the largest deviation
      mean_dev = dm;
      mean_worst = &r;
    }
    if (dd > delta_dev + kTie) {
      delta_dev = dd;
      delta_worst = &r;
    }
  }
  std::vector<Measure> m{{"rows", double(t.rows.size())},
                         {"max_abs_mean_minus_task_average", mean_dev},
                         {"max_abs_delta_minus_mean_difference", delta_dev},
                         {"max_abs_delta_minus_task_average_difference", delta_avg_dev},
                         {"rows_delta_not_printed_mean_difference", double(delta_off)}};
  const std::string fig = "Mean dev " + fixed(mean_dev, 3) + ", Delta dev " + fixed(delta_dev, 3);
  const std::string detail =
      "Table " + std::to_string(number) + ", " + std::to_string(t.rows.size()) +
      " rows; worst Mean: " + row_name(*mean_worst) + " " + fixed(mean_worst->mean, 1) +
      " vs task average " + fixed(task_average(*mean_worst), 3) +
      "; worst Delta_base: " + row_name(*delta_worst) + " " + fixed(delta_worst->delta, 1) +
      " vs Mean difference " + fixed(delta_worst->mean - base.mean, 1) +
      "; Delta_base is off the printed Means' difference in " + std::to_string(delta_off) +
      " rows, within " + fixed(delta_avg_dev, 3) +
      " of the task averages' difference in all; tolerances 0.10 (Mean) and 0.15 (Delta_base) "
      "from one-decimal rounding";
  if (mean_dev <= kMeanTol + kTie && delta_dev <= kDeltaTol + kTie) return holds(fig, detail, m);
  return fails(Fault::math_error, fig, detail, m);
}

// Rows of one setting printed in several tables (the baseline in all five,
// sigma_init 0.03 in Tables 2 and 5, 0.015 to 0.006 in Tables 2 and 7, 0.02 +
// LIR in Tables 6 and 7, Table 3's three LIR + TVR rows in Table 7) carry the
// same numbers: every cell (7 tasks, Mean, Delta_base) against the setting's
// first row in an earlier table, exactly (both are transcribed as printed).
// A setting repeated within one table is rescale.table.duplicate-labels'.
Verdict repeated_rows(const Context&) {
  std::map<std::string, std::pair<int, const TableRow*>> first;  // setting -> table, row
  std::map<std::string, std::set<int>> tables_of;                // repeated setting -> tables
  int rows = 0, cells = 0, differing = 0;
  std::string first_diff;
  for (const PaperTable& t : paper_tables())
    for (const TableRow& r : t.rows) {
      const auto it = first.find(r.setting);
      if (it == first.end()) {
        first.emplace(r.setting, std::make_pair(t.number, &r));
        continue;
      }
      if (it->second.first == t.number) continue;
      const TableRow& a = *it->second.second;
      std::set<int>& tables = tables_of[r.setting];
      tables.insert(it->second.first);
      tables.insert(t.number);
      ++rows;
      for (std::size_t c = 0; c < kCells; ++c) {
        ++cells;
        if (std::fabs(a.cell(c) - r.cell(c)) <= kTie) continue;
        ++differing;
        if (first_diff.empty())
          first_diff = r.setting + " " + cell_name(c) + ": " + fixed(a.cell(c), 1) + " (L" +
                       std::to_string(a.line) + ") vs " + fixed(r.cell(c), 1) + " (L" +
                       std::to_string(r.line) + ")";
      }
    }
  std::string listed;
  for (const auto& [setting, tables] : tables_of) {
    listed += (listed.empty() ? "" : "; ") + setting + ": Tables";
    for (const int n : tables) listed += (n == *tables.begin() ? " " : ", ") + std::to_string(n);
  }
  std::vector<Measure> m{{"settings_repeated", double(tables_of.size())},
                         {"rows_compared", double(rows)},
                         {"cells_compared", double(cells)},
                         {"cells_differing", double(differing)}};
  const std::string fig = std::to_string(differing) + "/" + std::to_string(cells) + " cells differ";
  if (differing == 0)
    return holds(fig,
                 std::to_string(rows) + " rows repeat an earlier table's setting, all equal (" +
                     listed + ")",
                 m);
  return fails(Fault::math_error, fig, "first difference: " + first_diff + " (" + listed + ")", m);
}

// Repeated labels and copied rows within the tables.
struct Duplicates {
  int labels = 0, copies = 0;  // repeated labels; pairs of rows with the same 9 numbers
  std::string found;
  std::vector<Measure> measured;
  std::set<int> copied;  // lines of rows that repeat a label and another row's 9 numbers
};

Duplicates scan_duplicates(const std::vector<PaperTable>& tables) {
  Duplicates d;
  std::set<std::pair<int, int>> explained;  // lines of a row and the row it copies
  for (const PaperTable& t : tables)
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (std::size_t j = i + 1; j < t.rows.size(); ++j) {
        const TableRow& a = t.rows[i];
        const TableRow& b = t.rows[j];
        if (a.setting != b.setting) continue;
        ++d.labels;
        int differ = 0;
        for (std::size_t c = 0; c < kCells; ++c) differ += std::fabs(a.cell(c) - b.cell(c)) > kTie;
        std::string copy;  // the other rows whose 9 numbers b repeats
        int n_copy = 0;
        for (const TableRow& k : t.rows)
          if (&k != &a && &k != &b && same_cells(k, b)) {
            copy += (copy.empty() ? "" : ", ") + row_name(k);
            ++n_copy;
            explained.insert({std::min(k.line, b.line), std::max(k.line, b.line)});
          }
        if (n_copy > 0) d.copied.insert(b.line);
        // streamed, not joined with +: GCC 12 warns falsely on such chains (-Wrestrict)
        std::ostringstream tag, what;
        tag << "T" << t.number << "_L" << a.line << "_L" << b.line;
        d.measured.push_back({"cells_differing_" + tag.str(), double(differ)});
        d.measured.push_back({"other_rows_with_second_row_numbers_" + tag.str(), double(n_copy)});
        what << (d.found.empty() ? "" : "; ") << "Table " << t.number << ": L" << a.line << " and L"
             << b.line << " both '" << a.setting << "', " << differ << "/9 cells differ (Mean "
             << fixed(a.mean, 1) << " vs " << fixed(b.mean, 1) << "); L" << b.line
             << (copy.empty() ? " repeats no other row" : "'s 9 numbers are exactly those of ")
             << copy;
        d.found += what.str();
      }
  for (const PaperTable& t : tables)
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (std::size_t j = i + 1; j < t.rows.size(); ++j) {
        const TableRow& a = t.rows[i];
        const TableRow& b = t.rows[j];
        if (a.setting == b.setting || !same_cells(a, b)) continue;
        ++d.copies;
        if (explained.count({a.line, b.line})) continue;
        d.found += (d.found.empty() ? "" : "; ") + std::string("Table ") +
                   std::to_string(t.number) + ": " + row_name(a) + " and " + row_name(b) +
                   " carry the same 9 numbers";
      }
  d.measured.push_back({"repeated_labels", double(d.labels)});
  d.measured.push_back({"same_numbers_different_labels", double(d.copies)});
  return d;
}

// Within a table each row is its own run: no setting printed twice, and no two
// rows with the same 9 numbers. For a repeated label, whether the two rows'
// numbers differ and whether the second repeats another row's numbers in the
// same table (a row copied into the wrong place). A copy-paste slip when every
// finding is such a copied row and the tables without those rows repeat no
// label and no row and keep their Mean and Delta_base (measured); a
// mathematical error otherwise.
Verdict duplicate_labels(const Context&) {
  const Duplicates d = scan_duplicates(paper_tables());
  std::vector<Measure> m = d.measured;
  std::size_t n = 0;
  for (const PaperTable& t : paper_tables()) n += t.rows.size();
  if (d.labels == 0 && d.copies == 0)
    return holds("no repeated row",
                 std::to_string(n) + " rows of Tables 2, 3, 5, 6, 7, none repeated in its table",
                 m);
  const std::string fig = std::to_string(d.labels) + " repeated label(s), " +
                          std::to_string(d.copies) + " copied row(s)";
  // The tables without the copied rows.
  std::vector<PaperTable> corrected = paper_tables();
  std::string dropped;
  bool arithmetic_ok = true;
  for (PaperTable& t : corrected) {
    const std::size_t before = t.rows.size();
    std::erase_if(t.rows, [&](const TableRow& r) { return d.copied.count(r.line) > 0; });
    if (t.rows.size() == before) continue;
    const Verdict a = table_arithmetic(t);
    arithmetic_ok = arithmetic_ok && a.status == Status::holds;
    dropped += (dropped.empty() ? "" : "; ") + std::string("Table ") + std::to_string(t.number) +
               " without it (" + std::to_string(t.rows.size()) + " rows): " + a.figure;
  }
  const Duplicates after = scan_duplicates(corrected);
  m.push_back({"copied_rows_dropped", double(d.copied.size())});
  m.push_back({"repeated_labels_after_dropping", double(after.labels)});
  m.push_back({"same_numbers_after_dropping", double(after.copies)});
  if (!d.copied.empty() && after.labels == 0 && after.copies == 0 && arithmetic_ok) {
    std::string lines;
    for (const int l : d.copied) lines += (lines.empty() ? "L" : ", L") + std::to_string(l);
    return fails(Fault::notation_slip,
                 {"Table 7's " + lines +
                      " repeats another row's label and prints another row's numbers "
                      "(copy-paste)",
                  "Table 7 without " + lines + " (its setting's results are not in the paper)"},
                 fig,
                 d.found + "; slip: " + lines +
                     " is another row's numbers pasted under a repeated label (copy-paste); "
                     "the corrected table (" +
                     lines +
                     " dropped) repeats no label and no row, and keeps its Mean and "
                     "Delta_base (" +
                     dropped + "); the results of the setting " + lines +
                     " was meant to report are not in the paper",
                 m);
  }
  return fails(Fault::math_error, fig, d.found, m);
}

}  // namespace

void add_rescale_tables_claims(Registrar& r) {
  // The header line of each table, with its Mean and Delta_base columns.
  const std::pair<int, int> header[] = {{2, 270}, {3, 299}, {5, 418}, {6, 436}, {7, 456}};
  for (const auto& [n, line] : header)
    r.add({.id = "rescale.table." + std::to_string(n) + "-mean",
           .location = paper_table(n).location,
           .statement = "Mean is the average of the 7 task columns and Delta_base is Mean minus "
                        "the baseline (sigma_init = 0.02) row's Mean, in every row, to the "
                        "printed rounding",
           .kind = Kind::numeric,
           .relied_on = false,
           .basis = Basis::paper,
           .quote_line = line,
           .quote = "Mean\tΔ_{base}",
           .inputs = "Table " + std::to_string(n) + " as transcribed (" +
                     std::to_string(paper_table(n).rows.size()) +
                     " rows, 7 task columns, Mean, Delta_base, one decimal each)",
           .formula = "|Mean - (sum of the 7 tasks)/7| and |Delta_base - (Mean - baseline Mean)| "
                      "per row, worst row",
           .threshold = "holds if every row's Mean deviation <= 0.10 and Delta_base deviation <= "
                        "0.15 (one-decimal rounding of the entries); fails otherwise",
           .against = "the paper's own Table " + std::to_string(n) +
                      ": the average of its 7 printed task columns against Mean, the Mean "
                      "difference against Delta_base, within the one-decimal rounding",
           .check = [n](const Context&) { return table_arithmetic(paper_table(n)); }});
  r.add({.id = "rescale.table.repeated-rows",
         .location = "Tables 2, 3, 5, 6 and 7",
         .statement = "A setting printed in several tables (the baseline in all five; sigma_init "
                      "0.03 in Tables 2 and 5; 0.015, 0.01, 0.008, 0.006 in Tables 2 and 7; 0.02 "
                      "+ LIR in Tables 6 and 7; Table 3's three LIR + TVR rows in Table 7) has "
                      "the same numbers in each",
         .kind = Kind::numeric,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 273,
         .quote = "$\\sigma_{\\text{init}} = 0.02 \\text{ (baseline)}$ 50.5 71.6 41.1 52.9 36.8 "
                  "61.6 34.4 49.8 0.0",
         .inputs = "Tables 2, 3, 5, 6, 7 as transcribed (40 rows); a row's setting from its "
                   "label (Table 7's '+ ...' rows under their block's sigma_init)",
         .formula = "for each setting seen in an earlier table: its 9 cells against that table's "
                    "row, exactly",
         .threshold = "holds if no cell differs; fails with the first difference",
         .against = "the paper's own Tables 2, 3, 5, 6, 7 compared cell by cell (117 cells of 13 "
                    "repeated settings)",
         .check = repeated_rows});
  r.add({.id = "rescale.table.duplicate-labels",
         .location = "Table 7, lines 468-469 (Tables 2, 3, 5, 6, 7 scanned)",
         .statement = "Each row of a table is its own setting: no label is printed twice within "
                      "a table and no two rows carry the same numbers (Table 7 prints '+ LIR + "
                      "TVR(sigma_target = 0.02)' twice under sigma_init = 0.01)",
         .kind = Kind::numeric,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 469,
         .quote = "+ LIR + TVR($\\sigma_{\\text{target}} = 0.02$) 52.2 71.8 41.9 53.6 38.2 61.5 "
                  "34.7 50.6 0.7",
         .inputs = "Tables 2, 3, 5, 6, 7 as transcribed (40 rows)",
         .formula = "pairs of rows of one table with the same setting, and with the same 9 "
                    "cells; for a repeated label, the other rows whose numbers the second "
                    "repeats; then the tables without those copied rows rescanned and their "
                    "Mean / Delta_base rechecked",
         .threshold = "holds if no label and no row repeats; else a notation slip (copy-paste) "
                      "when every repeat is a copied row and the tables without it are clean and "
                      "keep their Mean and Delta_base; else a mathematical error",
         .against = "the paper's own Table 7 (its 24 rows compared pairwise; Mean/Delta_base "
                    "rechecked without the copied row)",
         .check = duplicate_labels});
}

}  // namespace scaleref::audit
