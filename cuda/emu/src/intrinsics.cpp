// CUDA's rounding intrinsics of double (device.hpp) on the host: each
// operation under the named IEEE rounding mode, set for that operation and
// restored after. Built with -frounding-math (cuda/emu/CMakeLists.txt), so
// the compiler neither folds nor moves the operations across the mode switch.
// The _rn ones are the host's own arithmetic, here, out of line, so that a
// caller built with -ffp-contract=fast cannot fuse them (CUDA never does).
#include <cuda_runtime.h>

#include <cfenv>
#include <cmath>

namespace {

template <class F>
auto rounded(int mode, F f) {
  const int saved = std::fegetround();
  std::fesetround(mode);
  volatile auto r = f();
  std::fesetround(saved);
  return r;
}

}  // namespace

#define SCALEREF_EMU_DIRECTED(suffix, mode)                      \
  double __dadd_##suffix(double a, double b) {                   \
    return rounded(mode, [=] { return a + b; });                 \
  }                                                              \
  double __dsub_##suffix(double a, double b) {                   \
    return rounded(mode, [=] { return a - b; });                 \
  }                                                              \
  double __dmul_##suffix(double a, double b) {                   \
    return rounded(mode, [=] { return a * b; });                 \
  }                                                              \
  double __ddiv_##suffix(double a, double b) {                   \
    return rounded(mode, [=] { return a / b; });                 \
  }                                                              \
  double __dsqrt_##suffix(double a) {                            \
    return rounded(mode, [=] { return std::sqrt(a); });          \
  }                                                              \
  double __fma_##suffix(double a, double b, double c) {          \
    return rounded(mode, [=] { return std::fma(a, b, c); });     \
  }                                                              \
  float __double2float_##suffix(double a) {                      \
    return rounded(mode, [=] { return static_cast<float>(a); }); \
  }

extern "C" {
double __dadd_rn(double a, double b) { return a + b; }
double __dsub_rn(double a, double b) { return a - b; }
double __dmul_rn(double a, double b) { return a * b; }
double __ddiv_rn(double a, double b) { return a / b; }
SCALEREF_EMU_DIRECTED(rz, FE_TOWARDZERO)
SCALEREF_EMU_DIRECTED(ru, FE_UPWARD)
SCALEREF_EMU_DIRECTED(rd, FE_DOWNWARD)
}
