// DyT (seednorm eq. 3): gradients three ways, its defining properties, errors.
#include <gtest/gtest.h>
#include <omp.h>
#include <rapidcheck/gtest.h>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;
namespace dyt = scaleref::norm::dyt;

// dx = alpha dy gamma (1 - t^2): terms alpha dy gamma (1 + t^2); sums over rows for the rest.
std::vector<double> term_scale(const Inputs<double>& in, const M& dy, const dyt::Config& c) {
  dyt::Cache<double> k;
  dyt::forward<double>({in[1], in[2], c.bias ? in[3] : M()}, c, in[0], &k);
  const M u = (dy.array().rowwise() * in[2].array().row(0)).abs() * (1 + k.t.array().square());
  std::vector<double> s{std::abs(in[1](0, 0)) * u.maxCoeff(), u.cwiseProduct(k.x.cwiseAbs()).sum(),
                        column_abs_sum(dy.cwiseProduct(k.t))};
  if (c.bias) s.push_back(column_abs_sum(dy));
  return s;
}

RC_GTEST_PROP(DyT, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const long n = *verify::gen::extent(4), d = *verify::gen::extent(9);
  const dyt::Config c{*rc::gen::arbitrary<bool>(), 0.5};
  const M x = *input(n, d);
  // alpha x of order 0.03 to 30 (from linear to saturated), whatever the scale of x.
  Inputs<double> in{x, M(*parameter(1) / rms_of(x)), *parameter(d)};
  if (c.bias) in.push_back(*parameter(d));
  const M dy = *output_gradient(n, d);
  check_three_ways(autodiff::analytic_dyt(c), autodiff::tape_dyt_problem(c), in, dy,
                   term_scale(in, dy, c));
}

TEST(DyT, InitializesAsTheAuthorsDoAndSaturates) {
  const dyt::Params<double> p = dyt::init<double>(3);
  EXPECT_EQ(p.alpha(0, 0), 0.5);
  M x(1, 3);
  x << 1e9, -1e9, 0.0;
  const M y = dyt::forward(p, {}, x);
  EXPECT_EQ(y(0, 0), 1.0);  // gamma tanh(alpha x) + beta: bounded by |gamma| + |beta|
  EXPECT_EQ(y(0, 1), -1.0);
  EXPECT_EQ(y(0, 2), 0.0);
}

TEST(DyT, BackwardIsThreadCountIndependent) {
  const long d = 20, n = kParallelEntries / d + 5;  // threads run: above the threshold
  ASSERT_GE(n * d, kParallelEntries);
  M x(n, d), dy(n, d);
  for (long i = 0; i < x.size(); ++i) {
    x.data()[i] = 3 * std::sin(0.41 * i);
    dy.data()[i] = std::cos(0.23 * i);
  }
  const dyt::Params<double> p{M::Constant(1, 1, 0.7), M::Constant(1, d, 1.3),
                              M::Constant(1, d, 0.2)};
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    dyt::Cache<double> k;
    dyt::forward(p, {}, x, &k);
    return dyt::backward(p, {}, k, dy);
  };
  const int before = omp_get_max_threads();
  const auto a = run(1), b = run(2);
  omp_set_num_threads(before);
  EXPECT_TRUE(a.dx == b.dx && a.dalpha == b.dalpha && a.dgamma == b.dgamma && a.dbeta == b.dbeta);
}

TEST(DyT, BadInputIsRejectedWithAClearError) {
  const dyt::Params<double> p = dyt::init<double>(4);
  const M x = M::Ones(2, 4);
  EXPECT_THROW(dyt::forward(dyt::Params<double>{M::Ones(1, 4), p.gamma, p.beta}, {}, x), Error);
  dyt::Params<double> nan = p;
  nan.alpha(0, 0) = std::nan("");
  EXPECT_THROW(dyt::forward(nan, {}, x), Error);
  EXPECT_THROW(dyt::forward(p, {}, M(M::Ones(2, 3))), Error);
  EXPECT_THROW(dyt::forward(p, {}, M(2, 0)), Error);
}

}  // namespace
