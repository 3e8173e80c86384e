// Normal variates from any uniform random bit generator, by stated transforms,
// so that the same generator gives the same numbers on every platform (unlike
// std::normal_distribution, whose algorithm the standard leaves open).
//
//   uniform_open01: (k + 0.5) / 2^53 from the top 53 bits of one 64-bit draw
//                   (two 32-bit draws for a 32-bit generator): in (0, 1).
//   standard_normal: Box-Muller, cos branch: sqrt(-2 ln u1) cos(2 pi u2).
//   truncated_standard_normal(b): standard_normal redrawn until |z| <= b,
//                   the distribution of N(0, 1) conditioned on [-b, b] (the
//                   authors' trunc_normal_ draws it by inverse CDF instead:
//                   same distribution, other numbers).
// The project's counter-based generator (the init issue) plugs in here as
// the URBG.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <scaleref/error.hpp>

namespace scaleref {

template <class URBG>
double uniform_open01(URBG& gen) {
  static_assert(URBG::min() == 0, "uniform_open01 needs a generator whose range starts at 0");
  std::uint64_t bits;
  if constexpr (URBG::max() >= std::numeric_limits<std::uint64_t>::max()) {
    bits = static_cast<std::uint64_t>(gen());
  } else {
    static_assert(URBG::max() == 0xffffffffu, "uniform_open01 needs a 32- or 64-bit generator");
    bits = (static_cast<std::uint64_t>(gen()) << 32) | static_cast<std::uint64_t>(gen());
  }
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;
}

template <class URBG>
double standard_normal(URBG& gen) {
  const double u1 = uniform_open01(gen), u2 = uniform_open01(gen);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

template <class URBG>
double truncated_standard_normal(URBG& gen, double bound) {
  require(bound > 0, "truncated_standard_normal", "expected a bound > 0, got ", bound);
  for (;;) {
    const double z = standard_normal(gen);
    if (std::abs(z) <= bound) return z;
  }
}

}  // namespace scaleref
