// rapidcheck generators for gradient checks: shapes that break assumptions
// (1 and odd sizes are common) and values spread over many orders of magnitude,
// kept away from the points where a function has a kink.
//
// A Domain says where one input's values live. A matrix is drawn at a common
// scale 10^s, s uniform in [lo_decade, hi_decade], and each entry is
// +-10^(s + e), e uniform in [-spread, spread]; so no entry is ever 0, and the
// ratio of two entries of one matrix is at most 10^(2 spread). Entries closer
// than kink_margin * max(1, |k|) to a kink k are moved out to that distance.
//
// Outside a property, draw with gen(rc::Random(seed), size).value().
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <scaleref/types.hpp>
#include <utility>
#include <vector>

namespace scaleref::verify::gen {

struct Domain {
  double lo_decade = -8, hi_decade = 8;  // range of the matrix's common scale, in decades
  double spread = 1;                     // each entry within +-spread decades of that scale
  bool positive = false;                 // all entries > 0
  std::vector<double> kinks;             // points to stay away from
  double kink_margin = 1e-3;             // relative to max(1, |kink|)
};

// A domain of magnitudes 10^(s + e), s in [lo, hi], e in [-spread, spread], either sign.
inline Domain decades(double lo, double hi, double spread) {
  Domain d;
  d.lo_decade = lo;
  d.hi_decade = hi;
  d.spread = spread;
  return d;
}

// An extent in [1, max]: 1 about a quarter of the time, since D = 1 breaks
// more code than any other size; odd sizes come up as often as even ones.
inline rc::Gen<long> extent(long max) {
  return rc::gen::weightedOneOf<long>(
      {{1, rc::gen::just(1L)}, {3, rc::gen::inRange<long>(1, max + 1)}});
}

// Moves entries within margin * max(1, |k|) of a kink k to that distance, on
// the side they were on.
inline Mat<double> keep_away(Mat<double> m, const std::vector<double>& kinks, double margin) {
  for (long i = 0; i < m.size(); ++i) {
    double& v = m.data()[i];
    for (double k : kinks) {
      const double r = margin * std::max(1.0, std::abs(k));
      if (std::abs(v - k) < r) v = (v >= k) ? k + r : k - r;
    }
  }
  return m;
}

// A rows x cols matrix drawn from `domain` (see the header comment).
inline rc::Gen<Mat<double>> matrix(long rows, long cols, Domain domain) {
  constexpr int kSteps = 1 << 20;  // resolution of the uniform draws
  const auto n = static_cast<std::size_t>(rows * cols);
  return rc::gen::map(
      rc::gen::pair(
          rc::gen::inRange(0, kSteps + 1),
          rc::gen::container<std::vector<std::pair<int, bool>>>(
              n, rc::gen::pair(rc::gen::inRange(-kSteps, kSteps + 1), rc::gen::arbitrary<bool>()))),
      [rows, cols, domain](const std::pair<int, std::vector<std::pair<int, bool>>>& draw) {
        const double s =
            domain.lo_decade + (domain.hi_decade - domain.lo_decade) * draw.first / kSteps;
        Mat<double> m(rows, cols);
        for (long i = 0; i < m.size(); ++i) {
          const auto& [e, negative] = draw.second[static_cast<std::size_t>(i)];
          const double magnitude = std::pow(10.0, s + domain.spread * e / kSteps);
          m.data()[i] = (negative && !domain.positive) ? -magnitude : magnitude;
        }
        return domain.kinks.empty() ? m : keep_away(std::move(m), domain.kinks, domain.kink_margin);
      });
}

}  // namespace scaleref::verify::gen
