// scaleref_selfcheck: the verifier's self-report on the tape's primitives.
//
// For every primitive in the catalog, draws cases from the same generators the
// property tests use (a fixed seed, so the report is reproducible), runs the
// full gradient check on each and prints one row: worst relative error of the
// tape's gradient against 50-digit and double finite differences, the
// smallest Taylor slope, and the verdict. Exits 1 if any check failed.
//
//   scaleref_selfcheck [--cases N] [--seed S]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <scaleref/autodiff/catalog.hpp>
#include <string>

int main(int argc, char** argv) {
  int cases = 8;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cases") && i + 1 < argc)
      cases = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--cases N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  using namespace scaleref;
  std::printf("Tape primitives vs central finite differences (%d random cases each, seed %llu)\n",
              cases, static_cast<unsigned long long>(seed));
  std::printf("%-20s %14s %14s %12s  %s\n", "primitive", "rel err 50-dig", "rel err double",
              "min Taylor", "verdict");
  int failed = 0;
  for (const auto& c : autodiff::primitive_catalog()) {
    const auto gen = autodiff::draw_inputs(c);
    double worst50 = 0, worst64 = 0, slope = std::numeric_limits<double>::infinity();
    bool ok = true;
    std::string first_failure;
    for (int k = 0; k < cases; ++k) {
      const auto x = gen(rc::Random(seed * 1000003 + static_cast<std::uint64_t>(k)), 50).value();
      const verify::Report r = verify::check(c.problem, x);
      worst50 = std::max(worst50, r.worst_rel_err("fd-50"));
      worst64 = std::max(worst64, r.worst_rel_err("fd-double"));
      if (const auto* t = r.find("taylor-50"); t && !std::isnan(t->slope))
        slope = std::min(slope, t->slope);
      if (!r.ok() && ok) first_failure = r.str();
      ok = ok && r.ok();
    }
    char taylor[32];
    if (std::isinf(slope))
      std::snprintf(taylor, sizeof taylor, "linear");
    else
      std::snprintf(taylor, sizeof taylor, "%.3f", slope);
    std::printf("%-20s %14.2e %14.2e %12s  %s\n", c.problem.name.c_str(), worst50, worst64, taylor,
                ok ? "pass" : "FAIL");
    if (!ok) {
      ++failed;
      std::printf("%s", first_failure.c_str());
    }
  }
  std::printf("%zu primitives, %d failed\n", autodiff::primitive_catalog().size(), failed);
  return failed ? 1 : 0;
}
