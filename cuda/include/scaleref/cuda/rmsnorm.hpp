// RMSNorm on the GPU (reference: reference/include/scaleref/norm/rmsnorm.hpp),
// one row x of an [N, D] matrix at a time:
//
//   y = gamma (.) x / RMS(x),   RMS(x) = sqrt(mean_i x_i^2 + eps)
//
// With heads = H > 1 each of the H equal column blocks of a row is normalized
// on its own (its own RMS): the head-wise n_h of the scale-vector paper's DNP
// placement. gamma may be absent (no gain): the plain x / RMS(x) of SDD's
// norm and of the Pre-Norm the scale-vector placements feed.
//
// Storage T is double, float or bf16 for x, y, gamma and the gradients; the
// row statistics and the gradient sums accumulate in Acc<T>. forward keeps
// 1 / RMS per row and head in the Cache for backward:
//
//   g = dy (.) gamma,  dx = r (g - x_hat mean(g (.) x_hat)),  dgamma = sum_rows dy (.) x_hat
//
// with r = 1 / RMS and x_hat = r x. dgamma is reduced over rows in a fixed
// order (partials/launch.hpp): the same bits on every run. y may be x and dx
// may be dy (each entry is read before it is written, by the same thread).
// Bad shapes, strides, heads or eps are a scaleref::Error. A row whose
// mean square + eps the accumulator cannot hold gives NaN in y (and dx), never
// a wrong finite number: a sum of squares above the largest finite number
// (in float about 3.4e38: an RMS above about 1.8e19 / sqrt(D)), or at eps = 0
// an all-zero row or one whose mean square is below the smallest normal number
// (detail/device.cuh, inverse_sqrt_or_nan). dgamma, a sum over rows, is then
// NaN too. The reference scales such rows exactly or raises an Error; a kernel
// cannot raise.
#pragma once

#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/spec/rmsnorm.hpp>

namespace scaleref::cuda::rmsnorm {

struct Config {
  double eps = scaleref::norm::rmsnorm::Config{}.eps;
  int heads = 1;  // normalize each of `heads` equal column blocks separately
};

template <class T>
struct Params {
  const T* gamma = nullptr;  // [D]; nullptr: no gain (gamma = 1)
};

template <class T>
struct Cache {
  DeviceBuffer<Acc<T>> rstd;  // [N * heads]: 1 / RMS of each row's heads, row-major
};

template <class T>
struct Grads {
  T* dgamma = nullptr;  // [D]; nullptr: not wanted (or no gamma)
};

template <class T>
void forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y, Cache<T>* cache,
             Stream stream = nullptr);

template <class T>
void backward(const Params<T>& p, const Config& c, const Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws,
              Stream stream = nullptr);

}  // namespace scaleref::cuda::rmsnorm
