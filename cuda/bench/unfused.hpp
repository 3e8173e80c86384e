// The unfused baselines cuda_bench compares every fused kernel with: the
// same math, written as a framework without fusion would run it, one simple
// kernel per elementwise op, row reduction or column reduction, each reading
// its inputs from and writing its output to device memory (host API).
//
// Rules every baseline follows, so that the comparison measures fusion and
// nothing else:
//   - every [R, D] intermediate is stored in the storage type T (as a
//     framework at that dtype would store it); row statistics ([R] or
//     [R * heads]) are kept in the accumulator Acc<T>, as the fused kernels
//     keep them;
//   - reductions accumulate in Acc<T> in a fixed order (a block tree per row;
//     columns in two stages over chunks of 64 rows), so reruns give the same
//     bits, like the fused kernels' parameter gradients;
//   - temporaries come from Work, allocated before timing (a framework's
//     caching allocator does the same), so no call allocates.
// The kernel sequence of each op is listed beside its function in unfused.cu.
// Inputs and outputs are dense [rows, cols] device arrays.
#pragma once

#include <cstdint>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/types.hpp>

namespace scaleref::cuda::bench::unfused {

using i64 = std::int64_t;

// Temporaries for one shape: [R, D] intermediates of type T, [R * heads]
// statistics of type Acc<T>, and the column reductions' partial sums.
template <class T>
class Work {
 public:
  static constexpr int kTemps = 5, kRowBuffers = 4;
  void reserve(i64 rows, i64 cols, int heads);
  T* tmp(int k) { return tmp_[k].data(); }
  Acc<T>* row(int k) { return row_[k].data(); }
  Acc<T>* partials() { return partials_.data(); }

 private:
  DeviceBuffer<T> tmp_[kTemps];
  DeviceBuffer<Acc<T>> row_[kRowBuffers];
  DeviceBuffer<Acc<T>> partials_;
};

// Kernel launches made so far by the functions below (the report's count).
std::int64_t launches();

// RMSNorm, y = gamma x r, r = 1 / sqrt(mean x^2 + eps); rstd: [R] out / in.
template <class T>
void rmsnorm_forward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* gamma, double eps, T* y,
                     Acc<T>* rstd, Stream s);
template <class T>
void rmsnorm_backward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* dy, const T* gamma,
                      const Acc<T>* rstd, T* dx, T* dgamma, Stream s);

// LayerNorm with gamma and beta; mean, rstd: [R].
template <class T>
void layernorm_forward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* gamma, const T* beta,
                       double eps, T* y, Acc<T>* mean, Acc<T>* rstd, Stream s);
template <class T>
void layernorm_backward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* dy, const T* gamma,
                        const Acc<T>* mean, const Acc<T>* rstd, T* dx, T* dgamma, T* dbeta,
                        Stream s);

// DyT, y = gamma tanh(alpha x) + beta with alpha a device scalar.
template <class T>
void dyt_forward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* alpha, const T* gamma,
                 const T* beta, T* y, Stream s);
template <class T>
void dyt_backward(Work<T>& w, i64 rows, i64 cols, const T* x, const T* dy, const T* alpha,
                  const T* gamma, T* dx, T* dalpha, T* dgamma, T* dbeta, Stream s);

// SeeDNorm with `heads` heads, vector alpha, dot beta, tanh (seednorm eq. 4, 7);
// rstd: [R], z: [R * heads].
template <class T>
void seednorm_forward(Work<T>& w, i64 rows, i64 cols, int heads, const T* x, const T* alpha,
                      const T* beta, const T* gamma, double eps, T* y, Acc<T>* rstd, Acc<T>* z,
                      Stream s);
template <class T>
void seednorm_backward(Work<T>& w, i64 rows, i64 cols, int heads, const T* x, const T* dy,
                       const T* alpha, const T* beta, const T* gamma, const Acc<T>* rstd,
                       const Acc<T>* z, T* dx, T* dalpha, T* dbeta, T* dgamma, Stream s);

}  // namespace scaleref::cuda::bench::unfused
