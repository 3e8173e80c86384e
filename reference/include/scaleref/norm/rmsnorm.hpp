// RMSNorm (seednorm eq. 2; rescale eq. 5-7), one row x of an [N, D] batch at a time:
//
//   RMS(x) = sqrt(mean_i x_i^2 + eps),   x_hat = x / RMS(x),   y = gamma (.) x_hat
//
// eps sits inside the square root, as both papers write it. With eps = 0 the
// output is exactly invariant to x -> k x for k > 0.
#pragma once

#include <array>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/rmsnorm.hpp>

namespace scaleref::norm::rmsnorm {

// Config and kParams (the weight-decay data): scaleref/spec/rmsnorm.hpp.

template <class S>
struct Params {
  Mat<S> gamma;  // 1 x D gain
};

// gamma = 1 (the papers' and PyTorch's initialization).
template <class S>
Params<S> init(Eigen::Index d) {
  return {Mat<S>::Ones(1, d)};
}

template <class S>
struct Cache {
  Mat<S> x_hat;  // [N, D]
  Mat<S> r;      // [N, 1]: 1 / RMS(x) per row
};

template <class S>
struct Grads {
  Mat<S> dx, dgamma;
};

// y = gamma (.) x / RMS(x), written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "rmsnorm::forward";
  check_input(where, x);
  check_row_param(where, "gamma", p.gamma, x.cols());
  check_eps(where, c.eps);
  inverse_rms(where, x, c.eps, k.r);
  k.x_hat.resize(x.rows(), x.cols());
  y.resize(x.rows(), x.cols());
  for_each_row(x.rows(), x.cols(), [&](Eigen::Index i) {
    k.x_hat.row(i) = x.row(i) * k.r(i, 0);
    y.row(i) = k.x_hat.row(i).cwiseProduct(p.gamma);
  });
}

template <class S>
Mat<S> forward(const Params<S>& p, const Config& c, const Mat<S>& x, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, c, x, y, cache ? *cache : local);
  return y;
}

// With g = dy (.) gamma and r = 1 / RMS(x), per row:
//   dgamma = sum over rows of dy (.) x_hat
//   dx     = r (g - x_hat mean_i(g_i x_hat_i))      (rms_normalize_backward)
// written into grads (resized).
template <class S>
void backward(const Params<S>& p, const Config&, const Cache<S>& k, const Mat<S>& dy, Grads<S>& g) {
  constexpr const char* where = "rmsnorm::backward";
  require(k.x_hat.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  check_grad_output(where, dy, k.x_hat.rows(), k.x_hat.cols());
  const Eigen::Index n = dy.rows(), d = dy.cols();
  g.dx.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    rms_normalize_backward<S>(k.r(i, 0), dy.row(i).cwiseProduct(p.gamma), k.x_hat.row(i),
                              g.dx.row(i));
  });
  col_sum_product(dy, k.x_hat, g.dgamma);
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

}  // namespace scaleref::norm::rmsnorm
