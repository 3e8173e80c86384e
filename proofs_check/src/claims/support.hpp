// Tools the claims share: Gaussian samples from the project's Philox stream,
// log-log slope fits, and the 50-digit analytic-vs-finite-difference verdict
// for exact formulas.
#pragma once

#include <cmath>
#include <cstdint>
#include <scaleref/audit/claim.hpp>
#include <scaleref/random/stream.hpp>
#include <scaleref/types.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <string>
#include <vector>

namespace scaleref::audit {

// Every claim draws from its own tensor ids under this seed, so a verdict is
// a pure function of the code.
inline constexpr std::uint64_t kAuditSeed = 20261122;

// [rows, cols] with entries std * N(0, 1), element (i, j) at index i * cols + j
// of the stream (kAuditSeed, tensor).
template <class S = double>
Mat<S> gaussian(long rows, long cols, double std, std::uint32_t tensor) {
  const random::Stream stream{kAuditSeed, tensor};
  Mat<S> m(rows, cols);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j)
      m(i, j) = S(std * stream.normal(random::element_index(i, j, cols)));
  return m;
}

// Least-squares slope of log(y) against log(x) (x, y > 0), and its R^2.
struct Fit {
  double slope = 0, intercept = 0, r2 = 0;
};
inline Fit loglog_fit(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size();
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mx += std::log(x[i]) / n;
    my += std::log(y[i]) / n;
  }
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = std::log(x[i]) - mx, dy = std::log(y[i]) - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  Fit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  return f;
}

// The verdict on a formula stated as exact, from the 50-digit analytic-vs-FD
// comparison (verify::check with fd-50 only): holds when the worst normwise
// error is below 1e-20 (the verifier's 50-digit tolerance: its own FD error
// is ~1e-35 times the conditioning), fails otherwise with the error measured,
// which is then the formula's true distance from the function.
inline Verdict exact_by_fd50(const verify::Problem& p, const verify::Inputs<double>& x,
                             const std::string& regime) {
  verify::Options o;
  o.fd_double = false;
  o.transpose = false;
  o.taylor = false;
  const verify::Report r = verify::check(p, x, o);
  const double err = r.worst_normwise_err("fd-50");
  std::vector<Measure> m{{"normwise_err_50", err}};
  if (err <= 1e-20) return holds("err " + sci(err), regime + ", 50-digit FD", m);
  return fails("err " + sci(err), regime + ": the formula is off by " + sci(err) + " normwise", m);
}

}  // namespace scaleref::audit
