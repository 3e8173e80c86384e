// The scale-vector placements on the GPU (reference, with the formulas and
// the project's reading of the paper: reference/include/scaleref/scalevec/
// linear.hpp). For x [N, d_in], W [d_out, d_in], n(x) = x / RMS(x) row by row,
// RMS(x) = sqrt(mean_i x_i^2 + eps):
//
//   none      y = n(x) W^T
//   standard  y = (g (.) n(x)) W^T                  (standard Pre-Norm)
//   AP        y = a (.) (n(x) W^T)                  (after-placement)
//   DP        y = a (.) ((g (.) n(x)) W^T)          (dual placement)
//   DNP       y = a (.) n_h((g (.) n(x)) W^T)       (n_h: each of `heads` column
//                                                    blocks normalized, same eps)
//   MD        y = (g(r, u) (.) n(x)) W^T,  g(r, u) = r u / RMS(u), no eps in RMS(u)
//   HG        y_b = (g_b (.) n(x)) W_b^T for branches b sharing one n(x)
//
// Composed from these pieces, each one pass over its matrix:
//   - RMSNorm's fused norm-and-scale kernels (rmsnorm.hpp): s = g (.) n(x)
//     (no gain for none and AP), DNP's a (.) n_h(z) (gain a, heads), and MD's
//     u / RMS(u) (a 1 x d_in row, eps = 0); their backward gives dx with dg,
//     DNP's dz with da, and MD's du;
//   - cuBLAS: z = s W^T, dW = dz^T s, ds = dz W (blas.hpp);
//   - one column-scaling kernel: AP's and DP's y = a (.) z, with backward
//     dz = a (.) dy and da = sum_rows dy (.) z; it also gives MD's
//     g(r, u) = r u_hat and dr = sum_k dg_k u_hat_k (u_hat as a d_in x 1 matrix
//     whose one column r scales);
//   - for HG's dx, one elementwise sum of the branches' shares, in branch order.
// Parameter gradients reduce over rows in a fixed order (per-block partial
// rows, then a second pass that adds them in block order; no atomics), so a
// backward gives the same bits on every run.
//
// Storage T is double, float or bf16 for every input, output and cached
// intermediate; sums accumulate in Acc<T>. Every matrix is a Rows view with its
// own row stride (x, y, dx, dy, W, dW); the intermediates the cache keeps are
// dense. Bad input (shapes, a parameter the strategy reads but that is absent,
// a gradient asked for a parameter it does not read, heads not dividing d_out
// for DNP, eps < 0) is a scaleref::Error naming the function, raised before
// any CUDA call. A row with mean square + eps = 0, or u = 0 for MD, gives
// inf/NaN (the reference raises an Error; a kernel cannot).
#pragma once

#include <cstdint>
#include <scaleref/cuda/blas.hpp>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/spec/scalevec.hpp>
#include <vector>

namespace scaleref::cuda::scalevec {

// The strategies, their names and parameter rules: scaleref/spec/scalevec.hpp.
using scaleref::scalevec::kStrategies;
using scaleref::scalevec::Strategy;
using scaleref::scalevec::strategy_name;
using scaleref::scalevec::uses_a;
using scaleref::scalevec::uses_g;

struct Config {
  Strategy strategy = scaleref::scalevec::Config{}.strategy;
  double eps = scaleref::scalevec::Config{}.eps;
  int heads = static_cast<int>(
      scaleref::scalevec::Config{}.heads);  // DNP only: n_h's column blocks; must divide d_out
};

// Device pointers; those the strategy does not read may stay nullptr.
template <class T>
struct Params {
  Rows<const T> W;       // [d_out, d_in]
  const T* g = nullptr;  // [d_in]   standard, DP, DNP
  const T* a = nullptr;  // [d_out]  AP, DP, DNP
  const T* r = nullptr;  // [1]      MD: magnitude
  const T* u = nullptr;  // [d_in]   MD: direction
};

// What forward keeps for backward, and backward's scratch. Buffers are sized
// on first use and reused while the shapes stay the same.
template <class T>
struct Cache {
  rmsnorm::Cache<T> nx;   // 1 / RMS(x) per row
  DeviceBuffer<T> s;      // [N, d_in]: g (.) n(x) (none, AP: n(x)), the GEMM's input
  DeviceBuffer<T> z;      // [N, d_out]: s W^T (AP, DP, DNP; the others write it to y)
  rmsnorm::Cache<T> nz;   // DNP: 1 / RMS of each head of each row of z
  DeviceBuffer<T> u_hat;  // MD: [d_in] u / RMS(u)
  rmsnorm::Cache<T> nu;   // MD: 1 / RMS(u)
  DeviceBuffer<T> gv;     // MD: [d_in] g(r, u) = r u_hat
  DeviceBuffer<T> dz;     // backward: [N, d_out] the gradient at z (AP, DP, DNP)
  DeviceBuffer<T> ds;     // backward: [N, d_in] the gradient at s
  DeviceBuffer<T> dgv;    // backward, MD: [d_in] the gradient at g(r, u)
  DeviceBuffer<T> dq;     // backward, MD: [d_in] r dg(r, u), the gradient at u_hat
  // The forward this cache holds (backward checks its call against it).
  Strategy strategy = Strategy::none;
  int heads = 1;
  std::int64_t rows = 0, d_in = 0, d_out = 0;
};

// Gradients to write; a nullptr (dW.data == nullptr) is not wanted. Asking for
// one the strategy has no parameter for is an Error.
template <class T>
struct Grads {
  Rows<T> dW;       // [d_out, d_in]
  T* dg = nullptr;  // [d_in]
  T* da = nullptr;  // [d_out]
  T* dr = nullptr;  // [1]
  T* du = nullptr;  // [d_in]
};

// y [N, d_out]. cache == nullptr: a temporary cache, freed on return.
template <class T>
void forward(Blas& blas, const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y,
             Cache<T>* cache, Stream stream = nullptr);

// dx.data == nullptr: dx not wanted. x is forward's x; the cache's scratch is
// overwritten, what forward stored is kept (backward may run again).
template <class T>
void backward(Blas& blas, const Params<T>& p, const Config& c, Cache<T>& cache, Rows<const T> x,
              Rows<const T> dy, Rows<T> dx, const Grads<T>& g, Workspace& ws,
              Stream stream = nullptr);

// The checks forward and backward run before any CUDA call (their messages
// name forward and backward): a call can be validated without a device.
template <class T>
void check_forward(const Params<T>& p, const Config& c, Rows<const T> x, Rows<T> y);
template <class T>
void check_backward(const Params<T>& p, const Config& c, const Cache<T>& cache, Rows<const T> x,
                    Rows<const T> dy, Rows<T> dx, const Grads<T>& g);

// ---- HG: one shared n(x), a branch-specific input-side g_b per branch ------------------

template <class T>
struct Branch {
  Rows<const T> W;       // [d_out_b, d_in]
  const T* g = nullptr;  // [d_in], required
};

template <class T>
struct BranchGrads {
  Rows<T> dW;       // [d_out_b, d_in]; data == nullptr: not wanted
  T* dg = nullptr;  // [d_in]; nullptr: not wanted
};

template <class T>
struct HGCache {
  rmsnorm::Cache<T> nx;            // 1 / RMS(x) per row, shared by every branch
  std::vector<DeviceBuffer<T>> s;  // per branch [N, d_in]: g_b (.) n(x)
  DeviceBuffer<T> ds;              // backward: [N, d_in] one branch's gradient at s_b
  DeviceBuffer<T> dx_parts;        // backward: each branch's [N, d_in] share of dx
  std::int64_t rows = 0, d_in = 0;
  std::vector<std::int64_t> d_out;  // per branch, from forward
};

// y[b] = (g_b (.) n(x)) W_b^T [N, d_out_b] for every branch, in order. Each
// branch's fused norm-and-scale pass computes the same 1 / RMS(x) (the same
// fixed-order sum, so the same bits); the cache keeps it once.
template <class T>
void forward_hg(Blas& blas, const std::vector<Branch<T>>& branches, double eps, Rows<const T> x,
                const std::vector<Rows<T>>& y, HGCache<T>* cache, Stream stream = nullptr);

// dW_b = dy_b^T s_b, ds_b = dy_b W_b, dg_b = sum_rows ds_b (.) n(x), and
// dx = sum_b dx_b (branches in order, summed in Acc<T>, rounded once), where
// dx_b is RMSNorm's backward of ds_b with gain g_b: the backward of n(x) is
// linear in its output gradient, so this is the reference's
// rms_normalize_backward(sum_b ds_b (.) g_b) up to rounding, and each dx_b is
// bitwise the dx of the "standard" strategy on branch b alone.
template <class T>
void backward_hg(Blas& blas, const std::vector<Branch<T>>& branches, HGCache<T>& cache,
                 Rows<const T> x, const std::vector<Rows<const T>>& dy, Rows<T> dx,
                 const std::vector<BranchGrads<T>>& g, Workspace& ws, Stream stream = nullptr);

template <class T>
void check_forward_hg(const std::vector<Branch<T>>& branches, double eps, Rows<const T> x,
                      const std::vector<Rows<T>>& y);
template <class T>
void check_backward_hg(const std::vector<Branch<T>>& branches, const HGCache<T>& cache,
                       Rows<const T> x, const std::vector<Rows<const T>>& dy, Rows<T> dx,
                       const std::vector<BranchGrads<T>>& g);

}  // namespace scaleref::cuda::scalevec
