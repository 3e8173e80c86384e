// The plain fully-connected layer y = W x (sdd eq. 1), the baseline SDD is
// compared with, for a batch of rows: x [N, d_in], W [d_out, d_in] (PyTorch's
// nn.Linear layout), y = x W^T [N, d_out]. Backward (sdd eq. 4, 23, 32):
//   dW = dy^T x,   dx = dy W.
#pragma once

#include <scaleref/linalg.hpp>
#include <scaleref/norm/common.hpp>
#include <scaleref/spec/linear.hpp>

namespace scaleref::linear {

template <class S>
struct Params {
  Mat<S> W;  // [d_out, d_in]
};

template <class S>
struct Cache {
  Mat<S> x;
};

template <class S>
struct Grads {
  Mat<S> dx, dW;
};

// y = x W^T, written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "linear::forward";
  norm::check_input(where, x);
  require(p.W.rows() > 0 && p.W.cols() == x.cols(), where, "expected W [d_out x ", x.cols(),
          "] for x ", shape_str(x), ", got W ", shape_str(p.W));
  require(norm::all_finite(p.W), where, "expected a finite W, got a non-finite entry");
  k.x = x;
  matmul(x, p.W.transpose(), y);
}

template <class S>
Mat<S> forward(const Params<S>& p, const Mat<S>& x, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, x, y, cache ? *cache : local);
  return y;
}

// Written into grads (resized).
template <class S>
void backward(const Params<S>& p, const Cache<S>& k, const Mat<S>& dy, Grads<S>& g) {
  constexpr const char* where = "linear::backward";
  require(k.x.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  norm::check_grad_output(where, dy, k.x.rows(), p.W.rows());
  matmul(dy, p.W, g.dx);
  matmul(dy.transpose(), k.x, g.dW);
}

template <class S>
Grads<S> backward(const Params<S>& p, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, k, dy, g);
  return g;
}

}  // namespace scaleref::linear
