// LayerNorm (seednorm eq. 1; rescale eq. 2-4), one row x of an [N, D] batch at a time:
//
//   mu = mean_i x_i,  var = mean_i (x_i - mu)^2,  x_hat = (x - mu) / sqrt(var + eps)
//   y = gamma (.) x_hat + beta          (beta optional: Config::bias)
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/layernorm.hpp>
#include <scaleref/spec/rescale.hpp>

namespace scaleref::norm::layernorm {

// Config and kParams (the weight-decay data): scaleref/spec/layernorm.hpp.

template <class S>
struct Params {
  Mat<S> gamma;  // 1 x D gain
  Mat<S> beta;   // 1 x D bias; ignored (may be empty) when Config::bias is false
};

// gamma = 1, beta = 0.
template <class S>
Params<S> init(Eigen::Index d, const Config& c = {}) {
  return {Mat<S>::Ones(1, d), c.bias ? Mat<S>(Mat<S>::Zero(1, d)) : Mat<S>()};
}

template <class S>
struct Cache {
  Mat<S> x_hat;  // [N, D]
  Mat<S> r;      // [N, 1]: 1 / sqrt(var + eps)
};

template <class S>
struct Grads {
  Mat<S> dx, dgamma, dbeta;  // dbeta empty without bias
};

// y = gamma (.) x_hat + beta, written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "layernorm::forward";
  check_input(where, x);
  check_row_param(where, "gamma", p.gamma, x.cols());
  if (c.bias) check_row_param(where, "beta", p.beta, x.cols());
  check_eps(where, c.eps);
  const Eigen::Index n = x.rows(), d = x.cols();
  const S inv_d = S(1) / S(static_cast<long>(d));
  k.x_hat.resize(n, d);
  k.r.resize(n, 1);
  for_each_row(n, d, [&](Eigen::Index i) {
    k.x_hat.row(i) = x.row(i).array() - x.row(i).sum() * inv_d;   // centred, for now
    k.r(i, 0) = k.x_hat.row(i).squaredNorm() * inv_d + S(c.eps);  // var + eps, for now
  });
  for (Eigen::Index i = 0; i < n; ++i) {  // errors are thrown outside the parallel loop
    require(k.r(i, 0) > 0, where, "row ", i,
            " has variance + eps = 0 (a constant row, with eps = 0): it cannot be normalized");
    // A constant row's computed variance is the square of its mean's rounding
    // error, not 0: at eps = 0 the same rule as the rescalers' decides.
    if (c.eps == 0) {
      using std::sqrt;
      require(
          metrics::has_spread(S(x.row(i).minCoeff()), S(x.row(i).maxCoeff()), S(sqrt(k.r(i, 0))),
                              static_cast<double>(d), S(std::numeric_limits<S>::epsilon() / 2)),
          where, "row ", i,
          " has no spread (its entries all equal, or a variance at rounding level) and "
          "eps = 0: it cannot be normalized");
    }
  }
  y.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    using std::sqrt;
    k.r(i, 0) = S(1) / sqrt(k.r(i, 0));
    k.x_hat.row(i) *= k.r(i, 0);
    y.row(i) = k.x_hat.row(i).cwiseProduct(p.gamma);
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

// With g = dy (.) gamma and r = 1 / sqrt(var + eps), per row:
//   dx     = r (g - mean_i g_i - x_hat mean_i(g_i x_hat_i))
//   dgamma = sum over rows of dy (.) x_hat,   dbeta = sum over rows of dy
// written into grads (resized; dbeta emptied without bias).
template <class S>
void backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy,
              Grads<S>& g) {
  constexpr const char* where = "layernorm::backward";
  require(k.x_hat.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  check_grad_output(where, dy, k.x_hat.rows(), k.x_hat.cols());
  const Eigen::Index n = dy.rows(), d = dy.cols();
  const S inv_d = S(1) / S(static_cast<long>(d));
  g.dx.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    auto dx = g.dx.row(i);
    dx = dy.row(i).cwiseProduct(p.gamma);  // g, for now
    const S mean_g = dx.sum() * inv_d;
    const S proj = dx.cwiseProduct(k.x_hat.row(i)).sum() * inv_d;
    dx = k.r(i, 0) * ((dx.array() - mean_g).matrix() - proj * k.x_hat.row(i));
  });
  col_sum_product(dy, k.x_hat, g.dgamma);
  if (c.bias) {
    col_sum(dy, g.dbeta);
  } else {
    g.dbeta.resize(0, 0);
  }
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

}  // namespace scaleref::norm::layernorm
