// SeeDNorm and multi-head SeeDNorm (seednorm eq. 4-7, Appendix B): gradients
// three ways over every form, the paper's invariants, errors.
#include <gtest/gtest.h>
#include <omp.h>
#include <rapidcheck/gtest.h>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;
namespace rms = scaleref::norm::rmsnorm;
using norm::Activation;
using seed::AlphaForm;
using seed::BetaForm;

RC_GTEST_PROP(SeeDNorm, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const long n = *verify::gen::extent(3), d = *verify::gen::extent(8);
  const seed::Config c = *seednorm_config(d);
  const M x = *input(n, d);
  const seed::Params<double> p = *seednorm_params(c, x);
  seed::Cache<double> k;
  seed::forward(p, c, x, &k);
  RC_PRE(sigma_arguments_are_checkable(c, k.z));
  const M dy = *output_gradient(n, d);
  RC_CLASSIFY(c.heads > 1, "multi-head");
  RC_CLASSIFY(c.alpha != AlphaForm::vector, "alpha scalar or removed");
  RC_CLASSIFY(c.beta != BetaForm::dot, "beta elementwise or removed");
  RC_CLASSIFY(!c.gamma, "gamma removed");
  check_three_ways(autodiff::analytic_seednorm(c), autodiff::tape_seednorm_problem(c),
                   seednorm_inputs(p, x), dy, seednorm_term_scale(c, p, x, dy));
}

// eq. 5: at eps = 0, x -> k x changes SeeDNorm only through sigma's argument,
// so SeeDNorm(k x; beta) = SeeDNorm(x; k beta). In 50 digits, to 1e-40 of the
// output's scale sqrt(D) (max|alpha| + max|gamma|) (bounded activations).
RC_GTEST_PROP(SeeDNorm, InputScaleActsOnlyThroughTheSelfRescalingTerm, ()) {
  const long n = *verify::gen::extent(3), d = *verify::gen::extent(8);
  seed::Config c = *seednorm_config(d);
  c.eps = 0;
  RC_PRE(c.beta != BetaForm::none);  // there sigma takes x itself: no beta to absorb k
  RC_PRE(c.sigma != Activation::gelu_tanh && c.sigma != Activation::swish);
  const M x = *input(n, d);
  const seed::Params<double> p64 = *seednorm_params(c, x);
  const Real50 k =
      pow(Real50(10), *rc::gen::inRange(-6, 7)) * Real50(*rc::gen::inRange(1, 100)) / 7;
  seed::Params<Real50> p{cast<Real50>(p64.alpha), cast<Real50>(p64.beta), cast<Real50>(p64.gamma)};
  seed::Params<Real50> pk = p;
  pk.beta *= k;
  const Mat<Real50> x50 = cast<Real50>(x);
  const Mat<Real50> lhs = seed::forward(p, c, Mat<Real50>(k * x50));
  const Mat<Real50> rhs = seed::forward(pk, c, x50);
  double scale = 0;
  if (p64.alpha.size())
    scale += p64.alpha.cwiseAbs().maxCoeff();
  else
    scale += 1;
  if (c.gamma) scale += p64.gamma.cwiseAbs().maxCoeff();
  RC_ASSERT(static_cast<double>((lhs - rhs).cwiseAbs().maxCoeff()) <=
            1e-40 * std::sqrt(double(d)) * scale);
}

// ||J(k x)||_F for one row, from the analytic backward, in 50 digits.
double jacobian_norm(const seed::Params<Real50>& p, const seed::Config& c, const Mat<Real50>& x) {
  seed::Cache<Real50> k;
  seed::forward(p, c, x, &k);
  Real50 sum = 0;
  for (long j = 0; j < x.cols(); ++j) {
    Mat<Real50> dy = Mat<Real50>::Zero(1, x.cols());
    dy(0, j) = 1;
    sum += seed::backward(p, c, k, dy).dx.squaredNorm();
  }
  return static_cast<double>(sqrt(sum));
}

// The discussion after eq. 29: for very large and very small k, the gradient
// at k x behaves like (gamma + alpha tanh(k z)) / (k RMS(x)) times RMSNorm's
// projection, so ||J(k x)|| falls as 1/k at both ends. Measured: the log-log
// slope between adjacent decades, and the limits k ||J(k x)|| against the
// RMSNorm Jacobian with gain gamma + alpha sign(z) (k -> inf) and gamma (k -> 0).
TEST(SeeDNorm, InputGradientScalesAsOneOverKAtBothEnds) {
  const long d = 8;
  seed::Config c;
  c.eps = 0;
  seed::Params<Real50> p = seed::init<Real50>(d, c);
  Mat<Real50> x(1, d);
  for (long j = 0; j < d; ++j) {
    x(0, j) = Real50(std::sin(1.7 * j + 0.3));
    p.alpha(0, j) = Real50(0.5 + 0.3 * std::cos(j));
    p.beta(0, j) = Real50(0.4 * std::sin(2.1 * j + 1));
    p.gamma(0, j) = Real50(1.2 - 0.1 * j);
  }
  auto norm_at = [&](double k) { return jacobian_norm(p, c, Mat<Real50>(Real50(k) * x)); };
  const double slope_large = std::log10(norm_at(1e6) / norm_at(1e5));
  const double slope_small = std::log10(norm_at(1e-6) / norm_at(1e-7));
  std::printf("d log||J(kx)|| / d log k: %.6f at k ~ 1e5..1e6, %.6f at k ~ 1e-7..1e-6\n",
              slope_large, slope_small);
  EXPECT_NEAR(slope_large, -1.0, 1e-6);  // tanh(k z) saturates: exponentially exact
  EXPECT_NEAR(slope_small, -1.0, 1e-5);  // the sigma' alpha^T beta term is O(k) relative

  const double z = static_cast<double>(x.row(0).dot(p.beta.row(0)));
  auto rmsnorm_jacobian_norm = [&](const Mat<Real50>& gain) {
    Real50 sum = 0;
    rms::Cache<Real50> k;
    rms::forward<Real50>({gain}, {0.0}, x, &k);
    for (long j = 0; j < d; ++j) {
      Mat<Real50> dy = Mat<Real50>::Zero(1, d);
      dy(0, j) = 1;
      sum += rms::backward<Real50>({gain}, {0.0}, k, dy).dx.squaredNorm();
    }
    return static_cast<double>(sqrt(sum));
  };
  const Mat<Real50> saturated = p.gamma + Real50(z > 0 ? 1 : -1) * p.alpha;
  EXPECT_NEAR(1e6 * norm_at(1e6) / rmsnorm_jacobian_norm(saturated), 1.0, 1e-9);
  EXPECT_NEAR(1e-7 * norm_at(1e-7) / rmsnorm_jacobian_norm(p.gamma), 1.0, 1e-6);
}

// SeeDNorm with alpha = 0 is RMSNorm with gain gamma, for any sigma and beta;
// with beta = 0 it is RMSNorm with gain gamma + sigma(0) alpha: gamma itself
// for the odd activations and gelu / swish, gamma + alpha / 2 for sigmoid.
RC_GTEST_PROP(SeeDNorm, IsRMSNormWhenAlphaOrBetaIsZero, ()) {
  const long n = *verify::gen::extent(3), d = *verify::gen::extent(8);
  seed::Config c;
  c.eps = *eps();
  c.sigma = *rc::gen::elementOf(norm::kActivations);
  const M x = *input(n, d), dy = *output_gradient(n, d);
  seed::Params<double> p = *seednorm_params(c, x);
  const bool zero_alpha = *rc::gen::arbitrary<bool>();
  (zero_alpha ? p.alpha : p.beta).setZero();
  const double sigma0 = norm::activate(c.sigma, 0.0);
  const rms::Params<double> as_rms{zero_alpha ? p.gamma : M(p.gamma + sigma0 * p.alpha)};
  seed::Cache<double> ks;
  rms::Cache<double> kr;
  const M ys = seed::forward(p, c, x, &ks), yr = rms::forward(as_rms, {c.eps}, x, &kr);
  const auto gs = seed::backward(p, c, ks, dy);
  const auto gr = rms::backward(as_rms, {c.eps}, kr, dy);
  // Same operations in the same order but for an added 0 (or sigma(0) alpha
  // folded into the gain first): a few ulps of each row's terms.
  const double tol = 8 * 2.2e-16;
  RC_ASSERT(((ys - yr).array().abs() <= tol * (1 + yr.array().abs())).all());
  // dx = r (g - x_hat mean(g x_hat)) cancels (to 0 at D = 1): judged against its
  // terms, r |dy| |gain| (1 + sqrt(D)), not against itself.
  const double dx_terms = kr.r.maxCoeff() * dy.cwiseAbs().maxCoeff() *
                          as_rms.gamma.cwiseAbs().maxCoeff() * (1 + std::sqrt(double(d)));
  RC_ASSERT((gs.dx - gr.dx).cwiseAbs().maxCoeff() <= tol * 4 * dx_terms);
  RC_ASSERT((gs.dgamma - gr.dgamma).cwiseAbs().maxCoeff() <=
            tol * column_abs_sum(dy.cwiseProduct(kr.x_hat)));
}

// eq. 7 against eq. 4: at eps = 0, head h of multi-head SeeDNorm is single-head
// SeeDNorm of the slice x_h (with alpha_h, beta_h, gamma_h), rescaled from
// RMS(x_h) to RMS(x): y_h = SeeDNorm(x_h) RMS(x_h) / RMS(x). With one head this
// is the statement that one-head multi-head SeeDNorm is SeeDNorm.
RC_GTEST_PROP(SeeDNorm, EachHeadIsSeeDNormOfItsSlice, ()) {
  const long n = *verify::gen::extent(3), d = *verify::gen::extent(8);
  seed::Config c = *seednorm_config(d);
  c.eps = 0;
  c.beta = BetaForm::dot;
  const M x = *input(n, d);
  const seed::Params<double> p = *seednorm_params(c, x);
  const M y = seed::forward(p, c, x);
  const long w = d / c.heads;
  seed::Config one = c;
  one.heads = 1;
  for (long h = 0; h < c.heads; ++h) {
    const long b = h * w;
    seed::Params<double> ph;
    if (c.alpha == AlphaForm::vector) ph.alpha = p.alpha.middleCols(b, w);
    if (c.alpha == AlphaForm::scalar) ph.alpha = p.alpha;
    ph.beta = p.beta.middleCols(b, w);
    if (c.gamma) ph.gamma = p.gamma.middleCols(b, w);
    const M xh = x.middleCols(b, w);
    M yh = seed::forward(ph, one, xh);
    for (long i = 0; i < n; ++i)
      yh.row(i) *= std::sqrt(xh.row(i).squaredNorm() / w) / std::sqrt(x.row(i).squaredNorm() / d);
    // Two square roots, a dot product of w terms and a quotient apart: 16 ulps of the output's
    // scale.
    const double scale = y.cwiseAbs().maxCoeff() + yh.cwiseAbs().maxCoeff();
    RC_ASSERT((y.middleCols(b, w) - yh).cwiseAbs().maxCoeff() <= 16 * 2.2e-16 * scale);
  }
}

TEST(SeeDNorm, InitializesAsAlgorithmOneAndCarriesItsWeightDecayData) {
  seed::Config c;
  c.alpha_init = 0.1;
  const seed::Params<double> p = seed::init<double>(6, c);
  EXPECT_TRUE((p.alpha.array() == 0.1).all());
  EXPECT_TRUE((p.beta.array() == 0.0).all());
  EXPECT_TRUE((p.gamma.array() == 1.0).all());
  // sec. 3.1: weight decay on alpha and beta, not on gamma.
  EXPECT_EQ(seed::kParams[0].name, "alpha");
  EXPECT_TRUE(seed::kParams[0].weight_decay);
  EXPECT_TRUE(seed::kParams[1].weight_decay);
  EXPECT_FALSE(seed::kParams[2].weight_decay);
  // beta = 0 at init: the rescaling is sigma(0) alpha, so tanh-SeeDNorm starts as RMSNorm.
  M x(2, 6);
  x << 1, -2, 3, 0.5, 0.25, -1, 4, 4, -4, 1, 2, 3;
  EXPECT_TRUE(seed::forward(p, c, x) == rms::forward(rms::init<double>(6), {c.eps}, x));
}

// sigma'(z) computed from an inner tanh or sigmoid value v that carries a
// relative error delta (the formulas of spec/seednorm.hpp, written in terms
// of v, in long double): activate_derivative_scale bounds the move by
// 2 |delta| scale; |sigma'(z)| alone does not (1 - t^2 cancels). A GPU's tanh
// and exp differ from the host's by a few ulps: cuda_check's tolerances on
// SeeDNorm's dbeta and dx rest on this bound (found on an H100, 2026-11-26:
// dbeta at 1 x 1 used 1.9 of a tolerance relative to |sigma'(z)|).
TEST(SeeDNorm, DerivativeScaleBoundsTheEffectOfAnInnerFunctionsError) {
  using LD = long double;
  const LD c = 0.79788456080286535588L, k = 0.044715L;
  const auto from_inner = [&](Activation a, LD z, LD v) -> LD {
    switch (a) {
      case Activation::tanh:
        return 1 - v * v;
      case Activation::sigmoid:
        return v * (1 - v);
      case Activation::gelu_tanh:
        return LD(0.5) * (1 + v) + LD(0.5) * z * (1 - v * v) * c * (1 + 3 * k * z * z);
      case Activation::swish:
        return v + z * v * (1 - v);
      default:
        return norm::activate_derivative(a, static_cast<double>(z));
    }
  };
  const auto inner = [&](Activation a, LD z) -> LD {
    if (a == Activation::gelu_tanh) return std::tanh(c * (z + k * z * z * z));
    if (a == Activation::tanh) return std::tanh(z);
    return 1 / (1 + std::exp(-z));
  };
  int cancelling = 0;
  for (const Activation a : norm::kActivations) {
    for (int i = -480; i <= 480; ++i) {
      const LD z = i / 40.0L;
      const double scale = norm::activate_derivative_scale(a, static_cast<double>(z));
      const LD exact = from_inner(a, z, inner(a, z));
      EXPECT_NEAR(static_cast<double>(exact), norm::activate_derivative(a, static_cast<double>(z)),
                  1e-14 * scale)
          << norm::name(a) << " z " << static_cast<double>(z);
      EXPECT_GE(scale, std::abs(static_cast<double>(exact)) * (1 - 1e-14));
      for (const LD delta : {1e-7L, -1e-7L}) {
        const LD moved = std::abs(from_inner(a, z, inner(a, z) * (1 + delta)) - exact);
        EXPECT_LE(moved, 2 * std::abs(delta) * scale * (1 + 1e-6L))
            << norm::name(a) << " z " << static_cast<double>(z);
        if (moved > 2 * std::abs(delta) * std::abs(exact)) ++cancelling;
      }
    }
  }
  // The planted alternative, a scale of |sigma'(z)|, misses the cancellation
  // (tanh from |z| near 0.66 on, sigmoid, GELU and swish in their tails).
  EXPECT_GT(cancelling, 1000);
}

TEST(SeeDNorm, BackwardIsThreadCountIndependent) {
  const long d = 24, n = kParallelEntries / d + 9;
  ASSERT_GE(n * d, kParallelEntries);
  M x(n, d), dy(n, d);
  for (long i = 0; i < x.size(); ++i) {
    x.data()[i] = std::sin(0.29 * i) * (1 + i % 5);
    dy.data()[i] = std::cos(0.13 * i);
  }
  seed::Config c;
  c.heads = 4;
  seed::Params<double> p = seed::init<double>(d, c);
  for (long j = 0; j < d; ++j) p.beta(0, j) = 0.1 * std::sin(j);
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    seed::Cache<double> k;
    seed::forward(p, c, x, &k);
    return seed::backward(p, c, k, dy);
  };
  const int before = omp_get_max_threads();
  const auto a = run(1), b = run(2);
  omp_set_num_threads(before);
  EXPECT_TRUE(a.dx == b.dx && a.dalpha == b.dalpha && a.dbeta == b.dbeta && a.dgamma == b.dgamma);
}

TEST(SeeDNorm, BadInputIsRejectedWithAClearError) {
  const M x = M::Ones(2, 6);
  seed::Config c;
  const seed::Params<double> p = seed::init<double>(6, c);
  seed::Config heads4 = c;
  heads4.heads = 4;
  EXPECT_NE(error_of([&] { seed::forward(p, heads4, x); }).find("D = 6 and heads = 4"),
            std::string::npos);
  seed::Config negative = c;
  negative.eps = -1e-6;
  EXPECT_NE(error_of([&] { seed::forward(p, negative, x); }).find("eps >= 0"), std::string::npos);
  seed::Config exact = c;
  exact.eps = 0;
  M zero_row = x;
  zero_row.row(1).setZero();
  EXPECT_NE(error_of([&] { seed::forward(p, exact, zero_row); }).find("row 1"), std::string::npos);
  seed::Params<double> bad = p;
  bad.beta(0, 3) = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { seed::forward(bad, c, x); }).find("finite beta"), std::string::npos);
  EXPECT_NE(error_of([&] { seed::forward(p, c, M(M::Ones(2, 5))); }).find("alpha [1x5]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { seed::forward(p, c, M(0, 6)); }).find("non-empty"), std::string::npos);
  seed::Config unknown_sigma = c;  // an enum cast from an out-of-range integer
  unknown_sigma.sigma = static_cast<Activation>(99);
  EXPECT_NE(error_of([&] { seed::forward(p, unknown_sigma, x); }).find("unknown activation 99"),
            std::string::npos);
  seed::Config split_elementwise = c;
  split_elementwise.beta = BetaForm::elementwise;
  split_elementwise.heads = 2;
  EXPECT_NE(error_of([&] { seed::forward(p, split_elementwise, x); }).find("elementwise"),
            std::string::npos);
  seed::Config no_beta_scalar_alpha = c;
  no_beta_scalar_alpha.beta = BetaForm::none;
  no_beta_scalar_alpha.alpha = AlphaForm::scalar;
  EXPECT_NE(error_of([&] {
              seed::forward(seed::init<double>(6, no_beta_scalar_alpha), no_beta_scalar_alpha, x);
            }).find("alpha must be a vector"),
            std::string::npos);
  seed::Config scalar_alpha = c;
  scalar_alpha.alpha = AlphaForm::scalar;
  EXPECT_NE(error_of([&] { seed::forward(p, scalar_alpha, x); }).find("alpha [1x1]"),
            std::string::npos);
}

}  // namespace
