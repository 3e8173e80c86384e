// The rescale paper's sentences that summarize its tables ("consistently
// outperformed", "superior", "helps", "best combination", "up to 4.6%"),
// decided on the tables as transcribed in tables.cpp. Each sentence is a row
// of kSentences: its words and where they stand, and what it says of a table,
// in one of two shapes that one function each evaluates:
//   Beats  rows of one table above the rows they are compared with, read by
//          the shared kOutperformsReading (claims/support.hpp) both ways it
//          records for these tables: on the Mean (preferred: the sentences
//          name no single task) and on every task; a tie is not better;
//   Gain   "up to X%" over the baseline in the columns the sentence names,
//          read by kPercentGainReading (readings.hpp) both ways: in accuracy
//          points (preferred) and relative to the baseline.
// Adding the next such sentence is a row.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <scaleref/error.hpp>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "claims/rescale/readings.hpp"
#include "claims/rescale/rescale.hpp"

namespace scaleref::audit {

namespace {

using namespace rescale_paper;

// ---- the two shapes ---------------------------------------------------------------

// Each row above the row it is compared with: (row, compared with), by setting.
struct Beats {
  int table;
  std::vector<std::pair<std::string, std::string>> pairs;
  // A task that a figure the sentence cites plots: its smallest gain over the
  // compared pairs is reported beside.
  std::string task_reported = {};
};

// Each row of table `table` but `row` against `row`: "X is the best".
Beats beats_every_other_row(int table, const std::string& row) {
  const PaperTable& t = paper_table(table);
  Beats b{table, {}};
  for (const TableRow& r : t.rows)
    if (&r != &row_of(t, row)) b.pairs.emplace_back(row, r.setting + "@" + std::to_string(r.line));
  return b;
}

// "Up to `stated`% gain over the baseline (sigma_init = 0.02)" in the task
// columns [from, to) of table `table`; `wider` (0: none), a table whose rows
// include `table`'s, where a larger gain means "up to" understates the
// paper's own largest.
struct Gain {
  int table;
  std::size_t from, to;
  double stated;
  int wider = 0;
};

// One sentence: where it stands, its words, and what it says.
struct Sentence {
  const char* id;
  const char* location;
  const char* statement;
  long line;
  const char* quote;
  std::variant<Beats, Gain> says;
};

// ---- Beats --------------------------------------------------------------------------

// A row named by its setting, or by "setting@line" where the setting repeats
// within the table (Table 7's L469, rescale.table.duplicate-labels).
const TableRow& named_row(const PaperTable& t, const std::string& name) {
  const std::size_t at = name.find('@');
  if (at == std::string::npos) return row_of(t, name);
  const int line = std::stoi(name.substr(at + 1));
  for (const TableRow& r : t.rows)
    if (r.line == line) return r;
  return row_of(t, name.substr(0, at));  // throws, naming the setting
}

std::string& listed(std::string& list, const std::string& item, const char* sep = ", ") {
  return list += (list.empty() ? "" : sep) + item;
}

// Counterexamples for a detail: the first few in full (enough to check by
// hand), then how many more.
struct Examples {
  int count = 0;
  std::string text;
  void add(const std::string& item) {
    if (count++ < 4) listed(text, item, "; ");
  }
  std::string str() const {
    return count > 4 ? text + "; and " + std::to_string(count - 4) + " more" : text;
  }
  bool empty() const { return count == 0; }
};

Verdict beats_verdict(const Beats& s) {
  const PaperTable& t = paper_table(s.table);
  int mean_above = 0, every_above = 0, cells_above = 0, n = 0;
  double min_margin = 1e9, task_gain = 1e9;
  std::size_t task = kTasks;
  for (std::size_t c = 0; c < kTasks; ++c)
    if (s.task_reported == kTableTasks[c]) task = c;
  require(s.task_reported.empty() || task < kTasks, "rescale prose", "no task '", s.task_reported,
          "' in the tables");
  Examples mean_counter, task_counter;
  // The corrected form names the rows above on Mean, and the row they are
  // compared with when it is one row for all.
  std::string rows_above;
  const bool one_compared = std::all_of(s.pairs.begin(), s.pairs.end(), [&](const auto& p) {
    return p.second == s.pairs.front().second;
  });
  std::string task_text;
  for (const auto& [name, other] : s.pairs) {
    const TableRow& a = named_row(t, name);
    const TableRow& b = named_row(t, other);
    const std::string pair = row_name(a) + " vs " + row_name(b);
    ++n;
    min_margin = std::min(min_margin, a.mean - b.mean);
    if (above(a.mean, b.mean)) {
      ++mean_above;
      listed(rows_above, one_compared ? a.setting : pair);
    } else {
      mean_counter.add(pair + ": Mean " + fixed(a.mean, 1) + " vs " + fixed(b.mean, 1) +
                       " (task averages " + fixed(task_average(a), 2) + " vs " +
                       fixed(task_average(b), 2) + ")");
    }
    int tasks_above = 0;
    std::string not_above;
    for (std::size_t c = 0; c < kTasks; ++c)
      if (above(a.task[c], b.task[c]))
        ++tasks_above;
      else
        listed(not_above, std::string(kTableTasks[c]) + " " + fixed(a.task[c], 1) + " vs " +
                              fixed(b.task[c], 1));
    cells_above += tasks_above;
    if (tasks_above == int(kTasks))
      ++every_above;
    else
      task_counter.add(pair + " " + std::to_string(tasks_above) + "/7, not " + not_above);
    if (task < kTasks) {
      task_gain = std::min(task_gain, a.task[task] - b.task[task]);
      listed(task_text,
             s.task_reported + " " + fixed(a.task[task], 1) + " vs " + fixed(b.task[task], 1));
    }
  }
  std::vector<Measure> m{{"pairs", double(n)},
                         {"pairs_above_on_mean", double(mean_above)},
                         {"pairs_above_on_every_task", double(every_above)},
                         {"task_cells_above", double(cells_above)},
                         {"task_cells", double(n * int(kTasks))},
                         {"min_mean_margin", min_margin}};
  if (task < kTasks) m.push_back({s.task_reported + "_gain", task_gain});
  const std::string figure = "Mean " + std::to_string(mean_above) + "/" + std::to_string(n) +
                             ", every task " + std::to_string(every_above) + "/" +
                             std::to_string(n);
  const std::string detail =
      "Table " + std::to_string(s.table) + ", " + std::to_string(n) + " pair(s): on Mean " +
      (mean_counter.empty() ? "all above, smallest margin " + fixed(min_margin, 1)
                            : "not above: " + mean_counter.str()) +
      "; on every task " + (task_counter.empty() ? std::string("all above") : task_counter.str()) +
      " (" + std::to_string(cells_above) + "/" + std::to_string(n * int(kTasks)) +
      " task cells above)" + (task_text.empty() ? "" : "; " + task_text);
  Verdict on_mean =
      mean_above == n
          ? holds(figure, detail, m)
          : fails(Fault::overstatement,
                  {"not every compared row is above on Mean: " + mean_counter.str(),
                   rows_above.empty() ? ""
                   : one_compared     ? rows_above + " above " +
                                        row_name(named_row(t, s.pairs.front().second)) + " on Mean"
                                  : "above on Mean: " + rows_above},
                  figure, detail, m);
  Verdict on_every =
      every_above == n
          ? holds("every task " + std::to_string(n) + "/" + std::to_string(n), "all above")
          : fails(Fault::overstatement,
                  {"not every compared row is above on every task: " + task_counter.str()},
                  "every task " + std::to_string(every_above) + "/" + std::to_string(n),
                  task_counter.str());
  return by_reading({{"the Mean", std::move(on_mean)}, {"every task", std::move(on_every)}},
                    "the sentences name no single task, and the tables' Mean is their summary");
}

// ---- Gain ---------------------------------------------------------------------------

// The largest gain over the baseline row among a table's other rows in the
// task columns [from, to), in accuracy points or relative to the baseline (%).
struct Largest {
  double value = -1e9;
  const TableRow* row = nullptr;
  std::size_t task = 0;
  std::string where() const { return std::string(kTableTasks[task]) + " at " + row_name(*row); }
};

Largest largest_gain(const PaperTable& t, std::size_t from, std::size_t to, bool relative) {
  const TableRow& base = baseline_of(t);
  Largest g;
  for (const TableRow& r : t.rows) {
    if (&r == &base) continue;
    for (std::size_t c = from; c < to; ++c) {
      const double d = r.task[c] - base.task[c];
      const double v = relative ? 100 * d / base.task[c] : d;
      if (v > g.value + kTie) g = {v, &r, c};
    }
  }
  return g;
}

// The stated figure against a gain: two printed entries' difference is within
// 0.1 of its value and the paper's figure within 0.05 of its own, so a gain
// in points matches within 0.15; relative, the 0.1 becomes 100 x 0.1 /
// baseline (0.2% at HellaSwag's 50.5) plus the 0.05.
bool points_match(double gain, double stated) { return std::fabs(gain - stated) <= 0.15 + kTie; }
bool relative_match(double rel, double stated, double baseline) {
  return std::fabs(rel - stated) <= 0.05 + 10 / baseline + kTie;
}

Verdict gain_verdict(const Gain& s) {
  const PaperTable& t = paper_table(s.table);
  const Largest pts = largest_gain(t, s.from, s.to, false);
  const Largest rel = largest_gain(t, s.from, s.to, true);
  const double base = baseline_of(t).task[rel.task];
  const std::string stated = fixed(s.stated, 1);
  std::vector<Measure> m{{"largest_gain_points", pts.value},
                         {"largest_gain_relative_percent", rel.value}};
  std::string beside;
  bool wider_larger = false;
  if (s.wider) {
    const PaperTable& w = paper_table(s.wider);
    const Largest wp = largest_gain(w, s.from, s.to, false);
    const Largest wr = largest_gain(w, s.from, s.to, true);
    wider_larger = wp.value > s.stated + 0.15 + kTie;
    m.push_back({"table" + std::to_string(s.wider) + "_largest_gain_points", wp.value});
    m.push_back({"table" + std::to_string(s.wider) + "_largest_gain_relative_percent", wr.value});
    beside = "; Table " + std::to_string(s.wider) + ", whose rows include these: +" +
             fixed(wp.value, 2) + " points (" + wp.where() + "), +" + fixed(wr.value, 2) +
             "% relative (" + wr.where() + ")";
  }
  // The Mean column, beside: the sentence names benchmarks, not the Mean.
  double mean_gain = -1e9;
  for (const TableRow& r : t.rows) mean_gain = std::max(mean_gain, r.mean - baseline_of(t).mean);
  m.push_back({"largest_mean_gain_points", mean_gain});
  const std::string detail =
      "Table " + std::to_string(s.table) + ", largest gain over the baseline (sigma_init 0.02): +" +
      fixed(pts.value, 2) + " points (" + pts.where() + "), +" + fixed(rel.value, 2) +
      "% relative (" + rel.where() + ")" + beside + "; the Mean (beside, does not decide): +" +
      fixed(mean_gain, 1) + " points";
  const std::string fig_pts = "+" + fixed(pts.value, 1) + " points";
  const std::string fig_rel = "+" + fixed(rel.value, 1) + "%";
  const std::string too_low = "'up to' understates the paper's own largest gain";
  Verdict in_points =
      !points_match(pts.value, s.stated)
          ? fails(Fault::overstatement,
                  {"the largest gain is " + fixed(pts.value, 1) + " points, not " + stated,
                   "up to " + fixed(pts.value, 1) + " points"},
                  fig_pts, detail)
      : wider_larger
          ? holds_approximately(fig_pts, detail + ": " + stated + " points is Table " +
                                             std::to_string(s.table) + "'s largest gain, and " +
                                             too_low + " in Table " + std::to_string(s.wider))
          : holds(fig_pts, detail + ": " + stated + " points is the largest gain");
  // Relative: a stated figure that is the gain in points has its unit
  // mislabelled (a notation slip); one that is neither is an overstatement.
  Verdict relative =
      relative_match(rel.value, s.stated, base)
          ? holds(fig_rel, "the largest relative gain is " + stated + "%")
      : points_match(pts.value, s.stated)
          ? fails(Fault::notation_slip,
                  {"the largest relative gain is " + fixed(rel.value, 1) + "%, not " + stated +
                       "%; " + stated + " is the gain in accuracy points",
                   "up to " + stated + " percentage points"},
                  fig_rel, "relative gain " + fixed(rel.value, 2) + "% (" + rel.where() + ")")
          : fails(Fault::overstatement,
                  {"the largest relative gain is " + fixed(rel.value, 1) + "%, not " + stated + "%",
                   "up to " + fixed(rel.value, 1) + "%"},
                  fig_rel, "relative gain " + fixed(rel.value, 2) + "% (" + rel.where() + ")");
  in_points.measured = std::move(m);
  return by_reading({{"accuracy points", std::move(in_points)},
                     {"relative to the baseline", std::move(relative)}},
                    "the tables are accuracies in %, and " + stated +
                        " is a difference of two of their entries (the paper's own \"Delta_base\" "
                        "is one too)");
}

Verdict verdict_of(const Sentence& s) {
  if (const Beats* b = std::get_if<Beats>(&s.says)) return beats_verdict(*b);
  return gain_verdict(std::get<Gain>(s.says));
}

// ---- the sentences --------------------------------------------------------------------

// The claim's record fields that follow from what the sentence says.
std::string pairs_text(const Beats& b) {
  const PaperTable& t = paper_table(b.table);
  if (b.pairs.size() > 6)
    return row_name(named_row(t, b.pairs.front().first)) + " vs each of the other " +
           std::to_string(b.pairs.size()) + " rows";
  std::string s;
  for (const auto& [name, other] : b.pairs)
    listed(s, row_name(named_row(t, name)) + " vs " + row_name(named_row(t, other)));
  return s;
}

Claim claim_of(Sentence s) {
  SummaryRecord c{.id = s.id,
                  .location = s.location,
                  .statement = s.statement,
                  .quote_line = s.line,
                  .quote = s.quote,
                  .reading = nullptr,
                  .inputs = {},
                  .formula = {},
                  .threshold = {},
                  .against = {},
                  .check = {}};
  if (const Beats* b = std::get_if<Beats>(&s.says)) {
    const std::string table = "Table " + std::to_string(b->table);
    c.reading = &kOutperformsReading;
    c.inputs = table + " as transcribed: " + pairs_text(*b);
    c.formula =
        "each row's Mean vs the Mean of the row it is compared with, and the same for "
        "each of the 7 tasks" +
        (b->task_reported.empty() ? std::string() : "; the " + b->task_reported + " gain beside");
    c.threshold =
        "under each reading: the Mean column (preferred) holds if every row is strictly above "
        "the row it is compared with on it, as printed (a tie is not better), every task holds "
        "if above on all 7; else an overstatement; reading-dependent when the two disagree";
    c.against = "the paper's own " + table + " (" + pairs_text(*b) + "; Mean and the 7 tasks)";
  } else {
    const Gain& g = std::get<Gain>(s.says);
    const std::string table = "Table " + std::to_string(g.table);
    const std::string columns =
        g.to - g.from == 1 ? std::string(kTableTasks[g.from]) + " column" : "7 task columns";
    c.reading = &kPercentGainReading;
    c.inputs = table + (g.wider ? " and Table " + std::to_string(g.wider) : std::string()) +
               " as transcribed: the " + columns +
               " of every row and of the baseline "
               "(sigma_init 0.02)";
    c.formula = "largest (row - baseline) over the rows and the " + columns +
                ", in points and relative 100 (row - baseline) / baseline" +
                (g.wider ? "; the same in Table " + std::to_string(g.wider) : std::string()) +
                "; the largest Mean gain beside";
    c.threshold = "under each reading: in points (preferred) holds if the largest gain is " +
                  fixed(g.stated, 1) + " +- 0.15" +
                  (g.wider ? " (approximately if Table " + std::to_string(g.wider) +
                                 "'s is larger: 'up to' understates it)"
                           : std::string()) +
                  "; relative holds if it is " + fixed(g.stated, 1) +
                  " +- (0.05 + 10 / baseline); a relative reading that fails while the points "
                  "match is a notation slip (% for points), any other failure an "
                  "overstatement; reading-dependent when the two disagree";
    c.against = "the paper's own " + table +
                (g.wider ? " and Table " + std::to_string(g.wider) : std::string()) + " (" +
                columns + ": largest gain over the 0.02 baseline, points and relative)";
  }
  c.check = [s = std::move(s)](const Context&) { return verdict_of(s); };
  return summary_claim(std::move(c));
}

}  // namespace

void add_rescale_prose_claims(Registrar& r) {
  // One row per sentence: id, location, statement, quote line, quote, what it says.
  r.add(claim_of(
      {"rescale.abstract.up-to-4-6", "Abstract, with Tables 3 and 7",
       "\"better variance management using these techniques yields substantial improvements in "
       "downstream task performance (up to 4.6% on common pre-training benchmarks)\"",
       9,
       "better variance management using these techniques yields substantial improvements in "
       "downstream task performance (up to 4.6% on common pre-training benchmarks)",
       Gain{3, 0, kTasks, 4.6, 7}}));
  r.add(claim_of(
      {"rescale.sec.4.1.init-range-outperforms", "Sec. 4.1 with Table 2",
       "\"As shown in Table 2, initial values within the 0.006 and 0.015 range consistently "
       "outperformed the baseline of 0.02 on downstream benchmarks\"",
       265,
       "As shown in Table 2, initial values within the 0.006 and 0.015 range consistently "
       "outperformed the baseline of 0.02 on downstream benchmarks.",
       Beats{2, {{"0.015", "0.02"}, {"0.01", "0.02"}, {"0.008", "0.02"}, {"0.006", "0.02"}}}}));
  r.add(claim_of(
      {"rescale.sec.4.1.lir-all-inits", "Sec. 4.1 (Figure 4a) with Table 7",
       "\"Figure 4a further underscores the benefits of LIR in consistently boosting downstream "
       "task performance for all initial standard deviation values\" (Table 7: sigma_init "
       "0.02-0.006 with LIR against without; 0.03 has no LIR row)",
       286,
       "Figure 4a further underscores the benefits of LIR in consistently boosting downstream "
       "task performance for all initial standard deviation values.",
       Beats{7,
             {{"0.02 + LIR", "0.02"},
              {"0.015 + LIR", "0.015"},
              {"0.01 + LIR", "0.01"},
              {"0.008 + LIR", "0.008"},
              {"0.006 + LIR", "0.006"}}}}));
  r.add(claim_of(
      {"rescale.sec.4.2.hellaswag-4-6", "Sec. 4.2 with Table 3",
       "\"Our experiments demonstrated significant improvements in downstream task performance "
       "after applying TVR during pre-training (see Table 3), with up to 4.6% increase in "
       "HellaSwag compared to the baseline (sigma_init = 0.02)\"",
       297,
       "with up to 4.6% increase in HellaSwag compared to the baseline "
       "($\\sigma_{init} = 0.02$).",
       Gain{3, 0, 1, 4.6}}));
  r.add(claim_of(
      {"rescale.app.6.2.1.decay-helps-downstream", "Appendix 6.2.1 with Table 5",
       "\"we found that weight decay also helps in downstream task performance as can be seen in "
       "Table 5 and Figure 8b\" (Figure 8b plots HellaSwag)",
       416,
       "Additionally, we found that weight decay also helps in downstream task performance as "
       "can be seen in Table 5 and Figure 8b.",
       Beats{5, {{"0.03", "0.03 + no WD"}}, "HellaSwag"}}));
  r.add(claim_of(
      {"rescale.app.6.2.2.lir-superior", "Appendix 6.2.2 with Table 6",
       "\"LIR demonstrates superior performance on downstream tasks compared to both the special "
       "initialization for residual weights and the baseline (Table 6)\"",
       434,
       "LIR demonstrates superior performance on downstream tasks compared to both the special "
       "initialization for residual weights and the baseline (Table 6).",
       Beats{6, {{"0.02 + LIR", "0.02 + SIR"}, {"0.02 + LIR", "0.02"}}}}));
  r.add(claim_of(
      {"rescale.app.6.2.3.best-combination", "Appendix 6.2.3 with Table 7 (and Sec. 4.2)",
       "\"Table 7 shows that, on average, sigma_init of 0.006 and sigma_target of 0.01 is the "
       "best combination\" (the setting Sec. 4.2 chose 'based on our ablation studies')",
       449,
       "Table 7 shows that, on average, σ_{init} of 0.006 and σ_{target} of 0.01 is the best "
       "combination.",
       beats_every_other_row(7, "0.006 + LIR + TVR(0.01)")}));
}

}  // namespace scaleref::audit
