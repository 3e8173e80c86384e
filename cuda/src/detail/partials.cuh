// The deterministic second stage of every parameter gradient (internal to
// cuda/src). A backward kernel's block b owns partial row b of a
// [blocks, count] array and adds its rows' contributions into it in row
// order; no two blocks touch one entry and nothing is atomic. The second
// stage adds the partial rows for each column in block order, so the result
// is the same bits on every run. The accumulator is Acc<T>; the result is
// rounded to T once. A scalar parameter (DyT's alpha, a scalar SeeDNorm
// alpha) is a column of its own: each thread sums its entries' terms in a
// register, and the block adds its threads' sums by group_sum's fixed tree.
#pragma once

#include <scaleref/cuda/buffer.hpp>

#include "device.cuh"
#include "launch.hpp"

namespace scaleref::cuda::detail {

// Where a block keeps its running column sums: in shared memory when
// `count` of them fit (then copied out at the end), else straight in its
// partial row in global memory. Either way each sum has one owning thread.
template <class A>
struct Accumulators {
  DevPtr<A> sums;     // count entries: this block's running sums
  DevPtr<A> partial;  // this block's row of the [blocks, count] partials
  bool shared;        // sums lives in shared memory
};

template <class A>
__device__ inline Accumulators<A> block_accumulators(DevPtr<A> partials, i64 count,
                                                     DevPtr<A> shared_mem, bool use_shared) {
  DevPtr<A> mine = partials + i64(blockIdx.x) * count;
  return {use_shared ? shared_mem : mine, mine, use_shared};
}

// The sums are `segments` consecutive segments of `width` entries (a
// parameter's D columns are `heads` segments of D / heads when a kernel walks
// a row head by head). In each segment a thread owns the entries
// first_col<V>() + m col_step<V>() (+ 0 .. V-1), exactly those its row loop
// visits: it zeroes them, adds into them and copies them out, so a block's
// threads never touch one another's sums and need no barrier.
template <int V, class A>
__device__ inline void zero_owned(DevPtr<A> sums, i64 width, i64 segments) {
  for (i64 p = 0; p < segments; ++p)
    for (i64 j = first_col<V>(); j < width; j += col_step<V>())
      for (int k = 0; k < V && j + k < width; ++k) st(sums + (p * width + j + k), A(0));
}

// sums[at] += v: one owning thread's running sum. Under nvcc the compound
// assignment itself (a macro: through a function nvcc fused differently).
#if defined(SCALEREF_CUDA_EMU)
template <class A>
__device__ inline void add_to(DevPtr<A> sums, i64 at, A v SCALEREF_SITE) {
  st(sums + at, ld(sums + at SCALEREF_AT) + v SCALEREF_AT);
}
#else
#define add_to(sums, at, ...) ((sums)[at] += (__VA_ARGS__))
#endif

template <int V, class A>
__device__ inline void copy_owned(const Accumulators<A>& acc, i64 width, i64 segments) {
  if (!acc.shared) return;
  for (i64 p = 0; p < segments; ++p)
    for (i64 j = first_col<V>(); j < width; j += col_step<V>())
      for (int k = 0; k < V && j + k < width; ++k) {
        const i64 at = p * width + j + k;
        st(acc.partial + at, ld(acc.sums + at));
      }
}

// Where each gradient sits in a block's partial row: out[k] gets entries
// offset[k] .. offset[k] + length[k]; an absent out[k] is skipped.
template <class D>
struct Outputs {
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no raw pointer in it
  static constexpr int kMax = 4;
  DevPtr<D> out[kMax] = {};
  i64 offset[kMax] = {}, length[kMax] = {};
  int n = 0;
  void add(D* p, i64 off, i64 len) {
    out[n] = DevPtr<D>(p);
    offset[n] = off;
    length[n] = len;
    ++n;
  }
};

// out[k][c - offset[k]] = sum over blocks b (in order) of partials[b * count + c].
template <class D>
__global__ void sum_partials(DevPtr<const AccT<D>> partials, i64 blocks, i64 count,
                             Outputs<D> outs) {
  for (i64 c = i64(blockIdx.x) * blockDim.x + threadIdx.x; c < count;
       c += i64(gridDim.x) * blockDim.x) {
    for (int k = 0; k < outs.n; ++k) {
      if (!outs.out[k] || c < outs.offset[k] || c >= outs.offset[k] + outs.length[k]) continue;
      AccT<D> s = 0;
      for (i64 b = 0; b < blocks; ++b) s += ld(partials + (b * count + c));
      st(outs.out[k] + (c - outs.offset[k]), narrow<D>(s));
    }
  }
}

template <class D>
void launch_sum_partials(const AccT<D>* partials, i64 blocks, i64 count, const Outputs<D>& outs,
                         cudaStream_t stream) {
  const i64 grid = std::min({(count + 255) / 256, kMaxBlocks, grid_limit("cuda::sum_partials")});
  launch<sum_partials<D>>(static_cast<unsigned>(grid), 256, 0, stream, partials, blocks, count,
                          outs);
  check_launch("cuda::sum_partials");
}

// launch.hpp's kStaticSharedBytes bounds the static shared memory of every row
// kernel, which is group_sum's scratch.
static_assert(32 * sizeof(ScratchRow<double>) <= kStaticSharedBytes);

// Bytes of shared memory one block of the current device may opt in to.
inline std::size_t opt_in_shared_bytes(const char* where) {
  int device = 0, bytes = 0;
  const cudaError_t e = cudaGetDevice(&device);
  require(e == cudaSuccess, where, "cudaGetDevice failed: ", cudaGetErrorString(e));
  const cudaError_t f =
      cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  require(f == cudaSuccess, where, "cudaDeviceGetAttribute failed: ", cudaGetErrorString(f));
  return static_cast<std::size_t>(bytes);
}

// Where a backward call keeps its parameter-gradient sums: `count` per block
// in the workspace's [blocks, count] partials, the first `shared_count` of
// them in shared memory when sums_in_shared (launch.hpp) says they fit beside
// the `extra_smem` bytes the kernel needs anyway.
template <class A>
struct PartialPlan {
  A* partials = nullptr;  // nullptr: no parameter gradient wanted
  bool shared = false;    // the sums live in shared memory
  std::size_t smem = 0;   // dynamic shared memory to launch with
};

template <class A>
PartialPlan<A> plan_partials(const char* where, Workspace& ws, i64 blocks, i64 count,
                             i64 shared_count, std::size_t extra_smem = 0) {
  PartialPlan<A> plan;
  plan.partials = static_cast<A*>(ws.get(static_cast<std::size_t>(blocks * count) * sizeof(A)));
  const std::size_t sums = static_cast<std::size_t>(shared_count) * sizeof(A);
  plan.shared = sums_in_shared(sums, extra_smem, opt_in_shared_bytes(where));
  plan.smem = (plan.shared ? sums : 0) + extra_smem;
  return plan;
}

// Lets `kernel` launch with `smem` bytes of dynamic shared memory: beyond what
// a launch gets without asking (kLaunchSharedBytes with the kernel's own
// static shared memory), the kernel must opt in first.
template <class... Args>
void allow_dynamic_shared(const char* where, void (*kernel)(Args...), std::size_t smem) {
  if (smem + kStaticSharedBytes <= kLaunchSharedBytes) return;
  const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(smem));
  require(e == cudaSuccess, where, "cannot give the kernel ", smem,
          " bytes of shared memory: ", cudaGetErrorString(e));
}

}  // namespace scaleref::cuda::detail
