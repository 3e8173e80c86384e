#include <cstdint>
#include <limits>
#include <scaleref/audit/args.hpp>
#include <scaleref/audit/registry.hpp>
#include <string>

namespace scaleref::audit {

namespace {

// A whole number in [0, max] written in decimal digits only: no sign, no
// space, no exponent, no overflow.
bool read_count(const std::string& text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (const char ch : text) {
    if (ch < '0' || ch > '9') return false;
    const auto digit = static_cast<std::uint64_t>(ch - '0');
    if (v > (max - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

}  // namespace

Args parse_args(const std::vector<std::string>& args) {
  Args out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--thorough") {
      out.thorough = true;
    } else if (a == "--list") {
      out.list = true;
    } else if (a == "--coverage") {
      out.coverage = true;
    } else if (a == "--quiet") {
      out.quiet = true;
    } else if (a == "--only" || a == "--json" || a == "--explain" || a == "--seed" ||
               a == "--replicates") {
      if (i + 1 >= args.size()) {
        out.error = a + " expects a value";
        return out;
      }
      const std::string& v = args[++i];
      if (v.empty()) {
        out.error = a + " expects a non-empty value";
        return out;
      }
      std::uint64_t n = 0;
      if (a == "--only") {
        out.only.push_back(v);
      } else if (a == "--json") {
        out.json_path = v;
      } else if (a == "--explain") {
        out.explain = v;
      } else if (a == "--seed") {
        if (!read_count(v, std::numeric_limits<std::uint64_t>::max(), n)) {
          out.error = "--seed expects a whole number from 0 to 2^64 - 1, got '" + v + "'";
          return out;
        }
        out.seed = n;
      } else {
        if (!read_count(v, kMaxReplicates, n) || n == 0) {
          out.error = "--replicates expects a whole number from 1 to " +
                      std::to_string(kMaxReplicates) + ", got '" + v + "'";
          return out;
        }
        out.replicates = static_cast<int>(n);
      }
    } else if (a == "--help" || a == "-h") {
      out.help = true;
      return out;
    } else {
      out.error = "unknown argument '" + a + "'";
      return out;
    }
  }
  if (out.coverage &&
      (out.thorough || out.list || !out.only.empty() || !out.json_path.empty() ||
       !out.explain.empty() || out.seed != kDefaultSeed || out.replicates != kDefaultReplicates))
    out.error = "--coverage runs no claim and takes no other option";
  else if (!out.explain.empty() && (out.list || !out.only.empty() || !out.json_path.empty()))
    out.error = "--explain runs one claim: it takes --seed, --replicates and --thorough only";
  return out;
}

std::vector<const Claim*> select_claims(const std::vector<Claim>& claims,
                                        const std::vector<std::string>& only) {
  std::vector<const Claim*> chosen;
  for (const Claim& c : claims) {
    bool take = only.empty();
    for (const auto& p : only) take = take || matches(c.id, p);
    if (take) chosen.push_back(&c);
  }
  return chosen;
}

}  // namespace scaleref::audit
