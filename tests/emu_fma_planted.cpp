// The FMA-mode copy of tests/emu_fma_planted.hpp's kernel (this file is
// compiled with -ffp-contract=fast -mfma: tests/CMakeLists.txt).
#define SCALEREF_PLANTED_NAME difference_of_squares_fused
#define SCALEREF_PLANTED_NAME_RN difference_of_squares_rn_fused
#include "emu_fma_planted.hpp"

void launch_difference_of_squares_fused(const float* x, const float* c, float* out, unsigned n) {
  scaleref::cuda::launch<difference_of_squares_fused>(1, n, 0, nullptr, x, c, out);
}

void launch_difference_of_squares_rn_fused(const double* x, const double* c, double* out,
                                           unsigned n) {
  scaleref::cuda::launch<difference_of_squares_rn_fused>(1, n, 0, nullptr, x, c, out);
}
