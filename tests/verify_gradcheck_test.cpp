// The verifier can fail: deliberately wrong gradients (sign flip, missing term,
// factor 2) are reported with every number needed to find the bug, a right
// gradient passes, and an almost-right one shows its true error in 50 digits.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <scaleref/autodiff/catalog.hpp>
#include <scaleref/error.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <string>

namespace {

using scaleref::Mat;
using scaleref::verify::check;
using scaleref::verify::Inputs;
using scaleref::verify::Problem;
using M = Mat<double>;

// y = tanh(x w) for x [n, k], w [k, d], with a hand-derived backward:
//   z = x w, s = dy * (1 - y^2), dx = s w^T, dw = x^T s.
// `bug` selects a deliberate mistake.
enum class Bug { none, sign_flip_dx, missing_term_dx, factor_two_dw, tiny_dw };

Problem tanh_layer(Bug bug) {
  auto forward = [](const auto& in) {
    using S = typename std::decay_t<decltype(in)>::value_type::Scalar;
    return Mat<S>(scaleref::matmul(in[0], in[1]).array().tanh().matrix());
  };
  auto backward = [bug](const auto& in, const auto& dy) {
    using S = typename std::decay_t<decltype(in)>::value_type::Scalar;
    const Mat<S> y = scaleref::matmul(in[0], in[1]).array().tanh().matrix();
    const Mat<S> s = dy.array() * (S(1) - y.array().square());
    // The missing-term bug forgets tanh's derivative in dx only.
    Mat<S> dx =
        scaleref::matmul<S>(bug == Bug::missing_term_dx ? Mat<S>(dy) : s, in[1].transpose());
    Mat<S> dw = scaleref::matmul<S>(in[0].transpose(), s);
    if (bug == Bug::sign_flip_dx) dx = -dx;
    if (bug == Bug::factor_two_dw) dw *= S(2);
    if (bug == Bug::tiny_dw) dw *= S(1) + scaleref::from_decimal<S>("1e-12");
    return Inputs<S>{dx, dw};
  };
  return Problem::make("tanh_layer", {"x", "w"}, forward, backward);
}

Inputs<double> layer_inputs(long n, long k, long d) {
  M x(n, k), w(k, d);
  for (long i = 0; i < x.size(); ++i) x.data()[i] = std::sin(1.3 * i + 0.4);
  for (long i = 0; i < w.size(); ++i) w.data()[i] = 0.6 * std::cos(0.7 * i + 0.1);
  return {x, w};
}

TEST(GradCheck, RightGradientPassesEveryCheck) {
  const auto r = check(tanh_layer(Bug::none), layer_inputs(3, 4, 5));
  EXPECT_TRUE(r.ok()) << r.str();
  EXPECT_LT(r.worst_rel_err("fd-50"), 1e-25);
  EXPECT_LT(r.worst_rel_err("fd-double"), 1e-6);
  ASSERT_NE(r.find("taylor-50"), nullptr);
  EXPECT_NEAR(r.find("taylor-50")->slope, 2.0, 0.05);
  EXPECT_NE(r.find("fd-50", "x")->regime.find("full Jacobian 15x12"), std::string::npos);
}

TEST(GradCheck, SignFlipIsReportedWithEveryNumber) {
  const auto r = check(tanh_layer(Bug::sign_flip_dx), layer_inputs(3, 4, 5));
  EXPECT_FALSE(r.ok());
  const auto* c = r.find("fd-50", "x");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ok);
  EXPECT_TRUE(r.find("fd-50", "w")->ok);  // only dx is wrong, and the report says so
  EXPECT_FALSE(r.find("fd-double", "x")->ok);
  EXPECT_FALSE(r.find("transpose-50")->ok);
  EXPECT_NEAR(r.find("taylor-50")->slope, 1.0, 0.1);  // a wrong gradient leaves an O(t) remainder
  ASSERT_TRUE(c->worst.has_value());
  EXPECT_NEAR(c->worst->rel_err, 2.0, 1e-12);  // -a against a: |-a - a| / |a|
  const std::string text = r.str();
  for (const char* needle :
       {"tanh_layer: FAIL", "fd-50", "worst: d y[", "/ d x[", "analytic", "finite difference",
        "in 50 digits", "abs err", "rel err", "tolerance", "step"})
    EXPECT_NE(text.find(needle), std::string::npos) << needle << " missing from:\n" << text;
}

TEST(GradCheck, MissingTermIsReported) {
  const auto r = check(tanh_layer(Bug::missing_term_dx), layer_inputs(4, 3, 2));
  EXPECT_FALSE(r.find("fd-50", "x")->ok) << r.str();
  EXPECT_TRUE(r.find("fd-50", "w")->ok) << r.str();
  EXPECT_FALSE(r.find("fd-double", "x")->ok) << r.str();
}

TEST(GradCheck, FactorTwoIsReported) {
  const auto r = check(tanh_layer(Bug::factor_two_dw), layer_inputs(2, 3, 3));
  EXPECT_FALSE(r.find("fd-50", "w")->ok) << r.str();
  EXPECT_NEAR(r.find("fd-50", "w")->worst->rel_err, 0.5, 1e-12);  // |2a - a| / |2a|
  EXPECT_TRUE(r.find("fd-50", "x")->ok) << r.str();
}

TEST(GradCheck, AnAlmostRightFormulaShowsItsTrueErrorIn50Digits) {
  // Off by 1e-12 relative: invisible to the double check, measured by the 50-digit one.
  const auto r = check(tanh_layer(Bug::tiny_dw), layer_inputs(3, 2, 4));
  EXPECT_TRUE(r.find("fd-double", "w")->ok) << r.str();
  EXPECT_FALSE(r.find("fd-50", "w")->ok) << r.str();
  EXPECT_NEAR(r.find("fd-50", "w")->cmp.max_rel_err, 1e-12, 1e-14);
}

// A problem in double only (Python's gradcheck of a user's function): the
// double checks run, and the Taylor slope is fitted in double.
Problem double_only(Bug bug) {
  Problem p = tanh_layer(bug);
  p.f50 = {};
  return p;
}

TEST(GradCheck, ADoubleOnlyProblemRunsTheDoubleChecksAndCatchesBugs) {
  const auto good = check(double_only(Bug::none), layer_inputs(3, 4, 5));
  EXPECT_TRUE(good.ok()) << good.str();
  EXPECT_EQ(good.find("fd-50"), nullptr);
  EXPECT_EQ(good.find("transpose-50"), nullptr);
  ASSERT_NE(good.find("taylor-double"), nullptr);
  EXPECT_NEAR(good.find("taylor-double")->slope, 2.0, 0.1) << good.str();
  EXPECT_TRUE(good.find("transpose-double")->ok);
  for (const Bug bug : {Bug::sign_flip_dx, Bug::missing_term_dx, Bug::factor_two_dw}) {
    const auto bad = check(double_only(bug), layer_inputs(3, 4, 5));
    EXPECT_FALSE(bad.ok()) << bad.str();
    EXPECT_FALSE(bad.find("taylor-double")->ok) << bad.str();
    EXPECT_NEAR(bad.find("taylor-double")->slope, 1.0, 0.1) << bad.str();
  }
}

TEST(GradCheck, LargeShapesUseProjectionsAndStillCatchBugs) {
  scaleref::verify::Options o;
  o.full_jacobian_limit = 100;  // 12 x 20 outputs times 300 entries is far beyond it
  const Inputs<double> x = layer_inputs(12, 15, 20);
  const auto good = check(tanh_layer(Bug::none), x, o);
  EXPECT_TRUE(good.ok()) << good.str();
  EXPECT_NE(good.find("fd-50", "x")->regime.find("3 projections x 24 of 180 entries"),
            std::string::npos)
      << good.str();
  const auto bad = check(tanh_layer(Bug::factor_two_dw), x, o);
  EXPECT_FALSE(bad.find("fd-50", "w")->ok) << bad.str();
  EXPECT_FALSE(bad.find("transpose-50")->ok) << bad.str();
  EXPECT_NE(bad.str().find("v"), std::string::npos);
}

TEST(GradCheck, AgreementComparesTwoFormulations) {
  const Problem tape = Problem::from_tape(
      "tape", {"x", "w"}, [](auto& t, const auto& v) { return t.tanh(t.matmul(v[0], v[1])); });
  const Inputs<double> x = layer_inputs(5, 4, 3);
  const M dy = layer_inputs(5, 3, 1)[0];
  for (const auto& c : scaleref::verify::agreement(tanh_layer(Bug::none), tape, x, dy))
    EXPECT_TRUE(c.ok()) << c.str();
  const auto bad = scaleref::verify::agreement(tanh_layer(Bug::factor_two_dw), tape, x, dy);
  EXPECT_FALSE(bad.back().ok()) << bad.back().str();
  EXPECT_THROW(scaleref::verify::agreement(tanh_layer(Bug::none), tape, x, M::Ones(2, 2)),
               scaleref::Error);
}

TEST(GradCheck, BadProblemsAreRejected) {
  const Inputs<double> x = layer_inputs(2, 2, 2);
  EXPECT_THROW(check(tanh_layer(Bug::none), {x[0]}), scaleref::Error);
  Inputs<double> inf = x;
  inf[0](0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(check(tanh_layer(Bug::none), inf), scaleref::Error);
  const Problem wrong_shape = Problem::make(
      "wrong_shape", {"x"}, [](const auto& in) { return in[0]; },
      [](const auto& in, const auto&) {
        using S = typename std::decay_t<decltype(in)>::value_type::Scalar;
        return Inputs<S>{Mat<S>::Zero(1, 1)};
      });
  EXPECT_THROW(check(wrong_shape, {x[0]}), scaleref::Error);
}

// The verifier's power, as a property: for any primitive, shape and values,
// doubling the tape's gradient is caught (unless that gradient is exactly zero).
RC_GTEST_PROP(GradCheckPower, DoubledGradientIsAlwaysCaught, ()) {
  const auto& catalog = scaleref::autodiff::primitive_catalog();
  const auto& c = catalog[*rc::gen::inRange<std::size_t>(0, catalog.size())];
  const Inputs<double> x = *scaleref::autodiff::draw_inputs(c);
  const auto y = c.problem.f64.forward(x);
  bool any_nonzero = false;
  for (const auto& g : c.problem.f64.backward(x, M::Ones(y.rows(), y.cols())))
    any_nonzero = any_nonzero || (g.array() != 0).any();
  RC_PRE(any_nonzero);
  Problem doubled = c.problem;
  doubled.name += "x2";
  auto twice = [](auto f) {
    return [f](const auto& in, const auto& dy) {
      auto g = f(in, dy);
      for (auto& m : g) m *= 2;
      return g;
    };
  };
  doubled.f64.backward = twice(c.problem.f64.backward);
  doubled.f50.backward = twice(c.problem.f50.backward);
  scaleref::verify::Options o;
  o.fd_double = false;  // the 50-digit check and the Taylor test suffice here
  const auto r = check(doubled, x, o);
  RC_LOG() << r.str();
  RC_ASSERT(!r.ok());
  RC_ASSERT(!r.find("transpose-50")->ok);
}

}  // namespace
