// The normalization family rebuilt from tape primitives, and every method as a
// gradient-check problem in two independent formulations:
//
//   analytic_*  the reference's hand-derived forward and backward (reference/)
//   tape_*      the same function composed from tape primitives; its backward
//               is the tape's reverse sweep, never a call into reference/
//
// A problem's inputs are the spec's inputs(c) (scaleref/spec/): x, then the
// parameters the config has (AdaSeeDNorm: x, alpha, beta, gamma(c), eta(c));
// its output is y.
#pragma once

#include <scaleref/autodiff/tape.hpp>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <string>
#include <vector>

namespace scaleref::autodiff {

// ---- the methods on a tape -------------------------------------------------------------

template <class S>
Var<S> tape_rms_normalize(Tape<S>& t, Var<S> x, double eps) {
  const Var<S> r = t.rsqrt(t.add_constant(t.row_mean(t.square(x)), S(eps)));
  return t.mul_colvec(x, r);
}

template <class S>
Var<S> tape_rmsnorm(Tape<S>& t, Var<S> x, Var<S> gamma, const norm::rmsnorm::Config& c) {
  return t.mul_rowvec(tape_rms_normalize(t, x, c.eps), gamma);
}

// beta is ignored without bias.
template <class S>
Var<S> tape_layernorm(Tape<S>& t, Var<S> x, Var<S> gamma, Var<S> beta,
                      const norm::layernorm::Config& c) {
  const Var<S> centred = t.add_colvec(x, t.neg(t.row_mean(x)));
  const Var<S> r = t.rsqrt(t.add_constant(t.row_mean(t.square(centred)), S(c.eps)));
  const Var<S> y = t.mul_rowvec(t.mul_colvec(centred, r), gamma);
  return c.bias ? t.add_rowvec(y, beta) : y;
}

template <class S>
Var<S> tape_dyt(Tape<S>& t, Var<S> x, Var<S> alpha, Var<S> gamma, Var<S> beta,
                const norm::dyt::Config& c) {
  const Var<S> y = t.mul_rowvec(t.tanh(t.mul_scalar(x, alpha)), gamma);
  return c.bias ? t.add_rowvec(y, beta) : y;
}

template <class S>
Var<S> tape_activation(Tape<S>& t, norm::Activation a, Var<S> z) {
  switch (a) {
    case norm::Activation::tanh:
      return t.tanh(z);
    case norm::Activation::sigmoid:
      return t.sigmoid(z);
    case norm::Activation::hardtanh:
      return t.hardtanh(z);
    case norm::Activation::softsign:
      return t.softsign(z);
    case norm::Activation::gelu_tanh:
      return t.gelu(z);
    case norm::Activation::swish:
      return t.silu(z);
  }
  fail("tape_activation: unknown activation");
}

// SeeDNorm's self-rescaling term sigma(.) alpha as an [N, D] value, head by head.
// alpha / beta are ignored where the config removes them.
template <class S>
Var<S> tape_seednorm_scale(Tape<S>& t, Var<S> x, Var<S> alpha, Var<S> beta,
                           const norm::seednorm::Config& c) {
  using norm::seednorm::AlphaForm;
  using norm::seednorm::BetaForm;
  const Eigen::Index w = t.value(x).cols() / c.heads;
  const Var<S> ones_w = t.constant(Mat<S>::Ones(1, w));
  auto part = [&](Var<S> v, Eigen::Index b) { return c.heads == 1 ? v : t.slice_cols(v, b, w); };
  std::vector<Var<S>> heads;
  for (Eigen::Index h = 0; h < c.heads; ++h) {
    const Eigen::Index b = h * w;
    const Var<S> xh = part(x, b);
    if (c.beta == BetaForm::dot) {  // s_h = sigma(x_h . beta_h^T), an [N, 1] column
      const Var<S> s = tape_activation(t, c.sigma, t.matmul(xh, t.transpose(part(beta, b))));
      const Var<S> spread = t.matmul(s, ones_w);  // [N, w]: s_h on every entry of the head
      if (c.alpha == AlphaForm::vector)
        heads.push_back(t.mul_rowvec(spread, part(alpha, b)));
      else if (c.alpha == AlphaForm::scalar)
        heads.push_back(t.mul_scalar(spread, alpha));
      else
        heads.push_back(spread);
    } else if (c.beta == BetaForm::elementwise) {  // sigma(x (.) beta), entry by entry
      const Var<S> s = tape_activation(t, c.sigma, t.mul_rowvec(xh, part(beta, b)));
      if (c.alpha == AlphaForm::vector)
        heads.push_back(t.mul_rowvec(s, part(alpha, b)));
      else if (c.alpha == AlphaForm::scalar)
        heads.push_back(t.mul_scalar(s, alpha));
      else
        heads.push_back(s);
    } else {  // beta removed: s_h = sigma(x_h) . alpha_h^T
      const Var<S> s = t.matmul(tape_activation(t, c.sigma, xh), t.transpose(part(alpha, b)));
      heads.push_back(t.matmul(s, ones_w));
    }
  }
  return c.heads == 1 ? heads[0] : t.concat_cols(heads);
}

template <class S>
Var<S> tape_seednorm(Tape<S>& t, Var<S> x, Var<S> alpha, Var<S> beta, Var<S> gamma,
                     const norm::seednorm::Config& c) {
  const Var<S> x_hat = tape_rms_normalize(t, x, c.eps);
  const Var<S> y = t.mul(tape_seednorm_scale(t, x, alpha, beta, c), x_hat);
  return c.gamma ? t.add(y, t.mul_rowvec(x_hat, gamma)) : y;
}

template <class S>
Var<S> tape_adaseednorm(Tape<S>& t, Var<S> x, Var<S> alpha, Var<S> beta, Var<S> gamma_c,
                        Var<S> eta_c, const norm::adaseednorm::Config& c) {
  const Var<S> x_hat = tape_rms_normalize(t, x, c.eps);
  const Var<S> u = t.add(t.mul(tape_seednorm_scale(t, x, alpha, beta, c), x_hat), x_hat);
  return t.add(t.mul(u, t.add_constant(gamma_c, S(1))), eta_c);
}

// ---- as gradient-check problems ---------------------------------------------------------

verify::Problem analytic_rmsnorm(const norm::rmsnorm::Config& c);
verify::Problem tape_rmsnorm_problem(const norm::rmsnorm::Config& c);
verify::Problem analytic_layernorm(const norm::layernorm::Config& c);
verify::Problem tape_layernorm_problem(const norm::layernorm::Config& c);
verify::Problem analytic_dyt(const norm::dyt::Config& c);
verify::Problem tape_dyt_problem(const norm::dyt::Config& c);
verify::Problem analytic_seednorm(const norm::seednorm::Config& c);
verify::Problem tape_seednorm_problem(const norm::seednorm::Config& c);
verify::Problem analytic_adaseednorm(const norm::adaseednorm::Config& c);
verify::Problem tape_adaseednorm_problem(const norm::adaseednorm::Config& c);

// The input names of each problem for a config, in order ("x", "alpha", ...).
std::vector<std::string> seednorm_inputs(const norm::seednorm::Config& c);

}  // namespace scaleref::autodiff
