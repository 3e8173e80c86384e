// AdaSeeDNorm (seednorm eq. 8): gradients three ways, its reduction to SeeDNorm, errors.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;
namespace ada = scaleref::norm::adaseednorm;

// AdaSeeDNorm is SeeDNorm with gain 1 fed dy (.) (1 + gamma(c)), so its term
// scales are SeeDNorm's for that dy (without gamma's), then |dy u| and |dy|.
std::vector<double> term_scale(const ada::Config& c, const seed::Params<double>& inner, const M& x,
                               const M& gamma_c, const M& dy) {
  seed::Config with_gain = c;
  with_gain.gamma = true;
  const M dy_inner = dy.cwiseProduct(M((gamma_c.array() + 1).matrix()));
  std::vector<double> s = seednorm_term_scale(with_gain, inner, x, dy_inner);
  s.pop_back();  // the fixed gain has no gradient
  const M u = seed::forward(inner, with_gain, x);
  s.push_back(dy.cwiseProduct(u).cwiseAbs().maxCoeff());
  s.push_back(dy.cwiseAbs().maxCoeff());
  return s;
}

RC_GTEST_PROP(AdaSeeDNorm, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const long n = *verify::gen::extent(3), d = *verify::gen::extent(8);
  seed::Config c = *seednorm_config(d);
  c.gamma = false;  // eq. 8's gain is the fixed 1
  const M x = *input(n, d);
  seed::Params<double> inner = *seednorm_params(c, x);
  inner.gamma = M::Ones(1, d);
  seed::Config with_gain = c;
  with_gain.gamma = true;
  seed::Cache<double> k;
  seed::forward(inner, with_gain, x, &k);
  RC_PRE(sigma_arguments_are_checkable(c, k.z));
  const M gamma_c = *verify::gen::matrix(n, d, verify::gen::decades(-1, 0, 0.5));
  const M eta_c = *verify::gen::matrix(n, d, verify::gen::decades(-1, 0, 0.5));
  const M dy = *output_gradient(n, d);
  Inputs<double> in{x};
  if (inner.alpha.size()) in.push_back(inner.alpha);
  if (inner.beta.size()) in.push_back(inner.beta);
  in.push_back(gamma_c);
  in.push_back(eta_c);
  check_three_ways(autodiff::analytic_adaseednorm(c), autodiff::tape_adaseednorm_problem(c), in, dy,
                   term_scale(c, inner, x, gamma_c, dy));
}

// With gamma(c) = eta(c) = 0, eq. 8 is SeeDNorm with its gain gamma replaced by
// the constant 1: same output, same dx, dalpha, dbeta, to a few ulps.
RC_GTEST_PROP(AdaSeeDNorm, WithoutConditionIsSeeDNormWithUnitGain, ()) {
  const long n = *verify::gen::extent(3), d = *verify::gen::extent(8);
  seed::Config c = *seednorm_config(d);
  c.gamma = true;
  const M x = *input(n, d), dy = *output_gradient(n, d);
  seed::Params<double> p = *seednorm_params(c, x);
  p.gamma = M::Ones(1, d);
  const ada::Params<double> q{p.alpha, p.beta};
  seed::Cache<double> ks;
  ada::Cache<double> ka;
  const M zero = M::Zero(n, d);
  const M ys = seed::forward(p, c, x, &ks);
  const M ya = ada::forward(q, c, x, zero, zero, &ka);
  const auto gs = seed::backward(p, c, ks, dy);
  const auto ga = ada::backward(q, c, ka, dy);
  // u (1 + 0) + 0 and dy (1 + 0) are exact: the results are bitwise SeeDNorm's.
  RC_ASSERT(ya == ys);
  RC_ASSERT(ga.dx == gs.dx);
  RC_ASSERT(ga.dalpha == gs.dalpha);
  RC_ASSERT(ga.dbeta == gs.dbeta);
  RC_ASSERT(ga.deta_c == dy);
}

TEST(AdaSeeDNorm, BadConditionIsRejectedWithAClearError) {
  const M x = M::Ones(2, 4);
  const ada::Params<double> p = ada::init<double>(4);
  auto error_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of([&] {
              ada::forward(p, {}, x, M(M::Zero(1, 4)), M(M::Zero(2, 4)));
            }).find("gamma(c) shaped like x [2x4]"),
            std::string::npos);
  M nan = M::Zero(2, 4);
  nan(1, 1) = std::nan("");
  EXPECT_NE(error_of([&] { ada::forward(p, {}, x, M(M::Zero(2, 4)), nan); }).find("finite eta(c)"),
            std::string::npos);
  ada::Params<double> wrong = p;
  wrong.alpha = M::Ones(1, 3);
  EXPECT_NE(error_of([&] {
              ada::forward(wrong, {}, x, M(M::Zero(2, 4)), M(M::Zero(2, 4)));
            }).find("adaseednorm::forward"),
            std::string::npos);
}

}  // namespace
