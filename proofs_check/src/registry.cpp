#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <map>
#include <nlohmann/json.hpp>
#include <scaleref/audit/registry.hpp>
#include <scaleref/error.hpp>
#include <set>
#include <sstream>

namespace scaleref::audit {

// Checked by hand, not with <regex>: GCC 12 under ASan warns falsely inside
// <regex>, and the build treats warnings as errors in CI.
bool well_formed_id(const std::string& id) {
  const auto run = [&](std::size_t from, auto accept) {
    std::size_t to = from;
    while (to < id.size() && accept(id[to])) ++to;
    return to;
  };
  const auto lower = [](char ch) { return ch >= 'a' && ch <= 'z'; };
  const auto letter = [&](char ch) { return lower(ch) || (ch >= 'A' && ch <= 'Z'); };
  const auto name = [&](char ch) {
    return letter(ch) || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
  };
  const std::size_t paper_end = run(0, lower);
  if (paper_end == 0 || paper_end == id.size() || id[paper_end] != '.') return false;
  const std::size_t kind_end = run(paper_end + 1, letter);
  if (kind_end == paper_end + 1 || kind_end == id.size() || id[kind_end] != '.') return false;
  return kind_end + 1 < id.size() && run(kind_end + 1, name) == id.size();
}

void check_record(const Claim& c) {
  const auto need = [&](bool ok, const char* what) {
    require(ok, "audit::check_record", "claim '", c.id, "' ", what);
  };
  if (c.basis != Basis::conformance) {
    need(c.quote_line > 0 && !c.quote.empty(),
         "needs the paper's words it rests on: a quote and its line");
  }
  need(c.basis != Basis::reading || c.reading != nullptr, "is a reading but names no Reading");
  need(!c.reconstructed || c.basis == Basis::reading,
       "is reconstructed, so its basis must be reading");
  need(c.reconstructed == (c.scope == Scope::reconstruction),
       "is reconstructed exactly when its scope is reconstruction");
  need(c.basis == Basis::conformance || !c.against.empty(),
       "does not say what its verdict is computed against");
  need(c.basis != Basis::conformance || c.scope == Scope::derivation,
       "is a conformance check, whose scope is derivation (our code against its definition)");
  need(!c.inputs.empty(), "has no inputs");
  need(!c.formula.empty(), "has no formula");
  need(!c.threshold.empty(), "has no threshold");
  need(static_cast<bool>(c.check), "has no check");
  need(!c.source.empty(), "has no source (register it through a Registrar)");
  if (c.reading) {
    need(!c.reading->id.empty() && !c.reading->notation.empty() && !c.reading->rule.empty() &&
             !c.reading->alternatives.empty(),
         "names a Reading without its id, notation, rule or alternatives");
    const std::string& id = c.reading->id;
    need(id.rfind(c.paper + ".reading.", 0) == 0 || id.rfind("shared.reading.", 0) == 0,
         "names a Reading whose id is not <paper>.reading.<name> or shared.reading.<name>");
  }
}

std::vector<Claim> all_claims() {
  std::vector<Claim> out;
  add_sdd_claims(out);
  add_seednorm_claims(out);
  add_scalevec_claims(out);
  add_rescale_claims(out);
  add_smallinit_claims(out);
  check_registry(out);
  return out;
}

void check_registry(const std::vector<Claim>& out) {
  std::set<std::string> seen;
  std::map<std::string, const Reading*> readings;  // by notation: one reading each
  for (const Claim& c : out) {
    require(well_formed_id(c.id), "audit::all_claims",
            "expected an id <paper>.<eq|thm|prop|claim|...>.<name>, got '", c.id, "'");
    require(c.id.rfind(c.paper + ".", 0) == 0, "audit::all_claims", "claim '", c.id,
            "' does not start with its paper '", c.paper, "'");
    require(seen.insert(c.id).second, "audit::all_claims", "duplicate claim id '", c.id, "'");
    check_record(c);
    if (c.reading) {
      const auto [at, fresh] = readings.emplace(c.reading->notation, c.reading);
      require(fresh || at->second == c.reading, "audit::all_claims", "claim '", c.id,
              "' reads the notation '", c.reading->notation, "' by '", c.reading->id,
              "', another claim by '", at->second->id, "': one reading per notation");
    }
  }
}

bool matches(const std::string& id, const std::string& pattern) {
  if (pattern.find('*') == std::string::npos) {  // the id, or its leading dot-separated parts
    const std::size_t n = pattern.size() - (!pattern.empty() && pattern.back() == '.');  // "sdd."
    return n > 0 && id.compare(0, n, pattern, 0, n) == 0 && (id.size() == n || id[n] == '.');
  }
  // The glob, '*' any run and every other character itself: greedy, going back
  // to the last '*' on a mismatch. No recursion and no std::regex, whose
  // recursive compiler overflowed the stack on a pattern of 60000 characters.
  const std::size_t none = std::string::npos;
  std::size_t i = 0, p = 0, star = none, resumed = 0;
  while (i < id.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resumed = i;
    } else if (p < pattern.size() && pattern[p] == id[i]) {
      ++p;
      ++i;
    } else if (star != none) {
      p = star + 1;  // the last '*' takes one more character
      i = ++resumed;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

namespace {

Verdict run_once(const Claim& c, const Context& ctx) {
  try {
    Verdict v = c.check(ctx);
    std::set<std::string> names;
    for (const Measure& m : v.measured)
      require(names.insert(m.name).second, "audit::run_claim", "claim '", c.id,
              "' reports the measure '", m.name, "' twice");
    require((v.status == Status::fails) == (v.fault != Fault::none), "audit::run_claim", "claim '",
            c.id, "': a fault goes with a failure, and only with one");
    require(allowed(c.scope, v.status, v.fault), "audit::run_claim", "claim '", c.id, "' (a ",
            scope_name(c.scope), ") cannot be '", verdict_label(v.status, v.fault), "'");
    for (const ReadingVerdict& x : v.readings)
      require(allowed(c.scope, x.status, x.fault), "audit::run_claim", "claim '", c.id, "' (a ",
              scope_name(c.scope), ") cannot be '", verdict_label(x.status, x.fault),
              "' under the reading ", x.reading);
    // The headline lists each error against the paper by its finding; a
    // failure branch that names none (one that no default run reaches, say)
    // is listed by its computed detail, never left out.
    const bool against_paper = v.fault == Fault::math_error || v.fault == Fault::notation_slip ||
                               v.fault == Fault::overstatement;
    if (against_paper && v.finding.wrong.empty()) v.finding.wrong = v.detail;
    return v;
  } catch (const std::exception& e) {
    Verdict v;
    v.figure = "error";
    v.detail = e.what();
    return v;
  }
}

std::string verdict_label(const Verdict& v) { return verdict_label(v.status, v.fault); }

std::string run_label(const Run& r) {
  std::string s = "seed " + std::to_string(r.seed);
  if (r.thorough) s += " --thorough";
  return s;
}

}  // namespace

Result run_claim(const Claim& c, const Context& ctx, int replicates) {
  require(replicates >= 1, "audit::run_claim", "replicates must be at least 1, got ", replicates);
  Result r;
  r.claim = &c;
  const auto t0 = std::chrono::steady_clock::now();
  const int seeds = c.stochastic ? replicates : 1;
  std::vector<bool> sizes{ctx.thorough};
  if (ctx.thorough && c.sized) sizes.push_back(false);  // the default sizes beside
  for (const bool thorough : sizes) {
    for (int k = 0; k < seeds; ++k) {
      Context at = ctx;
      at.thorough = thorough;
      at.seed = ctx.seed + static_cast<std::uint64_t>(k);
      r.runs.push_back({at.seed, thorough, run_once(c, at)});
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const Verdict& first = r.runs.front().verdict;
  const auto same = [&](const Run& x) {
    return x.verdict.status == first.status && x.verdict.fault == first.fault;
  };
  const auto failed = std::find_if(r.runs.begin(), r.runs.end(), [](const Run& x) {
    return x.verdict.status == Status::not_run;
  });
  if (failed != r.runs.end()) {
    r.verdict = failed->verdict;
    if (r.runs.size() > 1) r.verdict.detail = run_label(*failed) + ": " + r.verdict.detail;
  } else if (std::all_of(r.runs.begin(), r.runs.end(), same)) {
    r.verdict = first;
    if (r.runs.size() > 1) {
      std::string on = std::to_string(r.runs.size()) + " runs (";
      for (std::size_t i = 0; i < r.runs.size(); ++i) (on += i ? ", " : "") += run_label(r.runs[i]);
      r.verdict.detail += "; the same verdict on " + on + ")";
    }
  } else {
    std::map<std::string, int> count;
    for (const Run& x : r.runs) ++count[verdict_label(x.verdict)];
    std::string figure, detail = "the verdict changes with the ";
    detail += (c.stochastic && seeds > 1) ? "seed" : "sizes";
    if (c.stochastic && seeds > 1 && sizes.size() > 1) detail += " and the sizes";
    for (const auto& [label, n] : count)
      (figure += figure.empty() ? "" : ", ") +=
          label + " " + std::to_string(n) + "/" + std::to_string(r.runs.size());
    for (const Run& x : r.runs)
      detail += "; " + run_label(x) + ": " + verdict_label(x.verdict) + ", " + x.verdict.figure;
    detail += "; at " + run_label(r.runs.front()) + ": " + first.detail;
    r.verdict = inconclusive(figure, detail, first.measured);
    r.verdict.worst_entry = first.worst_entry;
  }
  if (c.reconstructed)
    r.verdict.detail =
        "on the project's reconstruction of a statement lost from the paper's copy: " +
        r.verdict.detail;
  return r;
}

int exit_status(const std::vector<Result>& results) {
  for (const Result& r : results) {
    if (r.verdict.status == Status::not_run) return 1;
    if (r.verdict.status == Status::fails && r.claim->relied_on) return 1;
  }
  return 0;
}

Tally tally(const std::vector<Result>& results, bool conformance, const std::string& paper) {
  Tally t;
  for (const Result& r : results) {
    if ((r.claim->basis == Basis::conformance) != conformance) continue;
    if (!paper.empty() && r.claim->paper != paper) continue;
    ++t.claims;
    if (!r.claim->trivial.empty()) {
      ++t.trivial;
      continue;
    }
    switch (r.verdict.status) {
      case Status::holds:
        ++t.holds;
        break;
      case Status::holds_approximately:
        ++t.holds_approximately;
        break;
      case Status::consistent:
        ++t.consistent;
        break;
      case Status::fails:
        ++t.fails;
        switch (r.verdict.fault) {
          case Fault::math_error:
            ++t.math_errors;
            break;
          case Fault::notation_slip:
            ++t.notation_slips;
            break;
          case Fault::overstatement:
            ++t.overstatements;
            break;
          case Fault::reconstruction_refuted:
            ++t.reconstructions_refuted;
            break;
          case Fault::not_reproduced:
            ++t.not_reproduced;
            break;
          case Fault::none:
            break;
        }
        break;
      case Status::reading_dependent:
        ++t.reading_dependent;
        break;
      case Status::inconclusive:
        ++t.inconclusive;
        break;
      case Status::not_run:
        ++t.not_run;
        break;
    }
  }
  return t;
}

namespace {
std::string count(int n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace

std::string Tally::str() const {
  std::ostringstream os;
  os << count(claims, "claim", "claims") << ": " << holds << " hold, " << holds_approximately
     << " hold approximately, ";
  if (consistent) os << consistent << " consistent at small scale, ";
  os << fails << " fail";
  std::vector<std::string> faults;
  const auto add = [&](int n, const char* one, const char* many) {
    if (n) faults.push_back(count(n, one, many));
  };
  add(math_errors, "mathematical error", "mathematical errors");
  add(notation_slips, "notation slip", "notation slips");
  add(overstatements, "overstatement", "overstatements");
  add(reconstructions_refuted, "reconstruction refuted", "reconstructions refuted");
  add(not_reproduced, "not reproduced at small scale", "not reproduced at small scale");
  for (std::size_t i = 0; i < faults.size(); ++i) os << (i ? ", " : " (") << faults[i];
  if (!faults.empty()) os << ")";
  if (reading_dependent) os << ", " << reading_dependent << " reading-dependent";
  os << ", " << inconclusive << " inconclusive, " << not_run << " not run";
  if (trivial) os << "; " << trivial << " trivial, not counted";
  return os.str();
}

std::string Tally::against_papers() const {
  std::ostringstream os;
  os << count(math_errors, "mathematical error", "mathematical errors") << " and "
     << count(notation_slips, "notation slip", "notation slips") << "; apart, "
     << count(overstatements, "overstatement", "overstatements")
     << "; not counted against the paper: "
     << count(reconstructions_refuted, "reconstruction refuted", "reconstructions refuted") << ", "
     << not_reproduced << " not reproduced at small scale, " << reading_dependent
     << " reading-dependent";
  return os.str();
}

namespace {

std::string pad(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}

// JSON has no NaN or infinity: those are written as the strings "nan", "inf", "-inf".
// Whole numbers below 1e17 are written as integers (counts read back as integers), other
// values in the shortest form that reads back as the same double.
nlohmann::ordered_json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::floor(v) && std::fabs(v) < 1e17) return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace

namespace {

// The verdict as the table shows it: a trivial claim says so.
std::string shown(const Result& r) {
  std::string s = verdict_label(r.verdict);
  if (!r.claim->trivial.empty()) s += " (trivial)";
  return s;
}

}  // namespace

std::string table(const std::vector<Result>& results) {
  std::size_t w_id = 2, w_status = 7, w_fig = 6;
  for (const Result& r : results) {
    w_id = std::max(w_id, r.claim->id.size());
    w_status = std::max(w_status, shown(r).size());
    w_fig = std::max(w_fig, r.verdict.figure.size());
  }
  std::ostringstream os;
  const auto section = [&](bool conformance, const char* title) {
    const Tally t = tally(results, conformance);
    if (t.claims == 0) return;
    os << title << "\n\n"
       << pad("id", w_id) << "  " << pad("verdict", w_status) << "  " << pad("figure", w_fig)
       << "  detail\n"
       << std::string(w_id + w_status + w_fig + 14, '-') << "\n";
    for (const Result& r : results) {
      if ((r.claim->basis == Basis::conformance) != conformance) continue;
      os << pad(r.claim->id, w_id) << "  " << pad(shown(r), w_status) << "  "
         << pad(r.verdict.figure, w_fig) << "  " << r.verdict.detail << "\n";
    }
    os << "\n" << t.str() << "\n\n";
  };
  section(false, "Verdicts on the papers (basis paper or reading)");
  section(true,
          "Conformance: scaleref's code against its own definitions (not verdicts on the "
          "papers, not in their tally)");
  os << findings(results);
  return os.str();
}

std::string findings(const std::vector<Result>& results) {
  std::vector<std::string> papers;
  for (const Result& r : results)
    if (r.claim->basis != Basis::conformance &&
        std::find(papers.begin(), papers.end(), r.claim->paper) == papers.end())
      papers.push_back(r.claim->paper);
  if (papers.empty()) return {};
  std::ostringstream os;
  os << "Findings, per paper: its mathematical errors and notation slips, its overstatements "
        "apart; reconstructions refuted, proxies not reproduced at small scale and "
        "reading-dependent verdicts are reported, not counted against the paper; trivial "
        "claims are left out\n";
  const auto line = [&](const Result& r, const std::string& kind) {
    const Verdict& v = r.verdict;
    os << "  " << pad(kind, 29) << " " << r.claim->id << ": ";
    if (v.status == Status::reading_dependent) {
      for (std::size_t i = 0; i < v.readings.size(); ++i)
        os << (i ? "; " : "") << "under " << v.readings[i].reading << (i ? "" : " (preferred)")
           << ": " << verdict_label(v.readings[i].status, v.readings[i].fault) << ", "
           << v.readings[i].figure;
      os << "\n";
      return;
    }
    if (!v.finding.wrong.empty()) {
      os << v.finding.wrong;
      if (!v.finding.corrected.empty()) os << "; corrected: " << v.finding.corrected;
    } else {
      os << v.detail.substr(0, 160) << (v.detail.size() > 160 ? " ..." : "");
    }
    os << " [" << v.figure << "]\n";
  };
  for (const std::string& paper : papers) {
    const Tally t = tally(results, false, paper);
    os << "\n" << paper << ": " << t.against_papers() << "\n";
    for (const Fault f : {Fault::math_error, Fault::notation_slip, Fault::overstatement,
                          Fault::reconstruction_refuted, Fault::not_reproduced})
      for (const Result& r : results)
        if (r.claim->paper == paper && r.claim->basis != Basis::conformance &&
            r.claim->trivial.empty() && r.verdict.status == Status::fails && r.verdict.fault == f)
          line(r, fault_name(f));
    for (const Result& r : results)
      if (r.claim->paper == paper && r.claim->basis != Basis::conformance &&
          r.claim->trivial.empty() && r.verdict.status == Status::reading_dependent)
        line(r, "reading-dependent");
  }
  const Tally all = tally(results, false);
  os << "\nAll papers: " << all.against_papers() << "\n";
  return os.str();
}

namespace {

nlohmann::ordered_json tally_json(const Tally& t) {
  return {{"claims", t.claims},
          {"holds", t.holds},
          {"holds_approximately", t.holds_approximately},
          {"consistent", t.consistent},
          {"fails", t.fails},
          {"mathematical_errors", t.math_errors},
          {"notation_slips", t.notation_slips},
          {"overstatements", t.overstatements},
          {"reconstructions_refuted", t.reconstructions_refuted},
          {"not_reproduced", t.not_reproduced},
          {"reading_dependent", t.reading_dependent},
          {"inconclusive", t.inconclusive},
          {"not_run", t.not_run},
          {"trivial", t.trivial}};
}

// A finding, or null when there is none.
nlohmann::ordered_json finding_json(const Finding& f) {
  if (f.wrong.empty()) return nullptr;
  return {{"wrong", f.wrong}, {"corrected", f.corrected}};
}

}  // namespace

std::string json(const std::vector<Result>& results, const RunInfo& info) {
  using nlohmann::ordered_json;  // keys in the order written, as the schema lists them
  ordered_json claims = ordered_json::array();
  for (const Result& r : results) {
    const Claim& c = *r.claim;
    ordered_json measured = ordered_json::object();
    for (const Measure& m : r.verdict.measured) measured[m.name] = number(m.value);
    ordered_json reading = nullptr;
    if (c.reading)
      reading = {{"id", c.reading->id},
                 {"notation", c.reading->notation},
                 {"rule", c.reading->rule},
                 {"alternatives", c.reading->alternatives}};
    ordered_json readings = ordered_json::array();
    for (const ReadingVerdict& x : r.verdict.readings)
      readings.push_back({{"reading", x.reading},
                          {"verdict", status_name(x.status)},
                          {"fault", fault_name(x.fault)},
                          {"figure", x.figure},
                          {"finding", finding_json(x.finding)}});
    ordered_json runs = ordered_json::array();
    for (const Run& x : r.runs)
      runs.push_back({{"seed", x.seed},
                      {"thorough", x.thorough},
                      {"verdict", status_name(x.verdict.status)},
                      {"fault", fault_name(x.verdict.fault)},
                      {"figure", x.verdict.figure}});
    claims.push_back({{"id", c.id},
                      {"paper", c.paper},
                      {"location", c.location},
                      {"statement", c.statement},
                      {"kind", kind_name(c.kind)},
                      {"relied_on", c.relied_on},
                      {"basis", basis_name(c.basis)},
                      {"quote", c.quote},
                      {"quote_line", c.quote_line},
                      {"reading", std::move(reading)},
                      {"reconstructed", c.reconstructed},
                      {"scope", scope_name(c.scope)},
                      {"stochastic", c.stochastic},
                      {"sized", c.sized},
                      {"inputs", c.inputs},
                      {"formula", c.formula},
                      {"threshold", c.threshold},
                      {"against", c.against},
                      {"trivial", c.trivial},
                      {"source", c.source},
                      {"verdict", status_name(r.verdict.status)},
                      {"fault", fault_name(r.verdict.fault)},
                      {"figure", r.verdict.figure},
                      {"detail", r.verdict.detail},
                      {"finding", finding_json(r.verdict.finding)},
                      {"readings", std::move(readings)},
                      {"measured", std::move(measured)},
                      {"worst_entry", r.verdict.worst_entry},
                      {"runs", std::move(runs)},
                      {"seconds", number(r.seconds)}});
  }
  ordered_json by_paper = ordered_json::object();
  for (const Result& r : results)
    if (r.claim->basis != Basis::conformance && !by_paper.contains(r.claim->paper))
      by_paper[r.claim->paper] = tally_json(tally(results, false, r.claim->paper));
  const ordered_json doc = {{"schema", "scaleref-audit/4"},
                            {"commit", info.commit},
                            {"thorough", info.thorough},
                            {"seed", info.seed},
                            {"replicates", info.replicates},
                            {"tally",
                             {{"papers", tally_json(tally(results, false))},
                              {"conformance", tally_json(tally(results, true))},
                              {"by_paper", std::move(by_paper)}}},
                            {"claims", std::move(claims)}};
  // Invalid UTF-8 in a message becomes U+FFFD instead of failing the whole document.
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string explain(const Result& r) {
  const Claim& c = *r.claim;
  std::ostringstream os;
  os << c.id << ": " << c.statement << "\n"
     << "  where            " << c.location << " (" << kind_name(c.kind)
     << (c.relied_on ? "; scaleref relies on it" : "") << ")\n"
     << "  basis            " << basis_name(c.basis)
     << (c.reconstructed ? " (reconstructed: the statement is lost from the paper's copy)" : "")
     << "\n"
     << "  scope            " << scope_name(c.scope) << "\n";
  if (!c.against.empty()) os << "  computed against " << c.against << "\n";
  if (!c.trivial.empty()) os << "  trivial          " << c.trivial << " (left out of the tally)\n";
  if (c.quote_line > 0) os << "  quote, line " << c.quote_line << "  \"" << c.quote << "\"\n";
  if (c.reading)
    os << "  reading          " << c.reading->id << ": " << c.reading->notation << "\n"
       << "    rule           " << c.reading->rule << "\n"
       << "    alternatives   " << c.reading->alternatives << "\n";
  os << "  inputs, sizes    " << c.inputs << "\n"
     << "  formula as coded " << c.formula << "\n"
     << "  threshold        " << c.threshold << "\n"
     << "  check            " << c.source << "\n"
     << "  runs             ";
  for (std::size_t i = 0; i < r.runs.size(); ++i)
    os << (i ? "\n                   " : "") << run_label(r.runs[i]) << ": "
       << verdict_label(r.runs[i].verdict) << ", " << r.runs[i].verdict.figure;
  os << "\n  verdict          " << verdict_label(r.verdict) << ", " << r.verdict.figure << "\n"
     << "  detail           " << r.verdict.detail << "\n";
  for (const ReadingVerdict& x : r.verdict.readings)
    os << "  reading          " << x.reading << ": " << verdict_label(x.status, x.fault) << ", "
       << x.figure << (x.finding.wrong.empty() ? "" : "; what is wrong: " + x.finding.wrong)
       << "\n";
  if (!r.verdict.finding.wrong.empty())
    os << "  what is wrong    " << r.verdict.finding.wrong << "\n"
       << (r.verdict.finding.corrected.empty()
               ? ""
               : "  corrected form   " + r.verdict.finding.corrected + "\n");
  for (const Measure& m : r.verdict.measured) {
    char value[64];
    std::snprintf(value, sizeof value, "%.17g", m.value);
    os << "  measured         " << m.name << " = " << value << "\n";
  }
  if (!r.verdict.worst_entry.empty()) os << "  worst entry      " << r.verdict.worst_entry << "\n";
  os << "  seconds          " << fixed(r.seconds, 3) << "\n";
  return os.str();
}

}  // namespace scaleref::audit
