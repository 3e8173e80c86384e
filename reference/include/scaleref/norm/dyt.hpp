// Dynamic Tanh, DyT (seednorm eq. 3; its authors' code), the normalization-free
// baseline:
//
//   y = gamma (.) tanh(alpha x) + beta
//
// alpha is one learned scalar (initialized to 0.5); gamma the 1 x D weight;
// beta the 1 x D bias, optional (Config::bias).
#pragma once

#include <array>
#include <cmath>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/dyt.hpp>

namespace scaleref::norm::dyt {

// Config and kParams (the weight-decay data): scaleref/spec/dyt.hpp.

template <class S>
struct Params {
  Mat<S> alpha;  // 1 x 1
  Mat<S> gamma;  // 1 x D
  Mat<S> beta;   // 1 x D; ignored (may be empty) without bias
};

template <class S>
Params<S> init(Eigen::Index d, const Config& c = {}) {
  return {Mat<S>::Constant(1, 1, S(c.alpha_init)), Mat<S>::Ones(1, d),
          c.bias ? Mat<S>(Mat<S>::Zero(1, d)) : Mat<S>()};
}

template <class S>
struct Cache {
  Mat<S> x;  // [N, D]
  Mat<S> t;  // [N, D]: tanh(alpha x)
};

template <class S>
struct Grads {
  Mat<S> dx, dalpha, dgamma, dbeta;  // dalpha 1 x 1; dbeta empty without bias
};

// y = gamma (.) tanh(alpha x) + beta, written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "dyt::forward";
  check_input(where, x);
  check_scalar_param(where, "alpha", p.alpha);
  check_row_param(where, "gamma", p.gamma, x.cols());
  if (c.bias) check_row_param(where, "beta", p.beta, x.cols());
  k.x = x;
  k.t.resize(x.rows(), x.cols());
  y.resize(x.rows(), x.cols());
  const S a = p.alpha(0, 0);
  for_each_row(x.rows(), x.cols(), [&](Eigen::Index i) {
    k.t.row(i) = (a * x.row(i)).array().tanh();
    y.row(i) = k.t.row(i).cwiseProduct(p.gamma);
    if (c.bias) y.row(i) += p.beta;
  });
}

template <class S>
Mat<S> forward(const Params<S>& p, const Config& c, const Mat<S>& x, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, c, x, y, cache ? *cache : local);
  return y;
}

// With u = dy (.) gamma (.) (1 - t^2), t = tanh(alpha x):
//   dx = alpha u,  dalpha = sum of u (.) x over all entries,
//   dgamma = sum over rows of dy (.) t,  dbeta = sum over rows of dy
// written into grads (resized; dbeta emptied without bias).
template <class S>
void backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy,
              Grads<S>& g) {
  constexpr const char* where = "dyt::backward";
  require(k.x.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  check_grad_output(where, dy, k.x.rows(), k.x.cols());
  const Eigen::Index n = dy.rows(), d = dy.cols();
  Mat<S>& u = g.dx;  // u, for now; alpha u at the end
  u.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    u.row(i) =
        (dy.row(i).cwiseProduct(p.gamma).array() * (S(1) - k.t.row(i).array().square())).matrix();
  });
  sum_rows<S>(
      n, 1,
      [&](Eigen::Index i, auto& acc) { acc(0, 0) += u.row(i).cwiseProduct(k.x.row(i)).sum(); },
      g.dalpha);
  col_sum_product(dy, k.t, g.dgamma);
  if (c.bias) {
    col_sum(dy, g.dbeta);
  } else {
    g.dbeta.resize(0, 0);
  }
  for_each_row(n, d, [&](Eigen::Index i) { g.dx.row(i) *= p.alpha(0, 0); });
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

}  // namespace scaleref::norm::dyt
