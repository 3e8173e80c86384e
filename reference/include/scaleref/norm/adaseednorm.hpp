// AdaSeeDNorm, SeeDNorm conditioned on c (seednorm eq. 8), for diffusion
// transformers in the style of adaLN:
//
//   AdaSeeDNorm(x, c) = [(sigma(x . beta^T) alpha + 1) (.) x / RMS(x)] (.) (1 + gamma(c)) + eta(c)
//
// gamma(c) and eta(c) come from the condition (an MLP of c, outside this
// layer): they are inputs here, one [N, D] row per row of x; broadcast a
// per-sample vector over its tokens before the call. The bracket is SeeDNorm
// with its gain fixed at 1 (Config::gamma is ignored), so every SeeDNorm form
// (heads, alpha and beta forms, sigma) carries over.
#pragma once

#include <scaleref/norm/seednorm.hpp>
#include <scaleref/spec/seednorm.hpp>

namespace scaleref::norm::adaseednorm {

// Config (SeeDNorm's), kParams, kConditions: scaleref/spec/seednorm.hpp.

template <class S>
struct Params {
  Mat<S> alpha, beta;  // as in SeeDNorm
};

template <class S>
Params<S> init(Eigen::Index d, const Config& c = {}) {
  const seednorm::Params<S> p = seednorm::init<S>(d, c);
  return {p.alpha, p.beta};
}

template <class S>
struct Cache {
  seednorm::Params<S> params;  // alpha, beta and the gain 1, as the bracket reads them
  seednorm::Cache<S> inner;
  Mat<S> u;           // [N, D]: the bracket, SeeDNorm with gamma = 1
  Mat<S> one_plus_g;  // [N, D]: 1 + gamma(c)
};

template <class S>
struct Grads {
  Mat<S> dx, dalpha, dbeta, dgamma_c, deta_c;
  Mat<S> dy_inner;           // dy (.) (1 + gamma(c)), the bracket's output gradient (scratch)
  seednorm::Grads<S> inner;  // the bracket's gradients (scratch)
};

namespace detail {

inline Config gain_one(Config c) {
  c.gamma = true;  // the "+ 1" of eq. 8, held fixed
  return c;
}

}  // namespace detail

// y = AdaSeeDNorm(x, c), written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, const Mat<S>& gamma_c,
             const Mat<S>& eta_c, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "adaseednorm::forward";
  check_input(where, x);
  seednorm::detail::check_config(where, c, x.cols());
  k.params.alpha = p.alpha;
  k.params.beta = p.beta;
  k.params.gamma.setOnes(1, x.cols());
  seednorm::detail::check_params(where, detail::gain_one(c), k.params, x.cols());
  for (const auto& [name, m] : {std::pair{"gamma(c)", &gamma_c}, std::pair{"eta(c)", &eta_c}}) {
    require(m->rows() == x.rows() && m->cols() == x.cols(), where, "expected ", name,
            " shaped like x ", shape_str(x), ", got ", shape_str(*m));
    require(all_finite(*m), where, "expected a finite ", name, ", got a non-finite entry");
  }
  seednorm::forward(k.params, detail::gain_one(c), x, k.u, k.inner);
  k.one_plus_g = (gamma_c.array() + S(1)).matrix();
  y = k.u.cwiseProduct(k.one_plus_g) + eta_c;
}

template <class S>
Mat<S> forward(const Params<S>& p, const Config& c, const Mat<S>& x, const Mat<S>& gamma_c,
               const Mat<S>& eta_c, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, c, x, gamma_c, eta_c, y, cache ? *cache : local);
  return y;
}

// deta_c = dy,  dgamma_c = dy (.) u,  and SeeDNorm's backward (gain 1) with
// dy (.) (1 + gamma(c)) for dx, dalpha, dbeta; written into grads (resized).
template <class S>
void backward(const Params<S>&, const Config& c, const Cache<S>& k, const Mat<S>& dy, Grads<S>& g) {
  constexpr const char* where = "adaseednorm::backward";
  require(k.u.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  check_grad_output(where, dy, k.u.rows(), k.u.cols());
  g.dy_inner = dy.cwiseProduct(k.one_plus_g);
  seednorm::backward(k.params, detail::gain_one(c), k.inner, g.dy_inner, g.inner);
  g.dx = g.inner.dx;
  g.dalpha = g.inner.dalpha;
  g.dbeta = g.inner.dbeta;
  g.dgamma_c = dy.cwiseProduct(k.u);
  g.deta_c = dy;
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

}  // namespace scaleref::norm::adaseednorm
