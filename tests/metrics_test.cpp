// The diagnostic metrics (scaleref/metrics/): closed forms, the properties
// their definitions imply, invariances, and the errors bad input gets.
//
// Tolerances are stated beside each check in units of u = eps / 2, the unit
// roundoff of the precision the check runs in (1.1e-16 in double, 2.7e-51 in
// Real50, whose 168-bit significand has eps = 5.3e-51), with where they come
// from.
#include <gtest/gtest.h>
#include <omp.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <scaleref/eigen_dense.hpp>
#include <scaleref/metrics/all.hpp>
#include <scaleref/sampling.hpp>
#include <scaleref/verify/generators.hpp>
#include <vector>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using scaleref::test::error_of;
namespace mx = scaleref::metrics;
using M = Mat<double>;
using M50 = Mat<Real50>;

template <class S>
double unit_roundoff() {
  return static_cast<double>(std::numeric_limits<S>::epsilon()) / 2;
}
const double u = unit_roundoff<double>();

bool mentions(const std::string& message, const std::string& part) {
  return message.find(part) != std::string::npos;
}

// ---- builders --------------------------------------------------------------------

// An n x n orthogonal matrix: the Q of a Householder QR of a matrix filled from
// std::mt19937_64(seed) by the platform-stable uniform_open01 (sampling.hpp),
// computed in S, so it is orthogonal to about n u of S.
template <class S>
Mat<S> orthogonal(long n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> a(n, n);
  for (long i = 0; i < n; ++i)
    for (long j = 0; j < n; ++j) a(i, j) = S(2 * uniform_open01(gen) - 1);
  const Eigen::HouseholderQR<Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>> qr(a);
  const Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic> q = qr.householderQ();
  return Mat<S>(q);
}

// W = U_r diag(s) V_r^T, [m, n], with the r = s.size() <= min(m, n) singular
// values s and U, V orthogonal from `seed`.
template <class S>
Mat<S> with_singular_values(long m, long n, const std::vector<S>& s, std::uint64_t seed) {
  const long r = static_cast<long>(s.size());
  const Mat<S> U = orthogonal<S>(m, seed), V = orthogonal<S>(n, seed + 1);
  Mat<S> us = U.leftCols(r);
  for (long k = 0; k < r; ++k) us.col(k) *= s[static_cast<std::size_t>(k)];
  return matmul(us, Mat<S>(V.leftCols(r).transpose()));
}

// sum_i s_i^2 / max_i s_i^2 (eq. 7 written with the singular values).
template <class S>
S closed_form_stable_rank(const std::vector<S>& s) {
  S sum = S(0), top = S(0);
  for (const S& v : s) {
    sum += v * v;
    if (v > top) top = v;
  }
  return S(sum / (top * top));
}

// The relative error a computed stable rank of W = U_r diag(s) V_r^T [m, n]
// may carry, with sigma_2 <= ratio sigma_1 (or tied with it), in S: the
// construction's and the summations' part (construction_error) plus the power
// iteration's (iteration_error):
//  - forming W: each entry is a sum of r + 1 rounded products, off by
//    gamma_{r+1} sum_k |U_ik| s_k |V_jk| <= (r + 1) u s_1 (Cauchy-Schwarz over
//    unit rows), so ||dW||_F <= sqrt(mn) (r + 1) u s_1; by Weyl sigma_1 and
//    ||W||_F move by that relative to s_1 <= ||W||_F, and their squared ratio
//    by 4 times it;
//  - U, V orthogonal only to about 10 K u (Householder QR, K = max(m, n)):
//    a relative 2 x 10 K u on each sigma_i, 8 x 10 K u on the ratio of squares;
//  - summing ||W||_F^2 (mn terms) and the Rayleigh quotient (m + n terms);
//  - the power iteration: lambda is within ||r||^2 / gap <= tol^2 lambda /
//    (1 - ratio^2) of sigma_1^2 (Kato-Temple), tol = sqrt(eps) by default.
template <class S>
double construction_error(long m, long n, long r) {
  const double mn = static_cast<double>(m * n), k = static_cast<double>(std::max(m, n));
  return (4 * std::sqrt(mn) * static_cast<double>(r + 1) + 80 * k + mn +
          2 * static_cast<double>(m + n)) *
         unit_roundoff<S>();
}

template <class S>
double iteration_error(double ratio) {
  const double tol_squared = 2 * unit_roundoff<S>();  // the default tol is sqrt(eps)
  return tol_squared / (1 - ratio * ratio);
}

template <class S>
double stable_rank_bound(long m, long n, long r, double ratio) {
  return construction_error<S>(m, n, r) + iteration_error<S>(ratio);
}

// ---- mean and std (rescale Sec. 3.2) ------------------------------------------------

TEST(MeanStd, ClosedForms) {
  // 1..4: every step is exact or one correctly rounded operation that commutes
  // with the power-of-two prescaling, so the results equal the direct formulas
  // bit for bit: mean 2.5, population var 5/4, unbiased var 5/3.
  M w(2, 2);
  w << 1, 2, 3, 4;
  EXPECT_EQ(mx::mean_std(w).mean, 2.5);
  EXPECT_EQ(mx::mean_std(w).std, std::sqrt(1.25));  // population is the default
  EXPECT_EQ(mx::mean_std(w, mx::StdKind::unbiased).std, std::sqrt(5.0 / 3.0));
  // 1..1000 in a 25 x 40 matrix: mean 500.5, population var (n^2 - 1) / 12.
  // The sums of integers and of squared half-integers are exact below 2^53;
  // the one rounding is the final division and root: 2 u each way.
  M g(25, 40);
  for (long i = 0; i < g.size(); ++i) g.data()[i] = static_cast<double>(i + 1);
  const auto ms = mx::mean_std(g);
  EXPECT_EQ(ms.mean, 500.5);
  EXPECT_NEAR(ms.std, std::sqrt((1e6 - 1) / 12), 4 * u * ms.std);  // 2 u on each side
  // A constant matrix of a two-bit value sums exactly: mean exact, std exactly
  // 0, even at -3 2^996 = -2.0e300, whose square overflows.
  const double c = std::ldexp(-3.0, 996);
  EXPECT_EQ(mx::mean_std(M(M::Constant(3, 5, c))).std, 0.0);
  EXPECT_EQ(mx::mean_std(M(M::Constant(3, 5, c))).mean, c);
}

TEST(MeanStd, ClosedFormsIn50Digits) {
  M50 w(2, 3);
  w << 1, 2, 3, 4, 5, 6;  // mean 3.5, population var 35/12, unbiased var 3.5
  const auto p = mx::mean_std(w), b = mx::mean_std(w, mx::StdKind::unbiased);
  EXPECT_EQ(p.mean, Real50("3.5"));
  // Exact up to the final division and root: 2 u of Real50, about 1e-50.
  EXPECT_LT(static_cast<double>(abs(p.std - sqrt(Real50(35) / 12))), 1e-49);
  EXPECT_LT(static_cast<double>(abs(b.std - sqrt(Real50("3.5")))), 1e-49);
}

RC_GTEST_PROP(MeanStd, IsExactlyHomogeneousUnderPowersOfTwo, ()) {
  const long m = *verify::gen::extent(6), n = *verify::gen::extent(7);
  const M w = *verify::gen::matrix(m, n, verify::gen::decades(-8, 8, 2));
  const int k = *rc::gen::inRange(-800, 801);  // entries stay within 1e-290 .. 1e290
  for (auto kind : {mx::StdKind::population, mx::StdKind::unbiased}) {
    if (kind == mx::StdKind::unbiased && w.size() < 2) continue;
    const auto a = mx::mean_std(w, kind), b = mx::mean_std(M(std::ldexp(1.0, k) * w), kind);
    RC_ASSERT(b.mean == std::ldexp(a.mean, k));
    RC_ASSERT(b.std == std::ldexp(a.std, k));
  }
}

RC_GTEST_PROP(MeanStd, UnbiasedIsPopulationTimesSqrtOfNOverNMinusOne, ()) {
  const long m = *verify::gen::extent(6), n = *verify::gen::extent(7);
  RC_PRE(m * n >= 2);
  const M w = *verify::gen::matrix(m, n, verify::gen::decades(-100, 100, 3));
  const double N = static_cast<double>(m * n);
  const double p = mx::mean_std(w).std, b = mx::mean_std(w, mx::StdKind::unbiased).std;
  // Same sum of squares; two roundings each (division, root), three more for
  // sqrt(N / (N - 1)) and the product: 8 u.
  RC_ASSERT(std::abs(b - p * std::sqrt(N / (N - 1))) <= 8 * u * b);
}

TEST(MeanStd, BadInputIsRejected) {
  M one(1, 1);  // a single entry has a population std, 0, but no unbiased one
  one << 3;
  EXPECT_EQ(mx::mean_std(one).std, 0.0);
  EXPECT_TRUE(
      mentions(error_of([&] { mx::mean_std(one, mx::StdKind::unbiased); }), "at least 2 entries"));
  EXPECT_TRUE(mentions(error_of([] { mx::mean_std(M(0, 3)); }), "non-empty W, got W [0x3]"));
  M nan = M::Ones(2, 2);
  nan(1, 0) = std::nan("");
  EXPECT_TRUE(
      mentions(error_of([&] { mx::mean_std(nan); }), "metrics::mean_std: expected a finite W"));
}

// ---- stable rank and spectral norm (smallinit eq. 7) ---------------------------------

// Draws the singular values of a closed-form case: s_1 = 1, the others at most
// 0.9 (10^-u, u in [log10(1/0.9), 6]) or, a quarter of the time, s_2 tied with s_1.
std::vector<double> singular_values(long r, bool tie) {
  std::vector<double> s{1.0};
  const double lo = std::log10(1 / 0.9);
  for (long k = 1; k < r; ++k) {
    const int step = *rc::gen::inRange(0, 1 << 20);
    s.push_back(k == 1 && tie ? 1.0 : std::pow(10.0, -(lo + (6 - lo) * step / double(1 << 20))));
  }
  return s;
}

RC_GTEST_PROP(StableRank, MatchesTheClosedFormOfKnownSingularValues, ()) {
  const long m = *verify::gen::extent(10), n = *verify::gen::extent(10), r = std::min(m, n);
  const bool tie = *rc::gen::inRange(0, 4) == 0;
  std::vector<double> s = singular_values(r, tie);
  const double scale =
      std::pow(10.0, *rc::gen::inRange(-150, 151));  // squares would under/overflow
  for (double& v : s) v *= scale;
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  const M w = with_singular_values(m, n, s, seed);
  const double expected = closed_form_stable_rank(s);
  const auto sr = mx::stable_rank(w);
  const double bound = stable_rank_bound<double>(m, n, r, 0.9);
  RC_CLASSIFY(tie && r > 1, "sigma_1 = sigma_2");
  RC_CLASSIFY(r == 1, "rank 1");
  RC_LOG() << "m " << m << " n " << n << " seed " << seed << " scale " << scale << " expected "
           << expected << " got " << sr.value << " residual " << sr.spectral.residual
           << " iterations " << sr.spectral.iterations << '\n';
  RC_ASSERT(sr.spectral.converged);
  RC_ASSERT(std::abs(sr.value - expected) <= bound * expected);
  RC_ASSERT(std::abs(sr.spectral.value - s[0]) <= bound * s[0]);
  // ||W||_F^2 = sum s_i^2, by the same bound.
  RC_ASSERT(std::abs(sr.frobenius * sr.frobenius / (expected * s[0] * s[0]) - 1) <= bound);
}

RC_GTEST_PROP(StableRank, AgreesWithJacobiSVD, ()) {
  // Any matrix, values over 300 decades; the singular values from Eigen's
  // one-sided Jacobi SVD (backward stable: each sigma_i within about 10 K u
  // sigma_1, the role construction_error's orthogonality term plays) of
  // W 2^-e, which scales exactly. The iteration's term uses the case's own
  // sigma_2 / sigma_1; cases above 0.99 are skipped (they may need more than
  // the default 10000 iterations; ReportsNonConvergenceHonestly covers them).
  const long m = *verify::gen::extent(9), n = *verify::gen::extent(9);
  const M w = *verify::gen::matrix(m, n, verify::gen::decades(-150, 150, 1));
  const M ws = mx::scaled(w, mx::pow2_exponent(w));
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(ws);
  const Eigen::VectorXd sv = svd.singularValues();
  const double ratio = sv.size() == 1 ? 0.0 : sv(1) / sv(0);
  RC_PRE(ratio <= 0.99);
  RC_CLASSIFY(ratio > 0.9, "sigma_2 > 0.9 sigma_1");
  const double expected = sv.squaredNorm() / (sv(0) * sv(0));
  const auto sr = mx::stable_rank(w);
  const double bound = stable_rank_bound<double>(m, n, std::min(m, n), ratio);
  RC_ASSERT(sr.spectral.converged);
  RC_ASSERT(std::abs(sr.value - expected) <= bound * expected);
  RC_ASSERT(sr.value >= 1 - bound);
  RC_ASSERT(sr.value <= static_cast<double>(std::min(m, n)) * (1 + bound));
}

TEST(StableRank, RankOneMatrixGivesOne) {
  // W = a b^T rounds each entry once (u), so W is rank 1 up to a perturbation
  // of sqrt(mn) u relative: sigma_2 / sigma_1 <= 6e-15, adding (6e-15)^2 to the
  // stable rank; the power iteration lands on b's direction at once (residual
  // a few u, far below tol). Tolerance: 8 (mn + m + n) u for the sums.
  const long m = 7, n = 5;
  M a(m, 1), b(1, n);
  for (long i = 0; i < m; ++i) a(i, 0) = 0.3 + i;
  for (long j = 0; j < n; ++j) b(0, j) = (j % 2 ? -1 : 1) * (1.7 + 0.5 * j);
  const auto sr = mx::stable_rank(M(a * b));
  EXPECT_TRUE(sr.spectral.converged);
  EXPECT_LE(sr.spectral.iterations, 2);
  EXPECT_NEAR(sr.value, 1.0, 8 * (m * n + m + n) * u);
  EXPECT_NEAR(sr.spectral.value, a.norm() * b.norm(), 8 * (m + n) * u * a.norm() * b.norm());
}

TEST(StableRank, IdentityGivesN) {
  // I v = v: lambda = ||v||^2 = 1 within (n + 2) u after v is normalized, so the
  // residual |1 - lambda| is below tol at the first iteration and the stable
  // rank n / lambda is n within 4 (n + 2) u relative.
  for (long n : {1L, 2L, 7L, 64L}) {
    const auto sr = mx::stable_rank(M(M::Identity(n, n)));
    EXPECT_TRUE(sr.spectral.converged);
    EXPECT_EQ(sr.spectral.iterations, 1);
    EXPECT_NEAR(sr.value, static_cast<double>(n), 4 * (n + 2) * u * n) << "n = " << n;
  }
  // A rectangular [I_3; 0] has three unit singular values.
  EXPECT_NEAR(mx::stable_rank(M(M::Identity(5, 3))).value, 3.0, 4 * 5 * u * 3);
  EXPECT_NEAR(mx::stable_rank(M(M::Identity(3, 5))).value, 3.0, 4 * 5 * u * 3);
}

TEST(StableRank, ReportsNonConvergenceHonestly) {
  // sigma = (1, 0.999, 0.5, 0.25): the error in v shrinks by (0.999)^2 per
  // iteration, so meeting tol = 1.5e-8 takes thousands of iterations (8322).
  const std::vector<double> s{1.0, 0.999, 0.5, 0.25};
  const M w = with_singular_values(6, 4, s, 11);
  const double exact = closed_form_stable_rank(s);
  const double construction = construction_error<double>(6, 4, 4);
  for (int cap : {5, 1000}) {
    mx::PowerOptions<double> o;
    o.max_iterations = cap;
    const auto sr = mx::stable_rank(w, o);
    EXPECT_FALSE(sr.spectral.converged) << "cap " << cap;
    EXPECT_EQ(sr.spectral.iterations, cap);
    EXPECT_GT(sr.spectral.residual, std::sqrt(2 * u));  // the achieved tolerance, above tol
    // A Rayleigh quotient never exceeds lambda_max: the estimate of sigma_1 is
    // low and the stable rank high, never the other way (up to construction error).
    EXPECT_LE(sr.spectral.value, 1 + construction);
    EXPECT_GE(sr.value, exact * (1 - construction));
  }
  // Given enough iterations it converges, to within Kato-Temple's
  // tol^2 / (1 - 0.999^2) = 1.1e-13 relative, plus the construction's error.
  mx::PowerOptions<double> o;
  o.max_iterations = 100000;
  const auto sr = mx::stable_rank(w, o);
  EXPECT_TRUE(sr.spectral.converged);
  EXPECT_GT(sr.spectral.iterations, 1000);
  EXPECT_NEAR(sr.value, exact, stable_rank_bound<double>(6, 4, 4, 0.999) * exact);
}

TEST(StableRank, ClosedFormIn50Digits) {
  // U, V from a Householder QR in Real50, so everything is 50-digit:
  // stable_rank_bound in Real50's u is 2e-48 here, of which the iteration's
  // term tol^2 / (1 - (2/3)^2), tol = sqrt(eps), is 1e-50.
  const std::vector<Real50> s{Real50(3), Real50(2), Real50(1), Real50("0.5"), Real50("0.25")};
  const M50 w = with_singular_values<Real50>(7, 5, s, 5);
  const auto sr = mx::stable_rank(w);
  const Real50 exact = closed_form_stable_rank(s);  // (9 + 4 + 1 + 1/4 + 1/16) / 9
  EXPECT_TRUE(sr.spectral.converged);
  EXPECT_LT(static_cast<double>(abs(sr.value - exact) / exact),
            stable_rank_bound<Real50>(7, 5, 5, 2.0 / 3));
  EXPECT_LT(static_cast<double>(abs(sr.spectral.value - 3) / 3),
            stable_rank_bound<Real50>(7, 5, 5, 2.0 / 3));
  EXPECT_LT(sr.spectral.residual, sqrt(std::numeric_limits<Real50>::epsilon()));
}

RC_GTEST_PROP(StableRank, IsBitwiseInvariantToPowerOfTwoScaling, ()) {
  const long m = *verify::gen::extent(8), n = *verify::gen::extent(8);
  const M w = *verify::gen::matrix(m, n, verify::gen::decades(-8, 8, 1));
  const int k = *rc::gen::inRange(-850, 851);
  const auto a = mx::stable_rank(w), b = mx::stable_rank(M(std::ldexp(1.0, k) * w));
  RC_ASSERT(a.value == b.value);
  RC_ASSERT(std::ldexp(a.spectral.value, k) == b.spectral.value);
  RC_ASSERT(a.spectral.iterations == b.spectral.iterations);
}

TEST(StableRank, StartInTheNullSpaceRestartsFromTheLargestRow) {
  // W = [v_1, -v_0] with v the default start: W v = v_1 v_0 - v_0 v_1 = 0 exactly.
  const M v = mx::default_start<double>(2);
  M w(1, 2);
  w << v(0, 1), -v(0, 0);
  ASSERT_EQ((w * v.transpose())(0, 0), 0.0);
  const auto sr = mx::stable_rank(w);
  EXPECT_TRUE(sr.spectral.converged);
  EXPECT_NEAR(sr.spectral.value, v.norm(), 4 * u * v.norm());
  EXPECT_NEAR(sr.value, 1.0, 8 * u);
  // The same with a caller's start vector.
  mx::PowerOptions<double> o;
  o.start = M(1, 2);
  o.start << 1, 0;
  M e2(2, 2);
  e2 << 0, 1, 0, 2;
  EXPECT_NEAR(mx::spectral_norm(e2, o).value, std::sqrt(5.0), 4 * u * std::sqrt(5.0));
}

TEST(StableRank, IsThreadCountIndependent) {
  // 300 x 200 = 60000 entries: above kParallelEntries, so W v runs on threads
  // and W^T u sums 5 row blocks.
  const long m = 300, n = 200;
  ASSERT_GE(m * n, kParallelEntries);
  M w(m, n);
  for (long i = 0; i < w.size(); ++i) w.data()[i] = std::sin(0.37 * i) * (1 + i % 7);
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    return mx::stable_rank(w);
  };
  const int before = omp_get_max_threads();
  const auto a = run(1), b = run(1), c = run(3);
  omp_set_num_threads(before);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.value, c.value);
  EXPECT_EQ(a.spectral.residual, c.spectral.residual);
  EXPECT_EQ(a.spectral.iterations, c.spectral.iterations);
}

TEST(StableRank, ZeroMatrixAndBadInput) {
  const M zero = M::Zero(3, 4);
  const auto sn = mx::spectral_norm(zero);
  EXPECT_EQ(sn.value, 0.0);
  EXPECT_TRUE(sn.converged);
  EXPECT_TRUE(mentions(error_of([&] { mx::stable_rank(zero); }),
                       "metrics::stable_rank: expected a non-zero W, got an all-zero W [3x4]"));
  const M w = M::Identity(3, 3);
  mx::PowerOptions<double> o;
  o.tol = 0.0;
  EXPECT_TRUE(mentions(error_of([&] { mx::spectral_norm(w, o); }), "tol > 0"));
  o.tol = std::nullopt;
  o.max_iterations = 0;
  EXPECT_TRUE(mentions(error_of([&] { mx::spectral_norm(w, o); }), "max_iterations >= 1, got 0"));
  o.max_iterations = 10;
  o.start = M::Ones(1, 4);
  EXPECT_TRUE(mentions(error_of([&] { mx::stable_rank(w, o); }), "start [1x3]"));
  o.start = M::Zero(1, 3);
  EXPECT_TRUE(mentions(error_of([&] { mx::stable_rank(w, o); }), "non-zero start"));
  M inf = w;
  inf(2, 2) = HUGE_VAL;
  EXPECT_TRUE(mentions(error_of([&] { mx::stable_rank(inf); }), "finite W"));
  EXPECT_TRUE(mentions(error_of([] { mx::stable_rank(M(2, 0)); }), "non-empty W, got W [2x0]"));
}

// ---- row cosine similarity (smallinit eq. 6) ------------------------------------------

TEST(RowCosine, IdenticalOppositeAndOrthogonalRows) {
  M w(4, 3);
  w << 1, 2, 2,      // w
      3, 6, 6,       // 3 w: identical direction
      -0.5, -1, -1,  // -w / 2: opposite
      2, -2, 1;      // orthogonal to w
  const M c = mx::row_cosine_similarity(w);
  M expected(4, 4);
  expected << 1, 1, -1, 0, 1, 1, -1, 0, -1, -1, 1, 0, 0, 0, 0, 1;
  // Unit rows carry (n + 2) u each, their dot products n u more: 2 (2n + 4) u.
  EXPECT_LE((c - expected).cwiseAbs().maxCoeff(), 2 * (2 * 3 + 4) * u);
  EXPECT_TRUE(c == M(c.transpose()));  // exactly symmetric: products commute
}

RC_GTEST_PROP(RowCosine, IsScaleInvariantBoundedAndSignEquivariant, ()) {
  const long m = *verify::gen::extent(7), n = *verify::gen::extent(9);
  const M w = *verify::gen::matrix(m, n, verify::gen::decades(-100, 100, 3));
  const M c = mx::row_cosine_similarity(w);
  const double slack = (n + 2) * 2 * u;  // (n + 2) u per unit row, n u for the dot
  // |C_ij| <= 1 and C_ii = 1, up to rounding (nothing is clamped).
  RC_ASSERT((c.cwiseAbs().array() <= 1 + slack).all());
  RC_ASSERT((c.diagonal().array() - 1).abs().maxCoeff() <= slack);
  // Rows scaled by powers of two: bitwise the same (each row is prescaled by its own power of two).
  M w2 = w, wk = w;
  for (long i = 0; i < m; ++i) {
    w2.row(i) *= std::ldexp(1.0, *rc::gen::inRange(-300, 301));
    wk.row(i) *= std::pow(10.0, *rc::gen::inRange(-30, 31) / 10.0);
  }
  RC_ASSERT(mx::row_cosine_similarity(w2) == c);
  // Any positive scales: one more rounding per entry, 2 (n + 1) u more per unit row.
  RC_ASSERT((mx::row_cosine_similarity(wk) - c).cwiseAbs().maxCoeff() <= 4 * slack);
  // Negating a row negates its row and column of C (the diagonal stays): exactly.
  M wn = w;
  wn.row(0) *= -1;
  M cn = c;
  cn.row(0) *= -1;
  cn.col(0) *= -1;
  RC_ASSERT(mx::row_cosine_similarity(wn) == cn);
}

TEST(RowCosine, ClosedFormIn50DigitsAndZeroRows) {
  M50 w(3, 3);
  w << 1, 2, 2, 2, -2, 1, 1, 1, 0;
  const M50 c = mx::row_cosine_similarity(w);
  // <w_0, w_2> = 3, norms 3 and sqrt(2): 1 / sqrt(2). <w_1, w_2> = 0.
  EXPECT_LT(static_cast<double>(abs(c(0, 2) - 1 / sqrt(Real50(2)))), 1e-48);
  EXPECT_LT(static_cast<double>(abs(c(1, 2))), 1e-48);
  EXPECT_LT(static_cast<double>(abs(c(2, 2) - 1)), 1e-48);
  M z = M::Ones(3, 2);
  z.row(1).setZero();
  EXPECT_TRUE(mentions(error_of([&] { mx::row_cosine_similarity(z); }),
                       "metrics::row_cosine_similarity: row 1 of W is zero"));
}

// ---- attention sink score (smallinit eq. 5) --------------------------------------------

// The uniform causal attention of length T: A(i, j) = 1 / (i + 1) for j <= i.
template <class S>
Mat<S> uniform_causal(long t) {
  Mat<S> a = Mat<S>::Zero(t, t);
  for (long i = 0; i < t; ++i)
    for (long j = 0; j <= i; ++j) a(i, j) = S(1) / S(i + 1);
  return a;
}

TEST(SinkScore, HandBuiltAttention) {
  // All mass on the first token: 1. Every query on itself: only query 1's
  // forced A(1, 1) = 1 counts, 1 / T. Exact (sums of 0 and 1, a power-of-two T).
  M first = M::Zero(4, 4);
  first.col(0).setOnes();
  EXPECT_EQ(mx::sink_score(first), 1.0);
  EXPECT_EQ(mx::sink_score(M(M::Identity(4, 4))), 0.25);
  // A one-token sequence scores 1.
  EXPECT_EQ(mx::sink_score(M(M::Ones(1, 1))), 1.0);
  // (1 + 3/4 + 1/2) / 3 = 3/4, all exact.
  M a(3, 3);
  a << 1, 0, 0, 0.75, 0.25, 0, 0.5, 0.25, 0.25;
  EXPECT_EQ(mx::sink_score(a), 0.75);
  // Uniform causal attention: (1/T) sum_i 1/i = H_4 / 4 = 25/48; 1/3 rounds
  // (u), the sum adds 3 u and the division one more: 5 u.
  EXPECT_NEAR(mx::sink_score(uniform_causal<double>(4)), 25.0 / 48, 5 * u);
}

TEST(SinkScore, LayerScoreAveragesSequencesAndHeadsEqually) {
  // One (sequence, head) of T = 2 scoring 1 and one of T = 4 scoring 1/4: the
  // layer score is their plain mean 5/8 (pooling the 6 queries would give 1/2).
  M first = M::Zero(2, 2);
  first.col(0).setOnes();
  EXPECT_EQ(mx::layer_sink_score(std::vector<M>{first, M(M::Identity(4, 4))}), 0.625);
}

RC_GTEST_PROP(SinkScore, CausalSoftmaxScoresLieBetweenOneOverTAndOne, ()) {
  // A causal softmax of random logits (up to +-20). Query 1 sees only key 1,
  // so S >= A(1, 1) / T = 1 / T; every weight is at most 1, so S <= 1. Both
  // bounds hold exactly in floating point: the softmax's first row is exactly
  // [1], adding non-negative terms to it never rounds below 1, and a rounded
  // sum of T numbers <= 1 never exceeds T.
  const long t = *verify::gen::extent(12);
  M a = M::Zero(t, t);
  for (long i = 0; i < t; ++i) {
    double z = 0;
    for (long j = 0; j <= i; ++j) {
      a(i, j) = std::exp(*rc::gen::inRange(-200, 201) / 10.0);
      z += a(i, j);
    }
    for (long j = 0; j <= i; ++j) a(i, j) /= z;
  }
  const double s = mx::sink_score(a);
  RC_ASSERT(s >= 1.0 / static_cast<double>(t));
  RC_ASSERT(s <= 1.0);
  // Keys as rows (the transpose) are caught for T >= 2.
  if (t >= 2) RC_ASSERT(mentions(error_of([&] { mx::sink_score(M(a.transpose())); }), "causal"));
}

TEST(SinkScore, ClosedFormIn50Digits) {
  // H_7 / 7 = (363 / 140) / 7 = 363 / 980.
  const Real50 s = mx::sink_score(uniform_causal<Real50>(7));
  EXPECT_LT(static_cast<double>(abs(s - Real50(363) / 980)), 1e-49);
  const Real50 layer =
      mx::layer_sink_score(std::vector<M50>{uniform_causal<Real50>(7), uniform_causal<Real50>(1)});
  EXPECT_LT(static_cast<double>(abs(layer - (Real50(363) / 980 + 1) / 2)), 1e-49);
}

TEST(SinkScore, RejectsWhatIsNotCausalAttention) {
  const M a = uniform_causal<double>(3);
  M neg = a;
  neg(2, 0) = -0.1;
  neg(2, 1) += 0.1;
  EXPECT_TRUE(mentions(error_of([&] { mx::sink_score(neg); }), "weights >= 0, got A(2, 0) = -0.1"));
  M sum = a;
  sum(1, 1) = 0.6;
  EXPECT_TRUE(mentions(error_of([&] { mx::sink_score(sum); }),
                       "row 1 of A to be a probability distribution"));
  EXPECT_TRUE(mentions(error_of([&] { mx::sink_score(M(a.transpose())); }),
                       "expected a causal A (query i sees keys j <= i only), got A(0, 1)"));
  EXPECT_TRUE(mentions(error_of([] { mx::sink_score(M(M::Constant(2, 3, 1.0 / 3))); }),
                       "causal A [T x T]"));
  // Without the causal requirement a [T_q, T_k] row-stochastic matrix is fine.
  EXPECT_NEAR(mx::sink_score(M(M::Constant(2, 3, 1.0 / 3)), {1e-6, false}), 1.0 / 3, 2 * u);
  // Low-precision weights: rows off by 1e-3 need a stated tolerance.
  M bf = a;
  bf(2, 2) += 1e-3;
  EXPECT_TRUE(mentions(error_of([&] { mx::sink_score(bf); }), "row_sum_tol = 1e-06"));
  EXPECT_NO_THROW(mx::sink_score(bf, {1e-2, true}));
  EXPECT_TRUE(mentions(error_of([&] { mx::sink_score(a, {-1.0, true}); }), "row_sum_tol >= 0"));
  M nan = a;
  nan(0, 0) = std::nan("");
  EXPECT_TRUE(mentions(error_of([&] { mx::sink_score(nan); }), "finite A"));
  EXPECT_TRUE(mentions(error_of([] { mx::layer_sink_score(std::vector<M>{}); }), "empty list"));
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::layer_sink_score(std::vector<M>{a, sum});
                       }),
                       "row 1 of attention[1]"));
}

// ---- token-level gaps and difficulty bins (smallinit Sec. 4.7) ---------------------------

M column(std::initializer_list<double> v) {
  M c(static_cast<long>(v.size()), 1);
  long i = 0;
  for (double x : v) c(i++, 0) = x;
  return c;
}

TEST(TokenGaps, ClosedForms) {
  const M ps = column({0.5, 0.25, 1.0, 0.1}), pd = column({0.25, 0.5, 1.0, 0.3});
  const M dp = mx::prob_gap(ps, pd), ds = mx::sym_prob_gap(ps, pd), d = mx::difficulty(ps, pd);
  EXPECT_EQ(dp(0, 0), 0.25);
  EXPECT_EQ(dp(2, 0), 0.0);
  // 2 (1/4) / (3/4) = 2/3; 2 (-0.2) / 0.4 = -1: three roundings, 3 u relative.
  EXPECT_NEAR(ds(0, 0), 2.0 / 3, 3 * u);
  EXPECT_NEAR(ds(1, 0), -2.0 / 3, 3 * u);
  EXPECT_EQ(ds(2, 0), 0.0);
  // 0.1 and 0.3 are themselves rounded: their difference carries 2 u more, 8 u in all.
  EXPECT_NEAR(ds(3, 0), -1.0, 8 * u);
  // d = (ln 2 + ln 4) / 2 = 1.5 ln 2 and (ln 10 + ln(10/3)) / 2: two logs within
  // an ulp each, the sum, and the reference's own roundings: 6 u relative; 8 u
  // where the inputs 0.1 and 0.3 are rounded.
  EXPECT_NEAR(d(0, 0), 1.5 * std::log(2.0), 6 * u * d(0, 0));
  EXPECT_EQ(d(2, 0), 0.0);
  EXPECT_NEAR(d(3, 0), (std::log(10.0) + std::log(10.0 / 3)) / 2, 8 * u * d(3, 0));
}

// Probabilities in (0, 1]: continuous over 12 decades, with 1, 1/2, 1/4 often
// enough to make ties in d_t.
rc::Gen<M> probabilities(long n) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(static_cast<std::size_t>(n),
                                                           rc::gen::inRange(0, 1 << 20)),
                      [n](const std::vector<int>& k) {
                        M p(n, 1);
                        for (long t = 0; t < n; ++t) {
                          const int v = k[static_cast<std::size_t>(t)];
                          p(t, 0) = v % 4 == 0 ? std::ldexp(1.0, -(v / 4) % 3)
                                               : std::pow(10.0, -12.0 * v / (1 << 20));
                        }
                        return p;
                      });
}

RC_GTEST_PROP(TokenGaps, SwappingTheModelsNegatesTheGapsAndKeepsTheBins, ()) {
  // Delta p and Delta^sym p are antisymmetric in the two models and d_t is
  // symmetric, exactly in floating point (a - b = -(b - a) and a + b = b + a
  // round alike), so the bins hold the same tokens and their means (summed in
  // the same order) and medians change sign, bit for bit.
  const long n = *rc::gen::inRange(1L, 61L);
  const int bins = *rc::gen::inRange(1, static_cast<int>(std::min(n, 12L)) + 1);
  const M a = *probabilities(n), b = *probabilities(n);
  RC_ASSERT(mx::prob_gap(b, a) == M(-mx::prob_gap(a, b)));
  RC_ASSERT(mx::sym_prob_gap(b, a) == M(-mx::sym_prob_gap(a, b)));
  RC_ASSERT(mx::difficulty(b, a) == mx::difficulty(a, b));
  const auto ab = mx::difficulty_bins(a, b, bins), ba = mx::difficulty_bins(b, a, bins);
  RC_ASSERT(ab.size() == static_cast<std::size_t>(bins));
  for (std::size_t k = 0; k < ab.size(); ++k) {
    RC_ASSERT(ab[k].tokens == ba[k].tokens);
    RC_ASSERT(ab[k].d_min == ba[k].d_min && ab[k].d_max == ba[k].d_max);
    RC_ASSERT(ab[k].mean == -ba[k].mean);
    RC_ASSERT(ab[k].median == -ba[k].median);
  }
}

RC_GTEST_PROP(TokenGaps, BinsPartitionTheTokensByDifficulty, ()) {
  const long n = *rc::gen::inRange(1L, 61L);
  const int bins = *rc::gen::inRange(1, static_cast<int>(std::min(n, 12L)) + 1);
  const M a = *probabilities(n), b = *probabilities(n);
  const M d = mx::difficulty(a, b), g = mx::sym_prob_gap(a, b);
  const auto out = mx::difficulty_bins(a, b, bins);
  std::vector<Eigen::Index> all;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const auto& bin = out[k];
    // array_split sizes: the first n mod bins bins one larger.
    RC_ASSERT(static_cast<long>(bin.tokens.size()) ==
              n / bins + (static_cast<long>(k) < n % bins ? 1 : 0));
    for (std::size_t i = 1; i < bin.tokens.size(); ++i) {
      const Eigen::Index p = bin.tokens[i - 1], q = bin.tokens[i];
      RC_ASSERT(d(p, 0) < d(q, 0) || (d(p, 0) == d(q, 0) && p < q));  // sorted, ties by index
    }
    if (k > 0) RC_ASSERT(out[k - 1].d_max <= bin.d_min);
    // The mean and median lie within the bin's range of Delta^sym p.
    double lo = 2, hi = -2;
    for (auto t : bin.tokens) {
      lo = std::min(lo, g(t, 0));
      hi = std::max(hi, g(t, 0));
    }
    RC_ASSERT(bin.median >= lo && bin.median <= hi);
    // The mean's sum of |g| <= 2 terms rounds by at most (size + 1) u times 2.
    const double slack = 2 * static_cast<double>(bin.tokens.size() + 1) * u;
    RC_ASSERT(bin.mean >= lo - slack && bin.mean <= hi + slack);
    all.insert(all.end(), bin.tokens.begin(), bin.tokens.end());
  }
  std::sort(all.begin(), all.end());
  for (long t = 0; t < n; ++t) RC_ASSERT(all[static_cast<std::size_t>(t)] == t);
}

RC_GTEST_PROP(TokenGaps, SymmetricGapIsBoundedAndIsTwiceTanhOfHalfTheLossGap, ()) {
  const long n = *rc::gen::inRange(1L, 20L);
  const M a = *probabilities(n), b = *probabilities(n);
  const M dp = mx::prob_gap(a, b), ds = mx::sym_prob_gap(a, b);
  for (long t = 0; t < n; ++t) {
    const double x = ds(t, 0);
    RC_ASSERT(std::abs(x) <= 2.0);
    RC_ASSERT((x > 0) == (dp(t, 0) > 0) && (x < 0) == (dp(t, 0) < 0));  // the sign of Delta p
    // 2 (a - b) / (a + b) = 2 tanh((ln a - ln b) / 2). The left side carries
    // 3 u relative; the right, the logs' errors u (|ln a| + |ln b|) halved,
    // doubled, through tanh' <= 1, plus 3 u: together
    // 4 u |x| + 2 u (|ln a| + |ln b| + 2).
    const double la = std::log(a(t, 0)), lb = std::log(b(t, 0));
    const double tol = 4 * u * std::abs(x) + 2 * u * (std::abs(la) + std::abs(lb) + 2);
    RC_ASSERT(std::abs(x - 2 * std::tanh((la - lb) / 2)) <= tol);
  }
}

TEST(TokenGaps, TanhIdentityIn50Digits) {
  const M50 a = cast<Real50>(column({0.5, 1e-9, 0.999, 1.0})),
            b = cast<Real50>(column({0.25, 0.7, 0.998, 1e-30}));
  const M50 ds = mx::sym_prob_gap(a, b), d = mx::difficulty(a, b);
  for (long t = 0; t < a.rows(); ++t) {
    const Real50 expected = 2 * tanh((log(a(t, 0)) - log(b(t, 0))) / 2);
    EXPECT_LT(static_cast<double>(abs(ds(t, 0) - expected)), 1e-48) << "token " << t;
    EXPECT_LT(static_cast<double>(abs(d(t, 0) + log(a(t, 0) * b(t, 0)) / 2)), 1e-47);
  }
}

TEST(DifficultyBins, SortTieBreakSizesMeanAndMedian) {
  // Seven tokens (p_small, p_std), given in a scrambled order; difficulties
  // d = -ln(p_small p_std) / 2 and gaps g = Delta^sym p:
  //   index 3: (1, 0.5)       d = ln2 / 2   g = 2/3
  //   index 2: (1, 0.25)      d = ln2       g = +1.2   } an exact tie (swapped pair):
  //   index 4: (0.25, 1)      d = ln2       g = -1.2   } index 2 first
  //   index 0: (0.5, 0.125)   d = 2 ln2     g = +1.2   } another exact tie
  //   index 6: (0.125, 0.5)   d = 2 ln2     g = -1.2   }
  //   index 5: (0.5, 0.0625)  d = 2.5 ln2   g = 14/9
  //   index 1: (0.01, 0.01)   d = ln 100    g = 0
  // Three bins of 3, 2, 2 tokens.
  const M ps = column({0.5, 0.01, 1, 1, 0.25, 0.5, 0.125}),
          pd = column({0.125, 0.01, 0.25, 0.5, 1, 0.0625, 0.5});
  const auto bins = mx::difficulty_bins(ps, pd, 3);
  ASSERT_EQ(bins.size(), 3u);
  EXPECT_EQ(bins[0].tokens, (std::vector<Eigen::Index>{3, 2, 4}));
  EXPECT_EQ(bins[1].tokens, (std::vector<Eigen::Index>{0, 6}));
  EXPECT_EQ(bins[2].tokens, (std::vector<Eigen::Index>{5, 1}));
  // Bin 0: median of {-1.2, 2/3, 1.2} is 2/3 (computed 2 (1/2) / (3/2), 2 u);
  // mean ((2/3 + 1.2) - 1.2) / 3 = 2/9 within 4 u of the terms' size 1.2.
  EXPECT_NEAR(bins[0].median, 2.0 / 3, 2 * u);
  EXPECT_NEAR(bins[0].mean, 2.0 / 9, 4 * u * 1.2);
  // Bin 1: +-1.2 cancel exactly, mean and median 0.
  EXPECT_EQ(bins[1].mean, 0.0);
  EXPECT_EQ(bins[1].median, 0.0);
  // Bin 2: an even bin, the median is the mean of its two values: 7/9 both.
  EXPECT_NEAR(bins[2].mean, 7.0 / 9, 3 * u);
  EXPECT_EQ(bins[2].median, bins[2].mean);
  EXPECT_NEAR(bins[0].d_min, std::log(2.0) / 2, 3 * u);
  EXPECT_NEAR(bins[2].d_max, std::log(100.0), 3 * u * std::log(100.0));
}

TEST(DifficultyBins, TenBinsOfTwentyThreeTokens) {
  M p(23, 1);
  for (long t = 0; t < 23; ++t) p(t, 0) = 1.0 / (t + 1);
  const auto bins = mx::difficulty_bins(p, p);  // ten bins by default
  ASSERT_EQ(bins.size(), 10u);
  const std::vector<std::size_t> sizes{3, 3, 3, 2, 2, 2, 2, 2, 2, 2};
  for (std::size_t k = 0; k < 10; ++k) {
    EXPECT_EQ(bins[k].tokens.size(), sizes[k]) << "bin " << k;
    EXPECT_EQ(bins[k].mean, 0.0);  // identical models: every gap is 0
  }
  EXPECT_EQ(bins[0].tokens.front(), 0);  // p = 1: the easiest
  EXPECT_EQ(bins[9].tokens.back(), 22);
}

TEST(TokenGaps, BadInputIsRejected) {
  const M p = column({0.5, 0.25}), zero = column({0.5, 0.0});
  EXPECT_NO_THROW(mx::prob_gap(p, zero));  // a zero probability has a gap
  EXPECT_NO_THROW(mx::sym_prob_gap(p, zero));
  EXPECT_TRUE(
      mentions(error_of([&] { mx::sym_prob_gap(zero, zero); }), "token 1 has p_small = p_std = 0"));
  EXPECT_TRUE(mentions(error_of([&] { mx::difficulty(p, zero); }),
                       "metrics::difficulty: expected probabilities > 0, got p_std(1) = 0"));
  EXPECT_TRUE(mentions(error_of([&] { mx::difficulty_bins(zero, p); }), "p_small(1) = 0"));
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::prob_gap(p, column({0.5, 1.5}));
                       }),
                       "in [0, 1], got p_std(1) = 1.5"));
  EXPECT_TRUE(mentions(error_of([&] { mx::prob_gap(p, column({0.5, -0.1})); }), "p_std(1) = -0.1"));
  EXPECT_TRUE(mentions(error_of([&] { mx::prob_gap(M(p.transpose()), M(p.transpose())); }),
                       "[N x 1] column"));
  EXPECT_TRUE(mentions(error_of([&] { mx::prob_gap(p, column({0.5})); }),
                       "same shape, got p_small [2x1] and p_std [1x1]"));
  EXPECT_TRUE(mentions(error_of([&] { mx::difficulty_bins(p, p, 0); }), "bins >= 1, got 0"));
  EXPECT_TRUE(mentions(error_of([&] { mx::difficulty_bins(p, p, 3); }),
                       "at least as many tokens as bins, got N = 2 tokens for 3 bins"));
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::prob_gap(p, column({0.5, std::nan("")}));
                       }),
                       "finite p_std"));
}

// ---- maximum absolute activation (rescale Sec. 4.3) -------------------------------------

TEST(MaxAbsActivation, ValueAndWhereItOccurs) {
  M y(2, 3);
  y << 1, -7, 3, 7, 2, -0.5;
  const auto m = mx::max_abs_activation(y);
  EXPECT_EQ(m.value, 7.0);
  EXPECT_EQ(m.token, 0);  // the tie with (1, 0) goes to the first in row-major order
  EXPECT_EQ(m.feature, 1);
  M big = y;
  big(1, 2) = -3e300;
  const auto per_layer = mx::max_abs_activation(std::vector<M>{y, big});
  ASSERT_EQ(per_layer.size(), 2u);
  EXPECT_EQ(per_layer[1].value, 3e300);
  EXPECT_EQ(per_layer[1].token, 1);
  EXPECT_EQ(per_layer[1].feature, 2);
  M50 y50(1, 2);
  y50 << Real50("-1e-40"), Real50("2e-41");
  EXPECT_EQ(mx::max_abs_activation(y50).value, Real50("1e-40"));
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::max_abs_activation(std::vector<M>{y, M(0, 3)});
                       }),
                       "non-empty layers[1]"));
  M inf = y;
  inf(0, 0) = -HUGE_VAL;
  EXPECT_TRUE(mentions(error_of([&] { mx::max_abs_activation(inf); }), "finite Y"));
}

// ---- residual-flow ratio (smallinit Appendix A) ------------------------------------------

TEST(ResidualFlow, ClosedForms) {
  // Token 0: e = (3, 4, 0), h_L - e = (0, 0, 10): ratio 2. Token 1: e = (1, 0, 0),
  // h_L - e = (0, 0.5, 0): ratio 1/2. Mean of ratios 5/4; ratio of norms
  // sqrt(100.25 / 26). Each norm is a correctly rounded root of an exact sum
  // here, one division: 3 u relative.
  M e(2, 3), h(2, 3);
  e << 3, 4, 0, 1, 0, 0;
  h << 3, 4, 10, 1, 0.5, 0;
  const M r = mx::residual_flow_ratios(h, e);
  EXPECT_NEAR(r(0, 0), 2.0, 3 * u * 2);
  EXPECT_NEAR(r(1, 0), 0.5, 3 * u * 0.5);
  EXPECT_NEAR(mx::residual_flow_ratio(h, e), 1.25, 4 * u * 1.25);
  const double pooled = std::sqrt(100.25 / 26);
  EXPECT_NEAR(mx::residual_flow_ratio(h, e, mx::TokenReduction::ratio_of_norms), pooled,
              4 * u * pooled);
  // h_L = (1 + c) e gives |c|; h_L = e gives 0.
  EXPECT_NEAR(mx::residual_flow_ratio(M(1.5 * e), e), 0.5, 4 * u);
  EXPECT_EQ(mx::residual_flow_ratio(e, e), 0.0);
  // 50 digits: e = (1, 1), h_L - e = (1, 2): sqrt(5 / 2).
  M50 e50(1, 2), h50(1, 2);
  e50 << 1, 1;
  h50 << 2, 3;
  EXPECT_LT(static_cast<double>(abs(mx::residual_flow_ratio(h50, e50) - sqrt(Real50("2.5")))),
            1e-49);
}

RC_GTEST_PROP(ResidualFlow, ObeysTheTriangleInequalityAndScalesExactly, ()) {
  const long n = *verify::gen::extent(5), d = *verify::gen::extent(9);
  const M e = *verify::gen::matrix(n, d, verify::gen::decades(-100, 100, 1));
  const double k = std::pow(10.0, *rc::gen::inRange(-30, 31) / 10.0);
  const M h =
      e + k * *verify::gen::matrix(n, d, verify::gen::decades(0, 0, 1)) * e.cwiseAbs().maxCoeff();
  const M r = mx::residual_flow_ratios(h, e);
  for (long t = 0; t < n; ++t) {
    // | ||h_t|| / ||e_t|| - 1 | <= ratio_t <= ||h_t|| / ||e_t|| + 1, with each
    // side carrying (d + 4) u relative to the largest term.
    const double q = h.row(t).norm() / e.row(t).norm();
    const double slack = 4 * (d + 4) * u * (q + 1);
    RC_ASSERT(r(t, 0) >= std::abs(q - 1) - slack);
    RC_ASSERT(r(t, 0) <= q + 1 + slack);
  }
  // (h, e) -> 2^j (h, e) leaves every ratio unchanged, bit for bit.
  const int j = *rc::gen::inRange(-600, 601);
  RC_ASSERT(mx::residual_flow_ratios(M(std::ldexp(1.0, j) * h), M(std::ldexp(1.0, j) * e)) == r);
}

TEST(ResidualFlow, BadInputIsRejected) {
  M e = M::Ones(2, 3), h = M::Ones(2, 3);
  EXPECT_TRUE(mentions(error_of([&] { mx::residual_flow_ratio(h, M(M::Ones(3, 3))); }),
                       "h_L and e of the same shape, got h_L [2x3] and e [3x3]"));
  e.row(1).setZero();
  EXPECT_TRUE(mentions(error_of([&] { mx::residual_flow_ratio(h, e); }), "row 1 of e is zero"));
  // Pooled over tokens, a zero row is fine; an all-zero e is not.
  EXPECT_NEAR(mx::residual_flow_ratio(h, e, mx::TokenReduction::ratio_of_norms), 1.0, 4 * u);
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::residual_flow_ratio(h, M(M::Zero(2, 3)),
                                                 mx::TokenReduction::ratio_of_norms);
                       }),
                       "all-zero e"));
}

// ---- inter-layer feature similarity (sdd Fig. 9) ------------------------------------------

TEST(FeatureSimilarity, ClosedFormsOfBothReadings) {
  M a(2, 2), b(2, 2);
  a << 1, 0, 0, 100;
  b << 1, 0, 100, 0;
  // Per token: cos = 1 and 0, mean 1/2. Flattened: <(1,0,0,100), (1,0,100,0)>
  // / 10001 = 1/10001. Unit vectors carry (n + 2) u, the dot n u more.
  EXPECT_NEAR(mx::feature_similarity(a, b), 0.5, 8 * u);
  EXPECT_NEAR(mx::feature_similarity(a, b, mx::FeatureSimilarity::flattened), 1.0 / 10001, 16 * u);
  EXPECT_NEAR(mx::feature_similarity(a, a), 1.0, 8 * u);
  EXPECT_NEAR(mx::feature_similarity(a, M(-a)), -1.0, 8 * u);
  // 50 digits: rows (1, 1) and (1, 0) at 45 degrees: 1 / sqrt(2).
  M50 x(1, 2), y(1, 2);
  x << 1, 1;
  y << 1, 0;
  EXPECT_LT(static_cast<double>(abs(mx::feature_similarity(x, y) - 1 / sqrt(Real50(2)))), 1e-49);
}

RC_GTEST_PROP(FeatureSimilarity, PerTokenReadingIgnoresEachTokensScale, ()) {
  const long n = *verify::gen::extent(6), d = *verify::gen::extent(9);
  const M a = *verify::gen::matrix(n, d, verify::gen::decades(-50, 50, 2));
  const M b = *verify::gen::matrix(n, d, verify::gen::decades(-50, 50, 2));
  const double s = mx::feature_similarity(a, b);
  // Each cosine is within 2 (d + 2) u of [-1, 1], the mean adds n u.
  RC_ASSERT(std::abs(s) <= 1 + (2 * (d + 2) + n) * u);
  M a2 = a;
  for (long t = 0; t < n; ++t) a2.row(t) *= std::ldexp(1.0, *rc::gen::inRange(-200, 201));
  RC_ASSERT(mx::feature_similarity(a2, b) == s);  // powers of two: bitwise
  // The [L, L] matrix: exactly symmetric, entries equal to the pairwise calls.
  const std::vector<M> layers{a, b, a2};
  for (auto reading : {mx::FeatureSimilarity::per_token_mean, mx::FeatureSimilarity::flattened}) {
    const M sim = mx::layer_similarity_matrix(layers, reading);
    RC_ASSERT(sim == M(sim.transpose()));
    for (long i = 0; i < 3; ++i) {
      // Per token: 2 (d + 2) u per cosine, n u for the mean; flattened: 2 (nd + 2) u.
      RC_ASSERT(std::abs(sim(i, i) - 1) <= 2 * (n * d + n + 2) * u);
      for (long j = 0; j < 3; ++j)
        RC_ASSERT(sim(i, j) == mx::feature_similarity(layers[static_cast<std::size_t>(i)],
                                                      layers[static_cast<std::size_t>(j)],
                                                      reading));
    }
  }
}

TEST(FeatureSimilarity, BadInputIsRejected) {
  const M a = M::Ones(2, 3);
  M z = a;
  z.row(1).setZero();
  EXPECT_TRUE(mentions(error_of([&] { mx::feature_similarity(a, z); }), "row 1 of B is zero"));
  EXPECT_NO_THROW(mx::feature_similarity(a, z, mx::FeatureSimilarity::flattened));
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::layer_similarity_matrix(std::vector<M>{a, a, z});
                       }),
                       "row 1 of layers[2] is zero"));
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::layer_similarity_matrix(std::vector<M>{a, M(M::Ones(3, 3))});
                       }),
                       "layers[0] [2x3] and layers[1] [3x3]"));
  EXPECT_TRUE(
      mentions(error_of([] { mx::layer_similarity_matrix(std::vector<M>{}); }), "empty list"));
}

// ---- per-layer gradient norms (sdd Fig. 7) -------------------------------------------------

TEST(GradientNorms, ClosedFormsAtEveryScale) {
  M g0(1, 2), g1 = M::Zero(2, 2), g2(1, 2), g3(1, 2);
  g0 << 3, 4;
  g2 << 3e300, 4e300;    // squares overflow double
  g3 << 3e-300, 4e-300;  // squares underflow double
  const auto n = mx::gradient_norms(std::vector<M>{g0, g1, g2, g3});
  ASSERT_EQ(n.size(), 4u);
  EXPECT_EQ(n[0], 5.0);  // exact after exact power-of-two scaling
  EXPECT_EQ(n[1], 0.0);
  // The decimal inputs round (u), then two squares, a sum and a root: 4 u.
  EXPECT_NEAR(n[2], 5e300, 4 * u * 5e300);
  EXPECT_NEAR(n[3], 5e-300, 4 * u * 5e-300);
  M50 g50(2, 2);
  g50 << 1, 2, 3, 4;
  EXPECT_LT(static_cast<double>(abs(mx::gradient_norm(g50) - sqrt(Real50(30)))), 1e-49);
  EXPECT_TRUE(mentions(error_of([] { mx::gradient_norms(std::vector<M>{}); }), "empty list"));
  M nan = g0;
  nan(0, 1) = std::nan("");
  EXPECT_TRUE(mentions(error_of([&] {
                         mx::gradient_norms(std::vector<M>{g0, nan});
                       }),
                       "metrics::gradient_norms: expected a finite grads[1]"));
}

// ---- every remaining entry point in 50 digits ----------------------------------------------

TEST(Metrics50, EveryEntryPointRunsIn50Digits) {
  // Closed forms exact to a few u of Real50 (about 1e-50): 1e-48 allows 100 u.
  const Real50 tol("1e-48");
  M50 w(2, 2);
  w << 3, 0, 0, 4;
  const auto sn = mx::spectral_norm(w);
  EXPECT_TRUE(sn.converged);
  EXPECT_LT(abs(sn.value - 4), tol);
  M50 ps(4, 1), pd(4, 1);
  ps << Real50("0.5"), Real50("0.25"), 1, Real50("0.125");
  pd << Real50("0.25"), Real50("0.5"), 1, Real50("0.125");
  EXPECT_EQ(mx::prob_gap(ps, pd)(0, 0), Real50("0.25"));
  const auto bins = mx::difficulty_bins(ps, pd, 2);  // {token 2}, then the rest by d
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0].tokens,
            (std::vector<Eigen::Index>{2, 0}));  // d = 0, then 1.5 ln 2 (tie by index)
  EXPECT_EQ(bins[1].tokens, (std::vector<Eigen::Index>{1, 3}));
  EXPECT_LT(abs(bins[0].mean - Real50(1) / 3), tol);    // (0 + 2/3) / 2
  EXPECT_LT(abs(bins[1].median + Real50(1) / 3), tol);  // (-2/3 + 0) / 2
  M50 e(2, 2), h(2, 2);
  e << 1, 0, 0, 2;
  h << 1, 1, 0, 2;
  EXPECT_LT(abs(mx::residual_flow_ratios(h, e)(0, 0) - 1), tol);
  EXPECT_LT(
      abs(mx::residual_flow_ratio(h, e, mx::TokenReduction::ratio_of_norms) - 1 / sqrt(Real50(5))),
      tol);
  const std::vector<M50> layers{e, h};
  const M50 per_token = mx::layer_similarity_matrix(layers);
  const M50 flat = mx::layer_similarity_matrix(layers, mx::FeatureSimilarity::flattened);
  EXPECT_LT(abs(per_token(0, 1) - (1 / sqrt(Real50(2)) + 1) / 2), tol);
  EXPECT_LT(abs(flat(0, 1) - 5 / (sqrt(Real50(5)) * sqrt(Real50(6)))), tol);
  EXPECT_LT(abs(mx::gradient_norms(layers)[1] - sqrt(Real50(6))), tol);
  EXPECT_EQ(mx::max_abs_activation(layers)[1].value, Real50(2));
}

}  // namespace
