// Metrics of one weight matrix W [m, n]: its mean and standard deviation
// (rescale Sec. 3.2, "evolution of standard deviation", Fig. 1, 3, 5, 7,
// 15-64), its spectral norm and stable rank (smallinit eq. 7, Sec. 2.6 and
// 4.7), and the cosine similarity of its rows (smallinit eq. 6).
//
//   mean(W)       = (1 / mn) sum_ij W_ij
//   std(W)        = sqrt(sum_ij (W_ij - mean)^2 / mn)         population (default)
//                 = sqrt(sum_ij (W_ij - mean)^2 / (mn - 1))   unbiased
//   ||W||_2       = sigma_max(W) = sqrt(lambda_max(W^T W)), by power iteration
//   StableRank(W) = ||W||_F^2 / ||W||_2^2 = sum_i sigma_i^2 / sigma_max^2    (eq. 7)
//   C_ij(W)       = <w_i, w_j> / (||w_i||_2 ||w_j||_2)                       (eq. 6)
//
// Readings (the papers leave these open):
// - rescale never says which standard deviation it plots or rescales with
//   (eq. 19-21 write sigma(W^l)). The default here is the population std, the
//   spread of the matrix's own mn entries (a property of W, not an estimate of
//   a distribution it was drawn from), as in scaleref's rescaling code;
//   StdKind::unbiased divides by mn - 1, as torch.std and the authors' code
//   do. They differ by the factor sqrt(mn / (mn - 1)): 1 + 1.2e-7 for a
//   2048 x 2048 matrix.
// - smallinit eq. 7 sums sigma_i over i = 1..d without saying what d is; for
//   W in R^{m x n} it can only be min(m, n), the number of singular values.
// - eq. 6 is 0/0 for a zero row: row_cosine_similarity throws Error naming
//   the row (the paper's C_ij in [-1, 1] has no value to give it).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <scaleref/linalg.hpp>
#include <scaleref/metrics/common.hpp>
#include <scaleref/spec/rescale.hpp>

namespace scaleref::metrics {

// ---- mean and standard deviation ---------------------------------------------

// StdKind (population: divide by mn; unbiased: by mn - 1): scaleref/spec/rescale.hpp.

template <class S>
struct MeanStd {
  S mean;
  S std;
};

// Two passes over W in row-major order (the mean, then the squared
// deviations), on W 2^-e (common.hpp), so neither overflows. A W whose entries
// are all equal (min == max, tested exactly) has mean that value and std
// exactly 0, whatever rounding the sum would leave.
template <class S>
MeanStd<S> mean_std(const Mat<S>& w, StdKind kind = StdKind::population) {
  constexpr const char* where = "metrics::mean_std";
  using std::ldexp;
  using std::sqrt;
  check_matrix(where, "W", w);
  require(kind == StdKind::population || w.size() >= 2, where,
          "expected at least 2 entries for the unbiased std (it divides by mn - 1), got W ",
          shape_str(w));
  if (w.minCoeff() == w.maxCoeff()) return {w.data()[0], S(0)};
  const int e = pow2_exponent(w);
  const Mat<S> ws = scaled(w, e);
  const S count = S(static_cast<long>(w.size()));
  S sum = S(0);
  for (Eigen::Index i = 0; i < ws.size(); ++i) sum += ws.data()[i];
  const S mean = sum / count;
  S squares = S(0);
  for (Eigen::Index i = 0; i < ws.size(); ++i)
    squares += (ws.data()[i] - mean) * (ws.data()[i] - mean);
  const S divisor = kind == StdKind::unbiased ? S(count - S(1)) : count;
  return {S(ldexp(mean, e)), S(ldexp(S(sqrt(squares / divisor)), e))};
}

// ---- spectral norm by power iteration ------------------------------------------

// Options of the power iteration on A = W^T W.
//
// tol: the iteration stops at the first unit vector v whose relative residual
//   ||A v - lambda v||_2 / lambda, lambda = v^T A v = ||W v||^2, is <= tol.
//   Default sqrt(machine epsilon of S): 1.5e-8 in double, about 1e-25 in
//   Real50. For a symmetric A some eigenvalue mu has |mu - lambda| <= ||r||
//   (Weyl), and <= ||r||^2 / gap (Kato-Temple), gap = lambda - (the next
//   eigenvalue); so at convergence sigma_max^2 is known to about tol^2
//   lambda / gap: 2.2e-16 / (1 - 0.9^2) = 1.2e-15 relative in double when
//   sigma_2 <= 0.9 sigma_max.
// max_iterations: the cap on products with A; reaching it without meeting tol
//   is reported (converged = false), not thrown. The error in v shrinks by
//   (sigma_2 / sigma_1)^2 per iteration, and random matrices have close top
//   singular values: n x n Gaussian matrices (the papers' weights at
//   initialization) took 2851 (n = 512), 8064 (n = 1024) and 1527 (n = 2048)
//   iterations to meet the default tol, hence the default cap of 10000 (about
//   2 s for a 1024 x 1024 matrix on 2 cores). Short of convergence, lambda is
//   still a lower bound on sigma_max^2 (those runs at 1000 iterations were
//   within 1.3e-6 relative of it).
// start: the first v (1 x n, not zero), or empty for the default: entries
//   frac((j + 1) phi) - 1/2, phi the golden ratio, computed in double: a fixed
//   vector with no zero entry and no sign pattern, the same in every precision.
//   No hidden random state. If W v = 0 for the start (v in W's null space), the
//   iteration restarts once from W's row of largest norm w_k, which has
//   ||W w_k|| >= ||w_k||^2 > 0.
template <class S>
struct PowerOptions {
  std::optional<double> tol;
  int max_iterations = 10000;
  Mat<S> start;
};

template <class S>
struct SpectralNorm {
  S value;         // sqrt(lambda) for the last v: sigma_max once converged
  S residual;      // ||A v - lambda v|| / lambda for that v: the achieved tolerance
  int iterations;  // products with A = W^T W
  bool converged;  // residual <= tol within max_iterations
};

// The default start vector (see PowerOptions).
template <class S>
Mat<S> default_start(Eigen::Index n) {
  const double phi = (1 + std::sqrt(5.0)) / 2;
  Mat<S> v(1, n);
  for (Eigen::Index j = 0; j < n; ++j)
    v(0, j) = S(std::fmod(static_cast<double>(j + 1) * phi, 1.0) - 0.5);
  return v;
}

// ||W||_2 by power iteration on W^T W, run on W 2^-e (common.hpp). Each step:
//   u = W v,  lambda = ||u||^2,  z = W^T u,  r = z - lambda v,  v <- z / ||z||.
// W v is computed a row at a time, W^T u as a fixed-order sum of rows
// (rows.hpp): bitwise the same for any thread count. In exact arithmetic the
// Rayleigh quotient never exceeds lambda_max, so `value` never exceeds
// sigma_max, converged or not. A zero W gives 0 with 0 iterations.
template <class S>
SpectralNorm<S> spectral_norm(const Mat<S>& w, const PowerOptions<S>& o = {}) {
  constexpr const char* where = "metrics::spectral_norm";
  using std::ldexp;
  using std::sqrt;
  check_matrix(where, "W", w);
  const double tol =
      o.tol ? *o.tol : std::sqrt(static_cast<double>(std::numeric_limits<S>::epsilon()));
  require(std::isfinite(tol) && tol > 0, where, "expected tol > 0 and finite, got ", tol);
  require(o.max_iterations >= 1, where, "expected max_iterations >= 1, got ", o.max_iterations);
  const Eigen::Index m = w.rows(), n = w.cols();
  if (o.start.size()) {
    require(o.start.rows() == 1 && o.start.cols() == n, where, "expected start [1x", n,
            "] to match W's n = ", n, ", got start ", shape_str(o.start));
    require(all_finite(o.start) && o.start.cwiseAbs().maxCoeff() > S(0), where,
            "expected a finite, non-zero start vector");
  }
  const int e = pow2_exponent(w);
  if (w.cwiseAbs().maxCoeff() == S(0)) return {S(0), S(0), 0, true};
  const Mat<S> ws = scaled(w, e);

  Mat<S> v = o.start.size() ? o.start : default_start<S>(n);
  v /= frobenius_norm(v);
  Mat<S> u(m, 1);
  auto apply_w = [&] { for_each_row(m, n, [&](Eigen::Index i) { u(i, 0) = dot(ws.row(i), v); }); };
  apply_w();
  if (sum_of_squares(u) == S(0)) {  // v in W's null space: restart from W's largest row
    Eigen::Index k = 0;
    S best = S(-1);
    for (Eigen::Index i = 0; i < m; ++i) {
      const S s = sum_of_squares(ws.row(i));
      if (s > best) {
        best = s;
        k = i;
      }
    }
    v = ws.row(k) / S(sqrt(best));
    apply_w();
  }
  const S tol_s = S(tol);
  S lambda = S(0), residual = S(0);
  for (int it = 1; it <= o.max_iterations; ++it) {
    if (it > 1) apply_w();
    lambda = sum_of_squares(u);
    const Mat<S> z =
        sum_rows<S>(m, n, [&](Eigen::Index i, auto& acc) { acc += u(i, 0) * ws.row(i); });
    residual = S(frobenius_norm(Mat<S>(z - lambda * v)) / lambda);
    if (residual <= tol_s) return {S(ldexp(S(sqrt(lambda)), e)), residual, it, true};
    v = z / frobenius_norm(z);
  }
  return {S(ldexp(S(sqrt(lambda)), e)), residual, o.max_iterations, false};
}

// ---- stable rank (smallinit eq. 7) ----------------------------------------------

template <class S>
struct StableRank {
  S value;                   // ||W||_F^2 / ||W||_2^2
  S frobenius;               // ||W||_F
  SpectralNorm<S> spectral;  // ||W||_2 with its achieved tolerance; check spectral.converged
};

// ||W||_F^2 / lambda, with lambda the power iteration's Rayleigh quotient (both
// on W 2^-e, so the ratio is bitwise invariant to W -> 2^k W). Since lambda <=
// sigma_max^2, an unconverged estimate is an upper bound on the stable rank;
// converged, its relative error is about that of lambda (see PowerOptions).
// The stable rank itself lies in [1, min(m, n)]. A zero W has none: Error.
template <class S>
StableRank<S> stable_rank(const Mat<S>& w, const PowerOptions<S>& o = {}) {
  constexpr const char* where = "metrics::stable_rank";
  using std::ldexp;
  using std::sqrt;
  check_matrix(where, "W", w);
  require(w.cwiseAbs().maxCoeff() > S(0), where, "expected a non-zero W, got an all-zero W ",
          shape_str(w), " (0/0)");
  const int e = pow2_exponent(w);
  const Mat<S> ws = scaled(w, e);
  const SpectralNorm<S> sn = spectral_norm(ws, o);  // ws's largest entry is in [1/2, 1): no rescale
  const S f2 = sum_of_squares(ws);
  return {S(f2 / (sn.value * sn.value)),
          S(ldexp(S(sqrt(f2)), e)),
          {S(ldexp(sn.value, e)), sn.residual, sn.iterations, sn.converged}};
}

// ---- row cosine similarity (smallinit eq. 6) ------------------------------------

// C = W_hat W_hat^T with W_hat's rows w_i / ||w_i||_2 (deterministic matmul):
// an [m, m] symmetric matrix. Nothing is clamped: in floating point C_ii and
// |C_ij| may exceed 1 by a few ulps (at most about (n + 2) eps). A zero row:
// Error naming it.
template <class S>
Mat<S> row_cosine_similarity(const Mat<S>& w) {
  constexpr const char* where = "metrics::row_cosine_similarity";
  check_matrix(where, "W", w);
  const Mat<S> u = unit_rows(where, "W", w);
  return matmul(u, Mat<S>(u.transpose()));
}

}  // namespace scaleref::metrics
