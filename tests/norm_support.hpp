// Shared by the normalization tests: generators for inputs and for parameters
// away from their initial values, and the three-way gradient check
// (analytic vs tape vs finite differences).
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/verify/generators.hpp>
#include <vector>

#include "error_support.hpp"

namespace scaleref::test {

using verify::Inputs;
using M = Mat<double>;

// An [n, d] input at a common scale between 1e-8 and 1e8 (each entry within a
// decade of it, either sign, never 0).
inline rc::Gen<M> input(long n, long d) {
  return verify::gen::matrix(n, d, verify::gen::decades(-8, 8, 1));
}

// A 1 x d parameter far from 0 and 1: entries +-10^u, u in [-1, 1].
inline rc::Gen<M> parameter(long d) {
  return verify::gen::matrix(1, d, verify::gen::decades(-1, 1, 0.5));
}

// eps in {0, 1e-12, 1e-6, 1e-2, 1}: from none to one that swamps small inputs.
inline rc::Gen<double> eps() { return rc::gen::element(0.0, 1e-12, 1e-6, 1e-2, 1.0); }

// The message of the scaleref::Error that f throws, or "no error".

inline double rms_of(const M& x) {
  return std::sqrt(x.squaredNorm() / static_cast<double>(x.size()));
}

// An output gradient: entries +-10^u, u in [-1, 1].
inline rc::Gen<M> output_gradient(long n, long d) {
  return verify::gen::matrix(n, d, verify::gen::decades(0, 0, 1));
}

// max over columns of sum over rows of |m|: the scale of a parameter gradient
// summed over rows (a running-error bound for that sum).
inline double column_abs_sum(const M& m) { return m.cwiseAbs().colwise().sum().maxCoeff(); }

// Runs the analytic problem through every check, compares it with the tape in
// double on output gradient dy (term_scale: see verify::agreement), and checks
// the tape against 50-digit finite differences; logs what a failure needs.
inline void check_three_ways(const verify::Problem& analytic, const verify::Problem& tape,
                             const Inputs<double>& in, const M& dy,
                             const std::vector<double>& term_scale) {
  for (std::size_t p = 0; p < in.size(); ++p)
    RC_LOG() << analytic.input_names[p] << " = " << verify::matrix_text(in[p]);
  RC_LOG() << "dy = " << verify::matrix_text(dy);
  const verify::Report a = verify::check(analytic, in);
  RC_LOG() << a.str();
  RC_ASSERT(a.ok());
  for (const auto& c : verify::agreement(analytic, tape, in, dy, 1e-12, term_scale)) {
    RC_LOG() << c.str() << '\n';
    RC_ASSERT(c.ok());
  }
  verify::Options only_50;
  only_50.fd_double = only_50.transpose = only_50.taylor = false;
  const verify::Report t = verify::check(tape, in, only_50);
  RC_LOG() << t.str();
  RC_ASSERT(t.ok());
}

// ---- SeeDNorm -------------------------------------------------------------------

namespace seed = norm::seednorm;

// Any valid SeeDNorm config for width d: every activation, alpha and beta
// form, gamma on or off, and heads among the divisors of d.
inline rc::Gen<seed::Config> seednorm_config(long d) {
  std::vector<int> divisors;
  for (int h = 1; h <= d; ++h)
    if (d % h == 0) divisors.push_back(h);
  return rc::gen::map(
      rc::gen::tuple(
          eps(), rc::gen::elementOf(norm::kActivations),
          rc::gen::element(seed::AlphaForm::vector, seed::AlphaForm::scalar, seed::AlphaForm::none),
          rc::gen::element(seed::BetaForm::dot, seed::BetaForm::elementwise, seed::BetaForm::none),
          rc::gen::arbitrary<bool>(), rc::gen::elementOf(divisors)),
      [](const auto& t) {
        seed::Config c;
        std::tie(c.eps, c.sigma, c.alpha, c.beta, c.gamma, c.heads) = t;
        if (c.beta == seed::BetaForm::elementwise) c.heads = 1;  // no dot product to split
        if (c.beta == seed::BetaForm::none) c.alpha = seed::AlphaForm::vector;
        return c;
      });
}

// Parameters away from their initial values. beta is scaled to x, so that
// sigma's argument x_h . beta_h stays between about 0.01 and 3 whatever the
// scale of x: from sigma's linear part into its saturation.
inline rc::Gen<seed::Params<double>> seednorm_params(const seed::Config& c, const M& x) {
  const long d = x.cols(), w = d / c.heads;
  return rc::gen::map(
      rc::gen::tuple(parameter(d), parameter(1),
                     verify::gen::matrix(1, d, verify::gen::decades(-2, 0, 0.5)), parameter(d)),
      [c, x, w](const auto& t) {
        seed::Params<double> p;
        const auto& [alpha_v, alpha_s, beta, gamma] = t;
        if (c.alpha == seed::AlphaForm::vector) p.alpha = alpha_v;
        if (c.alpha == seed::AlphaForm::scalar) p.alpha = alpha_s;
        if (c.beta != seed::BetaForm::none)
          p.beta =
              beta / (rms_of(x) * (c.beta == seed::BetaForm::dot ? std::sqrt(double(w)) : 1.0));
        if (c.gamma) p.gamma = gamma;
        return p;
      });
}

inline Inputs<double> seednorm_inputs(const seed::Params<double>& p, const M& x) {
  Inputs<double> in{x};
  for (const M* m : {&p.alpha, &p.beta, &p.gamma})
    if (m->size()) in.push_back(*m);
  return in;
}

// Keeps sigma's arguments away from the points where the checks cannot judge:
// hardtanh's kinks at +-1 and softsign's kink in sigma'' at 0 (central
// differences lose an order there), and gelu below -6, where its tanh form in
// double cancels (the tape's catalog found it; 50 digits are exact).
inline bool sigma_arguments_are_checkable(const seed::Config& c, const Mat<double>& z) {
  for (long i = 0; i < z.size(); ++i) {
    const double v = z.data()[i];
    if (c.sigma == norm::Activation::hardtanh && std::abs(std::abs(v) - 1) < 1e-3) return false;
    if (c.sigma == norm::Activation::softsign && std::abs(v) < 1e-9) return false;
    if (c.sigma == norm::Activation::gelu_tanh && v < -6) return false;
  }
  return true;
}

// The size of the terms each SeeDNorm gradient is summed from: its backward
// (seednorm.hpp) evaluated with absolute values, |sigma'| bounded by 1.2 (the
// largest over the six activations is gelu's 1.13), plus the rounding of
// x . beta carried through sigma into the output. A running-error bound for
// verify::agreement, in the order of seednorm_inputs.
inline std::vector<double> seednorm_term_scale(const seed::Config& c, const seed::Params<double>& p,
                                               const M& x, const M& dy) {
  seed::Cache<double> k;
  seed::forward(p, c, x, &k);
  const long n = x.rows(), d = x.cols(), w = d / c.heads;
  auto a = [&](long j) {
    return c.alpha == seed::AlphaForm::vector   ? std::abs(p.alpha(0, j))
           : c.alpha == seed::AlphaForm::scalar ? std::abs(p.alpha(0, 0))
                                                : 1.0;
  };
  const double beta_max = p.beta.size() ? p.beta.cwiseAbs().maxCoeff() : 0.0;
  M dalpha = M::Zero(1, d), dbeta = M::Zero(1, d);
  double sx = 0;
  for (long i = 0; i < n; ++i) {
    const M q = dy.row(i).cwiseProduct(k.x_hat.row(i)).cwiseAbs();
    M g = dy.row(i).cwiseAbs().cwiseProduct(k.scale.row(i).cwiseAbs());
    if (c.gamma) g += dy.row(i).cwiseAbs().cwiseProduct(p.gamma.cwiseAbs());
    const M xh = k.x_hat.row(i).cwiseAbs();
    double direct = 0;  // the dz beta (or dz) part of dx
    for (long h = 0; h < c.heads; ++h) {
      const long b = h * w;
      for (long j = b; j < b + w; ++j) {
        if (c.beta == seed::BetaForm::dot) {
          double dz = 0, zsum = 0;
          for (long l = b; l < b + w; ++l) {
            dz += 1.2 * a(l) * q(0, l);
            zsum += std::abs(x(i, l) * p.beta(0, l));
          }
          dalpha(0, j) += std::abs(norm::activate(c.sigma, k.z(i, h))) * q(0, j);
          dbeta(0, j) += dz * std::abs(x(i, j));
          direct = std::max(direct, dz * beta_max + k.r(i, 0) * dy.row(i).cwiseAbs().maxCoeff() *
                                                        1.2 * a(j) * zsum);
        } else if (c.beta == seed::BetaForm::elementwise) {
          const double dz = 1.2 * a(j) * q(0, j);
          dalpha(0, j) += std::abs(norm::activate(c.sigma, k.z(i, j))) * q(0, j);
          dbeta(0, j) += dz * std::abs(x(i, j));
          direct = std::max(direct, dz * beta_max);
        } else {
          const double head_q = q.row(0).segment(b, w).sum();
          dalpha(0, j) += std::abs(norm::activate(c.sigma, k.z(i, j))) * head_q;
          direct = std::max(direct, 1.2 * a(j) * head_q);
        }
      }
    }
    sx = std::max(sx,
                  k.r(i, 0) * (g.maxCoeff() + xh.maxCoeff() * g.cwiseProduct(xh).mean()) + direct);
  }
  std::vector<double> s{sx};
  if (c.alpha == seed::AlphaForm::vector) s.push_back(dalpha.maxCoeff());
  if (c.alpha == seed::AlphaForm::scalar) s.push_back(dalpha.sum());
  if (c.beta != seed::BetaForm::none) s.push_back(dbeta.maxCoeff());
  if (c.gamma) s.push_back(column_abs_sum(dy.cwiseProduct(k.x_hat)));
  return s;
}

}  // namespace scaleref::test
