// RMSNorm (seednorm eq. 2): gradients three ways, scale invariance, errors.
#include <gtest/gtest.h>
#include <omp.h>
#include <rapidcheck/gtest.h>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;
namespace rms = scaleref::norm::rmsnorm;

// The size of the terms dx and dgamma are summed from (norm_support.hpp):
// dx_i = r_i (g_i - x_hat_i mean(g_i x_hat_i)) with g = dy (.) gamma.
std::vector<double> term_scale(const Inputs<double>& in, const M& dy, const rms::Config& c) {
  rms::Cache<double> k;
  rms::forward<double>({in[1]}, c, in[0], &k);
  double sx = 0;
  for (long i = 0; i < dy.rows(); ++i) {
    const M g = dy.row(i).cwiseProduct(in[1]).cwiseAbs();
    const double proj = g.cwiseProduct(k.x_hat.row(i).cwiseAbs()).mean();
    sx = std::max(sx, k.r(i, 0) * (g.maxCoeff() + k.x_hat.row(i).cwiseAbs().maxCoeff() * proj));
  }
  return {sx, column_abs_sum(dy.cwiseProduct(k.x_hat))};
}

RC_GTEST_PROP(RMSNorm, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const long n = *verify::gen::extent(4), d = *verify::gen::extent(9);
  const rms::Config c{*eps()};
  const Inputs<double> in{*input(n, d), *parameter(d)};
  const M dy = *output_gradient(n, d);
  RC_CLASSIFY(d == 1, "D = 1");
  RC_CLASSIFY(c.eps == 0, "eps = 0");
  RC_CLASSIFY(c.eps > 100 * rms_of(in[0]) * rms_of(in[0]), "eps dominates mean(x^2)");
  check_three_ways(autodiff::analytic_rmsnorm(c), autodiff::tape_rmsnorm_problem(c), in, dy,
                   term_scale(in, dy, c));
}

// seednorm Sec. 3 / eq. 5's premise: x / RMS(x) is invariant to x -> k x, k > 0, when eps = 0.
RC_GTEST_PROP(RMSNorm, ScaleInvariantAtEpsZero, ()) {
  const long n = *verify::gen::extent(4), d = *verify::gen::extent(9);
  const M x = *input(n, d);
  const rms::Params<double> p{*parameter(d)};
  const double k = std::pow(10.0, *rc::gen::inRange(-8, 9));
  const M y = rms::forward(p, {0.0}, x);
  const M yk = rms::forward(p, {0.0}, M(k * x));
  // k x rounds once per entry, the mean square and root a few ulps more: 8 ulps of |y|.
  RC_ASSERT(((yk - y).array().abs() <= 8 * 2.2e-16 * y.array().abs()).all());
  // A power of two scales exactly, so the output is bitwise the same.
  const M y2 = rms::forward(p, {0.0}, M(std::ldexp(1.0, *rc::gen::inRange(-60, 61)) * x));
  RC_ASSERT(y2 == y);
}

TEST(RMSNorm, ScaleInvarianceIsExactIn50Digits) {
  M x(2, 3);
  x << 0.3, -1.7, 2.9, 1e-6, 4e-6, -3e-6;
  const Mat<Real50> x50 = cast<Real50>(x);
  const rms::Params<Real50> p{Mat<Real50>::Constant(1, 3, Real50("1.5"))};
  const Mat<Real50> y = rms::forward(p, {0.0}, x50);
  const Mat<Real50> yk = rms::forward(p, {0.0}, Mat<Real50>(Real50("12345.678") * x50));
  EXPECT_LT(static_cast<double>((y - yk).cwiseAbs().maxCoeff()), 1e-45);
}

TEST(RMSNorm, EpsSaturatesTinyInputs) {
  // With mean(x^2) << eps, RMS(x) ~ sqrt(eps): the output shrinks with x (smallinit Sec. 2.2).
  M x(1, 4);
  x << 1e-5, -2e-5, 3e-5, -4e-5;
  const M y = rms::forward(rms::init<double>(4), {1e-2}, x);
  EXPECT_NEAR(y(0, 3), -4e-5 / std::sqrt(1e-2 + 7.5e-10), 1e-18);
}

// At eps = 0, x / RMS(x) does not depend on the scale of x; a power of two
// scales exactly, so y(2^k x) must equal y(x) bit for bit for every k whose
// 2^k x is a normal double. Squared directly, a row near 1e-160 fell into the
// subnormals (most digits lost) and a row near 1e200 overflowed (RMS = inf, y =
// 0); both were answered without an error. The gradient scales by exactly 2^-k.
TEST(RMSNorm, IsBitwiseScaleInvariantAtEpsZeroAcrossTheWholeDoubleRange) {
  M x(3, 7), dy(3, 7);
  for (long i = 0; i < x.size(); ++i) {
    x.data()[i] = std::sin(0.7 * i + 0.1) * (1 + i % 3);
    dy.data()[i] = std::cos(0.3 * i);
  }
  const rms::Params<double> p{M::Constant(1, 7, 0.9)};
  rms::Cache<double> k0;
  const M y0 = rms::forward(p, {0.0}, x, &k0);
  const auto g0 = rms::backward(p, {0.0}, k0, dy);
  for (const int k : {-1000, -700, -530, -200, 200, 500, 700, 1020}) {
    const M xs = x * std::ldexp(1.0, k);
    rms::Cache<double> ks;
    const M y = rms::forward(p, {0.0}, xs, &ks);
    EXPECT_TRUE(y == y0) << "k = " << k << ": max |y - y0| " << (y - y0).cwiseAbs().maxCoeff();
    const auto g = rms::backward(p, {0.0}, ks, dy);
    if (k <= 700) {  // beyond, 2^-k dx falls into the subnormals, where scaling rounds
      EXPECT_TRUE(g.dx == g0.dx * std::ldexp(1.0, -k)) << "k = " << k;
    }
    EXPECT_TRUE(g.dgamma == g0.dgamma) << "k = " << k;
  }
}

TEST(RMSNorm, BackwardIsBitwiseRepeatableAndThreadCountIndependent) {
  const long d = 33,
             n = kParallelEntries / d + 70;  // above the threshold, rows not a multiple of 64
  ASSERT_GE(n * d, kParallelEntries);
  M x(n, d), dy(n, d);
  for (long i = 0; i < x.size(); ++i) {
    x.data()[i] = std::sin(0.37 * i) * (1 + i % 7);
    dy.data()[i] = std::cos(0.11 * i);
  }
  const rms::Params<double> p{M::Constant(1, d, 0.8)};
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    rms::Cache<double> k;
    rms::forward(p, {1e-6}, x, &k);
    return rms::backward(p, {1e-6}, k, dy);
  };
  const int before = omp_get_max_threads();
  const auto a = run(1), b = run(1), c = run(3);
  omp_set_num_threads(before);
  EXPECT_TRUE(a.dx == b.dx && a.dgamma == b.dgamma);
  EXPECT_TRUE(a.dx == c.dx && a.dgamma == c.dgamma);
}

TEST(RMSNorm, BadInputIsRejectedWithAClearError) {
  const M x = M::Ones(2, 4);
  const rms::Params<double> p = rms::init<double>(4);
  EXPECT_NE(error_of([&] { rms::forward(p, {-1e-6}, x); }).find("eps >= 0"), std::string::npos);
  EXPECT_NE(error_of([&] { rms::forward(rms::init<double>(3), {}, x); }).find("gamma [1x4]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { rms::forward(p, {}, M(0, 4)); }).find("non-empty"), std::string::npos);
  M zero_row = x;
  zero_row.row(1).setZero();
  EXPECT_NE(error_of([&] { rms::forward(p, {0.0}, zero_row); }).find("row 1"), std::string::npos);
  EXPECT_NO_THROW(rms::forward(p, {1e-6}, zero_row));  // eps > 0 handles a zero row
  rms::Params<double> nan = p;
  nan.gamma(0, 2) = std::nan("");
  EXPECT_NE(error_of([&] { rms::forward(nan, {}, x); }).find("finite gamma"), std::string::npos);
  M inf = x;
  inf(0, 0) = HUGE_VAL;
  EXPECT_NE(error_of([&] { rms::forward(p, {}, inf); }).find("finite input"), std::string::npos);
  rms::Cache<double> k;
  rms::forward(p, {}, x, &k);
  EXPECT_NE(error_of([&] { rms::backward(p, {}, k, M(M::Ones(2, 3))); }).find("dy [2x4]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              rms::backward(p, {}, rms::Cache<double>{}, M(M::Ones(2, 4)));
            }).find("cache is empty"),
            std::string::npos);
}

}  // namespace
