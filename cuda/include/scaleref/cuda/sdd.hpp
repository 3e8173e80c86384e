// The Scale-Distribution Decoupled layer on the GPU (sdd eq. 2-3; reference:
// reference/include/scaleref/sdd/layer.hpp):
//
//   z = x V^T  (cuBLAS),   y = alpha (.) z / sqrt(mean_i z_i^2 + eps)
//
// The norm-and-scale epilogue is RMSNorm with gain alpha (rmsnorm.hpp), one
// fused pass over z; a GEMM epilogue cannot take it, since it needs the
// whole row's statistic. backward:
//
//   dz = rmsnorm backward of dy with gain alpha  (dalpha = sum_rows dy (.) z_hat)
//   dV = dz^T x,   dx = dz V                     (cuBLAS)
//
// eps = 0 is the paper's norm (Config default, as the reference's); a row of
// z that is all zero then gives NaN (the reference raises an Error).
#pragma once

#include <scaleref/cuda/blas.hpp>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/spec/sdd.hpp>

namespace scaleref::cuda::sdd {

struct Config {
  double eps = scaleref::sdd::Config{}.eps;
};

template <class T>
struct Params {
  Rows<const T> V;           // [d_out, d_in]
  const T* alpha = nullptr;  // [d_out], required
};

template <class T>
struct Cache {
  DeviceBuffer<T> z;       // [N, d_out]: x V^T, dense
  rmsnorm::Cache<T> norm;  // 1 / RMS(z) per row
  DeviceBuffer<T> dz;      // backward's scratch [N, d_out]
};

template <class T>
struct Grads {
  Rows<T> dV;           // [d_out, d_in]; data == nullptr: not wanted
  T* dalpha = nullptr;  // [d_out]; nullptr: not wanted
};

template <class T>
void forward(Blas& blas, const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y,
             Cache<T>* cache, Stream stream = nullptr);

// dx.data == nullptr: dx not wanted. The cache's dz is overwritten.
template <class T>
void backward(Blas& blas, const Params<T>& p, const Config& c, Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws,
              Stream stream = nullptr);

}  // namespace scaleref::cuda::sdd
