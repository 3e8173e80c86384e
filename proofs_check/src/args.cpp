#include <scaleref/audit/args.hpp>
#include <scaleref/audit/registry.hpp>

namespace scaleref::audit {

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
    } else if (a == "--only" || a == "--json") {
      if (i + 1 >= args.size()) {
        out.error = a + " expects a value";
        return out;
      }
      if (args[i + 1].empty()) {
        out.error = a + " expects a non-empty value";
        return out;
      }
      (a == "--only" ? out.only.emplace_back() : out.json_path) = args[++i];
    } else if (a == "--help" || a == "-h") {
      out.help = true;
      return out;
    } else {
      out.error = "unknown argument '" + a + "'";
      return out;
    }
  }
  if (out.coverage && (out.thorough || out.list || !out.only.empty() || !out.json_path.empty()))
    out.error = "--coverage runs no claim and takes no other option";
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
