// Least-squares fit of a power law y = C x^slope: the slope of log(y) against
// log(x), its intercept and R^2. Used wherever a scaling exponent is measured
// (the audit's Theta(d^k) claims, the examples' fitted exponents).
#pragma once

#include <cmath>
#include <scaleref/error.hpp>
#include <vector>

namespace scaleref {

struct Fit {
  double slope = 0, intercept = 0, r2 = 0;
};

// x, y > 0, at least two distinct x.
inline Fit loglog_fit(const std::vector<double>& x, const std::vector<double>& y) {
  require(x.size() == y.size() && x.size() >= 2, "loglog_fit",
          "expected two equal-length series of >= 2 points, got ", x.size(), " and ", y.size());
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    require(x[i] > 0 && y[i] > 0, "loglog_fit", "expected positive values, got x = ", x[i],
            ", y = ", y[i], " at point ", i);
    mx += std::log(x[i]) / n;
    my += std::log(y[i]) / n;
  }
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double dx = std::log(x[i]) - mx, dy = std::log(y[i]) - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  require(sxx > 0, "loglog_fit", "expected at least two distinct x");
  Fit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  return f;
}

}  // namespace scaleref
