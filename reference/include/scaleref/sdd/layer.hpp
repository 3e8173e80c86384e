// The Scale-Distribution Decoupled fully-connected layer (sdd eq. 2-3):
//
//   z = V x,   y = alpha (.) norm(z),   norm(z) = z / sqrt(mean_i z_i^2 + eps)
//
// for a batch of rows: x [N, d_in], V [d_out, d_in] (rectangular allowed; the
// paper writes n x n), alpha [1, d_out], z = x V^T and y [N, d_out]. The
// paper's norm has no eps (Config::paper(), the default); the authors' code
// uses 1e-5 or 1e-6 (Config::authors_code()). With eps = 0, y is invariant to
// V -> k V and to x -> k x for every k > 0.
#pragma once

#include <array>
#include <scaleref/linalg.hpp>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/sdd.hpp>

namespace scaleref::sdd {

// Config and kParams (the weight-decay data): scaleref/spec/sdd.hpp.

template <class S>
struct Params {
  Mat<S> V;      // [d_out, d_in]: the direction ("distribution")
  Mat<S> alpha;  // [1, d_out]: the scale
};

template <class S>
struct Cache {
  Mat<S> x;      // [N, d_in]
  Mat<S> z_hat;  // [N, d_out]: norm(z)
  Mat<S> r;      // [N, 1]: 1 / sqrt(mean(z^2) + eps)
};

template <class S>
struct Grads {
  Mat<S> dx, dV, dalpha;
  Mat<S> dz;  // [N, d_out]: dL/dz (scratch)
};

// y = alpha (.) norm(x V^T), written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "sdd::forward";
  norm::check_input(where, x);
  require(p.V.rows() > 0 && p.V.cols() == x.cols(), where, "expected V [d_out x ", x.cols(),
          "] for x ", shape_str(x), ", got V ", shape_str(p.V));
  require(norm::all_finite(p.V), where, "expected a finite V, got a non-finite entry");
  norm::check_row_param(where, "alpha", p.alpha, p.V.rows());
  norm::check_eps(where, c.eps);
  k.x = x;
  Mat<S>& z = k.z_hat;  // z, for now
  matmul(x, p.V.transpose(), z);
  norm::inverse_rms("sdd::forward (V x)", z, c.eps, k.r);
  y.resize(z.rows(), z.cols());
  for_each_row(z.rows(), z.cols(), [&](Eigen::Index i) {
    k.z_hat.row(i) *= k.r(i, 0);
    y.row(i) = k.z_hat.row(i).cwiseProduct(p.alpha);
  });
}

template <class S>
Mat<S> forward(const Params<S>& p, const Config& c, const Mat<S>& x, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, c, x, y, cache ? *cache : local);
  return y;
}

// Exact gradients, per row, with g = dy (.) alpha and r = 1 / RMS(z):
//   dalpha = sum over rows of dy (.) norm(z)                       (eq. 5, 24)
//   dz     = r (g - z_hat mean(g z_hat)) = J_norm^T g             (eq. 28: J_norm
//            = (1/RMS(z)) (I - z z^T / (n RMS(z)^2)), symmetric; eps in r only)
//   dV     = dz^T x  (sum over rows of dz_i x_i^T)                 (eq. 29, exact)
//   dx     = dz V
// At eps = 0, z_i . dz_i = 0 for every row, hence <dV, V>_F = 0 and
// x_i . dx_i = 0: the gradient has no component along the directions that
// only rescale V or x. Eq. 31 and 33 replace 1 / RMS(z) by
// 1 / (||V||_F ||x||_RMS) (and drop a factor); those approximations are the
// paper audit's business, not this layer's.
// Written into grads (resized).
template <class S>
void backward(const Params<S>& p, const Config&, const Cache<S>& k, const Mat<S>& dy, Grads<S>& g) {
  constexpr const char* where = "sdd::backward";
  require(k.x.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  norm::check_grad_output(where, dy, k.z_hat.rows(), k.z_hat.cols());
  const Eigen::Index n = dy.rows(), d = dy.cols();
  g.dz.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    norm::rms_normalize_backward<S>(k.r(i, 0), dy.row(i).cwiseProduct(p.alpha), k.z_hat.row(i),
                                    g.dz.row(i));
  });
  col_sum_product(dy, k.z_hat, g.dalpha);
  matmul(g.dz.transpose(), k.x, g.dV);
  matmul(g.dz, p.V, g.dx);
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

}  // namespace scaleref::sdd
