// cuda_check: every GPU kernel x dtype x a grid of shapes against the
// double-precision reference (docs/design.md, "cuda_check: the comparison
// rule"; compare.hpp for the rule and the tolerance table). One line per
// compared output:
//
//   PASS rmsnorm fp32 33x4095/s4104 dx   max_abs .. max_rel .. used .. worst [i] got .. want ..
//
// "used" is the worst entry's share of its tolerance (1 = at the limit).
// Exit status: 0 when every check passes, 1 on any mismatch, 2 on bad usage,
// 0 with a message when there is no GPU (nothing to check).
//
//   cuda_check [--quick] [--only FAMILY]...      families: norms sdd scalevec rescale init replay
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <scaleref/cuda/device.hpp>
#include <string>
#include <vector>

#include "families.hpp"

#if defined(SCALEREF_CUDA_EMU)
#include <scaleref/emu/launch.hpp>
#endif

int main(int argc, char** argv) {
  using namespace scaleref::cuda;
  bool quick = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) {
      only.emplace_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: cuda_check [--quick] [--only FAMILY]...\n");
      return 2;
    }
  }
  const DeviceInfo info = query_device();
  if (!info.available) {
    std::printf("cuda_check: nothing checked: %s\n", info.reason.c_str());
    return 0;
  }
  std::printf("cuda_check on %s%s\n", info.str().c_str(), quick ? " (--quick)" : "");
  const std::vector<check::Family> families{check::norms_family(),    check::sdd_family(),
                                            check::scalevec_family(), check::rescale_family(),
                                            check::init_family(),     check::replay_family()};
  check::Report report;
  for (const auto& f : families) {
    if (!only.empty() && std::find(only.begin(), only.end(), f.name) == only.end()) continue;
    std::printf("== %s\n", f.name);
    std::fflush(stdout);
    f.run(report, quick);
  }
  std::printf("cuda_check: %d checks, %d failed; worst share of tolerance used %.3f\n",
              report.checks(), report.failures(), report.worst_used());
#if defined(SCALEREF_CUDA_EMU)
  const scaleref::emu::Stats st = scaleref::emu::stats();
  std::printf(
      "emulator: %llu launches, %llu blocks, %llu threads, %llu thread steps in %.1f s "
      "inside launches: %.3g thread steps/s (schedules:",
      static_cast<unsigned long long>(st.launches), static_cast<unsigned long long>(st.blocks),
      static_cast<unsigned long long>(st.threads), static_cast<unsigned long long>(st.resumes),
      st.seconds, static_cast<double>(st.resumes) / st.seconds);
  for (const auto& s : scaleref::emu::options().schedules) std::printf(" %s", s.name().c_str());
  std::printf(", grid limit %u)\n", scaleref::emu::options().max_grid_x);
#endif
  return report.failures() == 0 ? 0 : 1;
}
