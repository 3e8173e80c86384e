// A kernel whose result changes when a * b + c is fused (tests/emu_test.cpp,
// EmuFma): compiled once as it is and once in the FMA mode
// (emu_fma_planted.cpp, SCALEREF_FP_CONTRACT fast), each copy named by
// SCALEREF_PLANTED_NAME.
//
// out = 1 when x^2 - c > 0, else 0, for c = fl(x^2), the float nearest x^2.
// Rounded twice, fl(x x) - c = 0; fused, x x - c is the rounding error of
// x^2, here +2^-24 (x = 1 + 3 2^-12: x^2 = 1 + 3 2^-11 + 9 2^-24 rounds
// down by 2^-24), and the decision flips.
//
// The same decision in double through __dmul_rn and __dadd_rn, which CUDA
// never fuses: 0 in both copies (x = 1 + 3 2^-27: x^2 rounds down by 2^-54).
#pragma once

#include <scaleref/cuda/kernel.hpp>

__global__ void SCALEREF_PLANTED_NAME(scaleref::cuda::DevPtr<const float> x,
                                      scaleref::cuda::DevPtr<const float> c,
                                      scaleref::cuda::DevPtr<float> out) {
  using scaleref::cuda::ld;
  using scaleref::cuda::st;
  const float a = ld(x + threadIdx.x);
  st(out + threadIdx.x, a * a - ld(c + threadIdx.x) > 0.0f ? 1.0f : 0.0f);
}

__global__ void SCALEREF_PLANTED_NAME_RN(scaleref::cuda::DevPtr<const double> x,
                                         scaleref::cuda::DevPtr<const double> c,
                                         scaleref::cuda::DevPtr<double> out) {
  using scaleref::cuda::ld;
  using scaleref::cuda::st;
  const double a = ld(x + threadIdx.x);
  st(out + threadIdx.x, __dadd_rn(__dmul_rn(a, a), -ld(c + threadIdx.x)) > 0.0 ? 1.0 : 0.0);
}
