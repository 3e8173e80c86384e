// LayerNorm (seednorm eq. 1; rescale eq. 2-4): gradients three ways, invariants, errors.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <scaleref/lm/rowops.hpp>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;
namespace ln = scaleref::norm::layernorm;

// A row with every entry equal has no variance: with eps = 0 that is an error
// (tested below), so the properties draw around it.
template <class S>
bool has_constant_row(const Mat<S>& x) {
  for (long i = 0; i < x.rows(); ++i)
    if ((x.row(i).array() == x(i, 0)).all()) return true;
  return false;
}

// dx_i = r_i (g_i - mean(g_i) - x_hat_i mean(g_i x_hat_i)), g = dy (.) gamma, with
// x - mean(x) losing |x| r of the digits: terms times (1 + max|x_i| r_i).
std::vector<double> term_scale(const Inputs<double>& in, const M& dy, const ln::Config& c) {
  ln::Cache<double> k;
  const ln::Params<double> p{in[1], c.bias ? in[2] : M()};
  ln::forward(p, c, in[0], &k);
  double sx = 0, centring = 1;
  for (long i = 0; i < dy.rows(); ++i) {
    const M g = dy.row(i).cwiseProduct(in[1]).cwiseAbs();
    const M xh = k.x_hat.row(i).cwiseAbs();
    const double lost = 1 + in[0].row(i).cwiseAbs().maxCoeff() * k.r(i, 0);
    centring = std::max(centring, lost);
    sx = std::max(
        sx,
        k.r(i, 0) * (g.maxCoeff() + g.mean() + xh.maxCoeff() * g.cwiseProduct(xh).mean()) * lost);
  }
  std::vector<double> s{sx, centring * column_abs_sum(dy.cwiseProduct(k.x_hat))};
  if (c.bias) s.push_back(column_abs_sum(dy));
  return s;
}

RC_GTEST_PROP(LayerNorm, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const long n = *verify::gen::extent(4), d = *verify::gen::extent(9);
  const ln::Config c{*eps(), *rc::gen::arbitrary<bool>()};
  M x = *input(n, d);
  RC_PRE(c.eps > 0 || !has_constant_row(x));
  // A mean far from 0 makes x - mean(x) cancel: offsets up to 1e3 times the spread.
  const M offset = *verify::gen::matrix(n, 1, verify::gen::decades(-2, 2, 1));
  x.colwise() += offset.col(0) * rms_of(x);
  Inputs<double> in{x, *parameter(d)};
  if (c.bias) in.push_back(*parameter(d));
  const M dy = *output_gradient(n, d);
  RC_CLASSIFY(c.bias, "with bias");
  RC_CLASSIFY(d <= 2, "D <= 2");
  check_three_ways(autodiff::analytic_layernorm(c), autodiff::tape_layernorm_problem(c), in, dy,
                   term_scale(in, dy, c));
}

// Shifting a row by a constant changes nothing (mean removal); scaling it by
// k > 0 changes nothing at eps = 0. Checked in 50 digits, where both are exact
// up to the last digits.
RC_GTEST_PROP(LayerNorm, ShiftAndScaleInvariantAtEpsZero, ()) {
  const long n = *verify::gen::extent(4), d = *rc::gen::inRange<long>(2, 10);
  const Mat<Real50> x = cast<Real50>(*input(n, d));
  RC_PRE(!has_constant_row(x));
  const ln::Params<Real50> p{cast<Real50>(*parameter(d)), cast<Real50>(*parameter(d))};
  const Real50 k = Real50(*rc::gen::inRange(1, 1000)) / 7;
  const Real50 shift = Real50(*rc::gen::inRange(-1000, 1000)) / 3 * x.cwiseAbs().maxCoeff();
  const Mat<Real50> y = ln::forward(p, {0.0, true}, x);
  const Mat<Real50> y_moved = ln::forward(p, {0.0, true}, Mat<Real50>((k * x).array() + shift));
  // Relative to the output's scale |gamma| + |beta| (y itself can be 0).
  const Real50 scale = p.gamma.cwiseAbs().maxCoeff() + p.beta.cwiseAbs().maxCoeff();
  RC_ASSERT(static_cast<double>((y - y_moved).cwiseAbs().maxCoeff() / scale) < 1e-40);
}

TEST(LayerNorm, WithoutBiasTheBiasIsIgnoredAndHasNoGradient) {
  M x(2, 3);
  x << 1, 2, 4, -1, 0.5, 3;
  const ln::Config c{1e-5, false};
  ln::Cache<double> k;
  const M y = ln::forward(ln::init<double>(3, c), c, x, &k);
  EXPECT_NEAR(y.row(0).mean(), 0.0, 1e-15);
  const auto g = ln::backward(ln::init<double>(3, c), c, k, M(M::Ones(2, 3)));
  EXPECT_EQ(g.dbeta.size(), 0);
  EXPECT_EQ(g.dgamma.cols(), 3);
}

// A constant row of 0.3 (or 0.1, 0.7) sums to a mean an ulp off, so its computed
// variance is about 1e-33 rather than 0; with eps = 0 that normalized rounding
// noise to +-1. Such a row, and one whose entries are an ulp apart, has no
// spread (metrics::has_spread) and is refused at eps = 0; with eps > 0 it is
// normalized to about 0, as its exact value is.
TEST(LayerNorm, AConstantOrRoundingLevelRowIsRefusedAtEpsZero) {
  for (const double c : {0.3, 0.1, 0.7, -0.3, 1.0, 1e-300})
    for (const long d : {3L, 4L, 7L, 64L, 1000L}) {
      M x = M::Ones(2, d) * c;
      x.row(1).setLinSpaced(d, -1.0, 1.0);
      const ln::Params<double> p = ln::init<double>(d);
      try {
        ln::forward(p, {0.0, true}, x);
        ADD_FAILURE() << "a constant row of " << c << " (D = " << d << ") was normalized";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("row 0"), std::string::npos) << e.what();
      }
      M near = x;
      near(0, 0) = std::nextafter(c, HUGE_VAL);
      EXPECT_THROW(ln::forward(p, {0.0, true}, near), Error) << c << ", D = " << d;
      const M y = ln::forward(p, {1e-5, true}, x);
      EXPECT_LT(y.row(0).cwiseAbs().maxCoeff(), 1e-9) << c << ", D = " << d;
    }
}

// The tiny LM's own centring (lm/rowops.hpp) follows the same rule.
TEST(LayerNorm, TheLmsCentringRefusesAConstantRowAtEpsZero) {
  M z = M::Constant(2, 16, 0.3), z_hat, r;
  z.row(1).setLinSpaced(16, -1.0, 1.0);
  EXPECT_NE(error_of([&] { lm::detail::center_rows("lm", z, 0.0, z_hat, r); }).find("row 0"),
            std::string::npos);
  lm::detail::center_rows("lm", z, 1e-5, z_hat, r);
  EXPECT_LT(z_hat.row(0).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(LayerNorm, BadInputIsRejectedWithAClearError) {
  const ln::Params<double> p = ln::init<double>(4);
  M constant_row = M::Ones(2, 4);
  constant_row.row(0) << 1, 2, 3, 4;
  try {
    ln::forward(p, {0.0, true}, constant_row);
    ADD_FAILURE() << "a constant row with eps = 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ln::forward(p, {-1.0, true}, constant_row), Error);
  EXPECT_THROW(ln::forward(ln::Params<double>{p.gamma, M::Zero(1, 3)}, {}, constant_row), Error);
  EXPECT_THROW(ln::forward(p, {}, M(M::Ones(2, 5))), Error);
  EXPECT_THROW(ln::forward(p, {}, M(0, 4)), Error);
}

}  // namespace
