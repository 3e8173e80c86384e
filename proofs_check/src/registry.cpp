#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
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

std::vector<Claim> all_claims() {
  std::vector<Claim> out;
  add_sdd_claims(out);
  add_seednorm_claims(out);
  add_scalevec_claims(out);
  add_rescale_claims(out);
  add_smallinit_claims(out);
  std::set<std::string> seen;
  for (const Claim& c : out) {
    require(well_formed_id(c.id), "audit::all_claims",
            "expected an id <paper>.<eq|thm|prop|claim|...>.<name>, got '", c.id, "'");
    require(c.id.rfind(c.paper + ".", 0) == 0, "audit::all_claims", "claim '", c.id,
            "' does not start with its paper '", c.paper, "'");
    require(seen.insert(c.id).second, "audit::all_claims", "duplicate claim id '", c.id, "'");
    require(static_cast<bool>(c.check), "audit::all_claims", "claim '", c.id, "' has no check");
  }
  return out;
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

Result run_claim(const Claim& c, const Context& ctx) {
  Result r;
  r.claim = &c;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    r.verdict = c.check(ctx);
    std::set<std::string> names;
    for (const Measure& m : r.verdict.measured)
      require(names.insert(m.name).second, "audit::run_claim", "claim '", c.id,
              "' reports the measure '", m.name, "' twice");
  } catch (const std::exception& e) {
    r.verdict = Verdict{Status::not_run, "error", e.what(), {}};
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

int exit_status(const std::vector<Result>& results) {
  for (const Result& r : results) {
    if (r.verdict.status == Status::not_run) return 1;
    if (r.verdict.status == Status::fails && r.claim->relied_on) return 1;
  }
  return 0;
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

std::string table(const std::vector<Result>& results) {
  std::size_t w_id = 2, w_status = 7, w_fig = 6;
  for (const Result& r : results) {
    w_id = std::max(w_id, r.claim->id.size());
    w_status = std::max(w_status, std::string(status_name(r.verdict.status)).size());
    w_fig = std::max(w_fig, r.verdict.figure.size());
  }
  std::ostringstream os;
  os << pad("id", w_id) << "  " << pad("verdict", w_status) << "  " << pad("figure", w_fig)
     << "  detail\n";
  os << std::string(w_id + w_status + w_fig + 14, '-') << "\n";
  int counts[4] = {0, 0, 0, 0};
  for (const Result& r : results) {
    ++counts[static_cast<int>(r.verdict.status)];
    os << pad(r.claim->id, w_id) << "  " << pad(status_name(r.verdict.status), w_status) << "  "
       << pad(r.verdict.figure, w_fig) << "  " << r.verdict.detail << "\n";
  }
  os << "\n"
     << results.size() << " claims: " << counts[0] << " hold, " << counts[1]
     << " hold approximately, " << counts[2] << " fail, " << counts[3] << " not run\n";
  return os.str();
}

std::string json(const std::vector<Result>& results, bool thorough) {
  using nlohmann::ordered_json;  // keys in the order written, as the schema lists them
  ordered_json claims = ordered_json::array();
  for (const Result& r : results) {
    const Claim& c = *r.claim;
    ordered_json measured = ordered_json::object();
    for (const Measure& m : r.verdict.measured) measured[m.name] = number(m.value);
    claims.push_back({{"id", c.id},
                      {"paper", c.paper},
                      {"location", c.location},
                      {"statement", c.statement},
                      {"kind", kind_name(c.kind)},
                      {"relied_on", c.relied_on},
                      {"verdict", status_name(r.verdict.status)},
                      {"figure", r.verdict.figure},
                      {"detail", r.verdict.detail},
                      {"measured", std::move(measured)},
                      {"seconds", number(r.seconds)}});
  }
  const ordered_json doc = {
      {"schema", "scaleref-audit/1"}, {"thorough", thorough}, {"claims", std::move(claims)}};
  // Invalid UTF-8 in a message becomes U+FFFD instead of failing the whole document.
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace scaleref::audit
