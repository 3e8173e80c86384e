// Dynamic Tanh on the GPU (reference: reference/include/scaleref/norm/dyt.hpp):
//
//   y = gamma (.) tanh(alpha x) + beta
//
// alpha is one learned scalar, on the device (a pointer to 1 entry), so a
// training loop never copies it back. backward, with t = tanh(alpha x) and
// u = dy (.) gamma (.) (1 - t^2):
//
//   dx = alpha u,  dalpha = sum_rows sum_cols u (.) x,
//   dgamma = sum_rows dy (.) t,  dbeta = sum_rows dy
//
// reduced over rows (and, for dalpha, columns) in a fixed order. No cache:
// backward recomputes t from x. Storage, aliasing and errors as in rmsnorm.hpp.
#pragma once

#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>

namespace scaleref::cuda::dyt {

template <class T>
struct Params {
  const T* alpha = nullptr;  // [1], required
  const T* gamma = nullptr;  // [D]; nullptr: gamma = 1
  const T* beta = nullptr;   // [D]; nullptr: no bias
};

template <class T>
struct Grads {
  T* dalpha = nullptr;  // [1]; nullptr: not wanted
  T* dgamma = nullptr;  // [D]; nullptr: not wanted
  T* dbeta = nullptr;   // [D]; nullptr: not wanted
};

template <class T>
void forward(const Params<T>& p, Rows<const T> x, Rows<T> y, Stream stream = nullptr);

template <class T>
void backward(const Params<T>& p, Rows<const T> x, Rows<const T> dy, Rows<T> dx, const Grads<T>& g,
              Workspace& ws, Stream stream = nullptr);

}  // namespace scaleref::cuda::dyt
