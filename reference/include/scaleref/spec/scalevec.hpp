// The scale-vector strategies, by the names the scale_vectors paper uses, and
// which parameters each one reads. No Eigen: the CPU reference (linear.hpp)
// and the GPU kernels (cuda/include/scaleref/cuda/scalevec.hpp) share it.
#pragma once

#include <array>
#include <scaleref/error.hpp>

namespace scaleref::scalevec {

enum class Strategy { none, standard, ap, dp, dnp, md };

inline constexpr std::array<Strategy, 6> kStrategies{
    Strategy::none, Strategy::standard, Strategy::ap, Strategy::dp, Strategy::dnp, Strategy::md};

inline const char* strategy_name(Strategy s) {
  switch (s) {
    case Strategy::none:
      return "none";
    case Strategy::standard:
      return "standard";
    case Strategy::ap:
      return "AP";
    case Strategy::dp:
      return "DP";
    case Strategy::dnp:
      return "DNP";
    case Strategy::md:
      return "MD";
  }
  fail("scalevec::strategy_name: unknown strategy ", static_cast<int>(s));
}

// Which parameters a strategy reads (W always; MD reads r and u).
constexpr bool uses_g(Strategy s) {
  return s == Strategy::standard || s == Strategy::dp || s == Strategy::dnp;
}
constexpr bool uses_a(Strategy s) {
  return s == Strategy::ap || s == Strategy::dp || s == Strategy::dnp;
}

}  // namespace scaleref::scalevec
