// LayerNorm on the GPU (reference: reference/include/scaleref/norm/layernorm.hpp):
//
//   mu = mean_i x_i,  var = mean_i (x_i - mu)^2,  x_hat = (x - mu) / sqrt(var + eps)
//   y = gamma (.) x_hat + beta                      (beta optional: Params::beta)
//
// forward takes the mean and the variance in two passes over the row (the
// centred sum, not E[x^2] - mu^2, which cancels) and keeps mu and
// r = 1 / sqrt(var + eps) per row. backward, with g = dy (.) gamma:
//
//   dx = r (g - mean(g) - x_hat mean(g (.) x_hat)),
//   dgamma = sum_rows dy (.) x_hat,  dbeta = sum_rows dy
//
// reduced over rows in a fixed order. Storage, aliasing and errors as in
// rmsnorm.hpp; in addition, at eps = 0 a row without spread (its entries all
// equal, or a std at rounding level: metrics::has_spread, the rule with which
// the reference refuses it) gives NaN, not the +-1 its rounding error would
// normalize to.
#pragma once

#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/spec/layernorm.hpp>

namespace scaleref::cuda::layernorm {

struct Config {
  double eps = scaleref::norm::layernorm::Config{}.eps;
};

template <class T>
struct Params {
  const T* gamma = nullptr;  // [D]; nullptr: gamma = 1
  const T* beta = nullptr;   // [D]; nullptr: no bias
};

template <class T>
struct Cache {
  DeviceBuffer<Acc<T>> mean, rstd;  // [N] each
};

template <class T>
struct Grads {
  T* dgamma = nullptr;  // [D]; nullptr: not wanted
  T* dbeta = nullptr;   // [D]; nullptr: not wanted
};

template <class T>
void forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y, Cache<T>* cache,
             Stream stream = nullptr);

template <class T>
void backward(const Params<T>& p, const Config& c, const Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws,
              Stream stream = nullptr);

}  // namespace scaleref::cuda::layernorm
