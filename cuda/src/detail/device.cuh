// Device-side building blocks every row kernel shares (internal to cuda/src):
//
//   - the device type of a storage type and the conversions to and from its
//     accumulator (bf16 <-> float, round to nearest even);
//   - Pack<T, V>: V consecutive entries loaded or stored in one 16-byte access
//     when the row is aligned, entry by entry for a row's ragged tail;
//   - group_sum (and group_max): the sum (maximum) of one value over the
//     threads that share a row, by a fixed tree (warp butterfly, then one warp
//     over the warps' results), so every thread gets the same bits and a rerun
//     gives the same bits again.
//
// Launch shape (Geometry, launch.hpp): blockDim = (group, rows_per_block). The
// `group` threads of one threadIdx.y share a row; group is a power of two in
// [32, 1024]. Rows are visited in a grid-stride loop that every thread of a
// block runs the same number of times (a thread past the last row computes
// zeros), so group_sum's __syncthreads are reached by all.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <scaleref/cuda/kernel.hpp>
#include <scaleref/cuda/types.hpp>
#include <scaleref/error.hpp>
#include <type_traits>

namespace scaleref::cuda::detail {

using i64 = std::int64_t;

template <class T>
struct DeviceType {
  using type = T;
};
template <>
struct DeviceType<bf16> {
  using type = __nv_bfloat16;
};
// The type kernels see for a storage type (bf16 -> __nv_bfloat16).
template <class T>
using Dev = typename DeviceType<T>::type;

template <class T>
struct AccOf {
  using type = float;
};
template <>
struct AccOf<double> {
  using type = double;
};
// The accumulator of a device storage type (the same rule as types.hpp's Acc).
template <class D>
using AccT = typename AccOf<D>::type;

__device__ inline float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ inline float widen(float v) { return v; }
__device__ inline double widen(double v) { return v; }

template <class D>
__device__ D narrow(AccT<D> a);
template <>
__device__ inline __nv_bfloat16 narrow<__nv_bfloat16>(float a) {
  return __float2bfloat16_rn(a);
}
template <>
__device__ inline float narrow<float>(float a) {
  return a;
}
template <>
__device__ inline double narrow<double>(double a) {
  return a;
}

// A double rounded to storage type D the way the host's from_double does
// (types.hpp): bf16 through float, each step to nearest even.
template <class D>
__device__ D from_double(double v);
template <>
__device__ inline double from_double<double>(double v) {
  return v;
}
template <>
__device__ inline float from_double<float>(double v) {
  return __double2float_rn(v);
}
template <>
__device__ inline __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __float2bfloat16_rn(__double2float_rn(v));
}

// An accumulator's range: its smallest normal and largest finite number, and
// its unit roundoff.
template <class A>
struct Limits;
template <>
struct Limits<float> {
  static constexpr float smallest = 0x1p-126f, largest = 0x1.fffffep+127f, roundoff = 0x1p-24f;
  __device__ static float nan() { return nanf(""); }
};
template <>
struct Limits<double> {
  static constexpr double smallest = 0x1p-1022, largest = 0x1.fffffffffffffp+1023,
                          roundoff = 0x1p-53;
  __device__ static double nan() { return ::nan(""); }
};

// 1 / sqrt(t), t a row's mean square + eps (RMS) or variance + eps (LayerNorm),
// with IEEE sqrt and division (not the approximate rsqrt); or NaN where the
// accumulator cannot give it:
//   - t above the largest finite number: the sum of squares overflowed (in
//     float an RMS above about 1.8e19 / sqrt(D), in double 1.3e154 / sqrt(D)),
//     and 1 / sqrt(inf) = 0 would have made y = 0;
//   - t below the smallest normal number (only at a tiny eps, e.g. eps = 0):
//     an all-zero row, whose RMS is 0, or a row whose squares lost their digits
//     in the subnormals. At or above it the subnormal squares' rounding, at most
//     half the smallest subnormal each, moves t by at most one unit roundoff.
// The reference scales such rows (norm::inverse_rms_of) or raises an Error; a
// kernel cannot raise, and gives NaN rather than a wrong finite number.
template <class D>
__device__ inline AccT<D> inverse_sqrt_or_nan(AccT<D> t) {
  using A = AccT<D>;
  return t >= Limits<A>::smallest && t <= Limits<A>::largest ? A(1) / sqrt(t) : Limits<A>::nan();
}

// 16 bytes as one scalar: a store of it is one 128-bit st (store, below).
// unsigned __int128 is an extension of GCC's and nvcc's; __extension__ keeps
// -Wpedantic quiet.
__extension__ typedef unsigned __int128 Bits128;

// V consecutive entries, aligned so one access moves all of them.
template <class D, int V>
struct alignas(sizeof(D) * V) Pack {
  D v[V];
};

// Entries j .. j + V - 1 of a row of width w, widened to the accumulator;
// entries at or past w read as 0. The vector access needs p + j aligned to
// sizeof(D) * V, which the host guarantees when it picks V > 1.
template <int V, class D>
__device__ inline void load(DevPtr<const D> p, i64 j, i64 w, AccT<D> (&out)[V] SCALEREF_SITE) {
  if (j + V <= w) {
    const Pack<D, V> pk = ld(ptr_cast<const Pack<D, V>*>(p + j) SCALEREF_AT);
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = widen(pk.v[v]);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = j + v < w ? widen(ld(p + j + v SCALEREF_AT)) : AccT<D>(0);
  }
}

// A parameter vector that may be absent: reads as `absent` then.
template <int V, class D>
__device__ inline void load_or(DevPtr<const D> p, i64 j, i64 w, AccT<D> absent,
                               AccT<D> (&out)[V] SCALEREF_SITE) {
  if (p) {
    load<V>(p, j, w, out SCALEREF_AT);
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v) out[v] = absent;
  }
}

// A 16-byte Pack is stored as one Bits128, which nvcc stores in one 128-bit
// st: stored as the Pack itself (or as a uint4, a struct too), it was split
// into 2-8 stores in some kernels (SeeDNorm's dx, and a forward whose writing
// pass walks a row back to front: scripts/cuda_ptx.py), while the same
// kernels' loads stayed 128-bit.
template <int V, class D>
__device__ inline void store(DevPtr<D> p, i64 j, i64 w, const AccT<D> (&in)[V] SCALEREF_SITE) {
  if (j + V <= w) {
    Pack<D, V> pk;
#pragma unroll
    for (int v = 0; v < V; ++v) pk.v[v] = narrow<D>(in[v]);
    if constexpr (sizeof(Pack<D, V>) == sizeof(Bits128)) {
      using Bits =
          std::conditional_t<sizeof(D) == 2, std::uint16_t,
                             std::conditional_t<sizeof(D) == 4, std::uint32_t, std::uint64_t>>;
      Bits128 words = 0;  // entry v at bytes v sizeof(D) (both ends are little-endian)
#pragma unroll
      for (int v = 0; v < V; ++v) {
        Bits b;
        memcpy(&b, &pk.v[v], sizeof b);
        words |= static_cast<Bits128>(b) << (8 * sizeof(D) * v);
      }
      const DevPtr<Bits128> q = ptr_cast<Bits128*>(p + j);
      st(q, words SCALEREF_AT);
    } else {
      const DevPtr<Pack<D, V>> q = ptr_cast<Pack<D, V>*>(p + j);
      st(q, pk SCALEREF_AT);
    }
  } else {
#pragma unroll
    for (int v = 0; v < V; ++v)
      if (j + v < w) st(p + j + v, narrow<D>(in[v]) SCALEREF_AT);
  }
}

// The two reductions a row needs: a sum (the statistics) and a maximum.
struct Add {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct Max {
  template <class A>
  __device__ A operator()(A a, A b) const {
    return fmax(a, b);  // NaN only when both are NaN
  }
};

// op over the 32 lanes of a warp by a butterfly: every lane combines the same
// pairs, so every lane holds the same bits.
template <class A, class Op>
__device__ inline A warp_reduce(A v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Room group_reduce needs: 32 partial results for each of up to 32 groups
// per block, [group][warp]. A kernel declares it with
// SCALEREF_SHARED(ScratchRow<A>, scratch, 32).
template <class A>
using ScratchRow = A[32];

// op over v of the `group` threads of this threadIdx.y (identity: op's
// neutral value). Every thread of the block must call it (it may synchronize
// the block).
template <class A, class Op>
__device__ inline A group_reduce(A v, DevPtr<ScratchRow<A>> s, Op op, A identity) {
  v = warp_reduce(v, op);
  if (blockDim.x <= 32) return v;  // the group is one warp
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned warps = blockDim.x >> 5;
  // this group's row, spelled at each use as the 2-D index it stands for
  // (naming it once moved a read of threadIdx.y in nvcc's code)
  if (lane == 0) st(ptr_cast<A*>(s + threadIdx.y) + warp, v);
  __syncthreads();
  v = lane < warps ? ld(ptr_cast<A*>(s + threadIdx.y) + lane) : identity;
  v = warp_reduce(v, op);
  __syncthreads();  // the scratch may be written again by the next call
  return v;
}

template <class A>
__device__ inline A group_sum(A v, DevPtr<ScratchRow<A>> s) {
  return group_reduce(v, s, Add{}, A(0));
}

template <class A>
__device__ inline A group_max(A v, DevPtr<ScratchRow<A>> s) {
  return group_reduce(v, s, Max{}, -Limits<A>::largest);
}

// The rows this block visits, in the order it visits them: row() for the
// current step, active() when that row exists. Every thread of the block runs
// the same number of steps. Under a row split into `slices` (partials.cuh's
// RowSplit), the grid's blocks go in groups of `slices` consecutive blocks,
// each group one row at a time, and the groups' rows are those of a grid of
// gridDim.x / slices blocks.
struct RowLoop {
  i64 rows, base, step;
  __device__ explicit RowLoop(i64 n, int slices = 1)
      : rows(n),
        base(i64(blockIdx.x / unsigned(slices)) * blockDim.y),
        step(i64(gridDim.x / unsigned(slices)) * blockDim.y) {}
  __device__ bool more() const { return base < rows; }
  __device__ void next() { base += step; }
  __device__ i64 row() const { return base + threadIdx.y; }
  __device__ bool active() const { return row() < rows; }
};

// First column this thread handles in a row and the step to its next one.
template <int V>
__device__ inline i64 first_col() {
  return i64(threadIdx.x) * V;
}
template <int V>
__device__ inline i64 col_step() {
  return i64(blockDim.x) * V;
}

// The last column this thread handles in a row of width w (its columns are
// first_col, first_col + col_step, ...), or -1 where it has none: where a
// pass walks its columns back to front.
template <int V>
__device__ inline i64 last_col(i64 w) {
  const i64 j = first_col<V>();
  return j < w ? j + (w - 1 - j) / col_step<V>() * col_step<V>() : -1;
}

// A pass over this thread's columns of a row of width w in either order:
// for (i64 j = pass_start<V>(w, back); j >= 0 && j < w; j += pass_step<V>(back)).
template <int V>
__device__ inline i64 pass_start(i64 w, bool back) {
  return back ? last_col<V>(w) : first_col<V>();
}
template <int V>
__device__ inline i64 pass_step(bool back) {
  return back ? -col_step<V>() : col_step<V>();
}

// The first `cols` entries of a row segment that a forward reads more than
// once, kept in shared memory (in the storage type) by the pass that reads
// them first, for the passes after it (launch.hpp's stash_columns). The
// entry at c is kept at keep[c], and each thread keeps and reads back only
// the entries it loads itself, so no barrier orders the two. cols is a
// multiple of V: an access of V entries is kept whole or not at all.
template <class D>
struct RowStash {
  DevPtr<D> keep;
  i64 cols;  // 0: nothing kept
};

// The bytes a stash of `cols` entries of `entry_bytes` takes, rounded up to
// 16: where a kernel's other dynamic shared memory starts after it.
__host__ __device__ inline i64 stash_bytes(i64 cols, i64 entry_bytes) {
  return (cols * entry_bytes + 15) / 16 * 16;
}

// load<V>(p, j, w, out) that also keeps the entries in the stash, at c, where
// they fall in it (narrow<D>(widen(v)) is v for every number, so the later
// passes read x's own values; a bf16 NaN may come back with another payload).
template <int V, class D>
__device__ inline void load_keep(DevPtr<const D> p, i64 j, i64 w, const RowStash<D>& s, i64 c,
                                 AccT<D> (&out)[V] SCALEREF_SITE) {
  load<V>(p, j, w, out SCALEREF_AT);
  if (c < s.cols) store<V>(s.keep, c, s.cols, out SCALEREF_AT);
}

// load<V>(p, j, w, out) from the stash where load_keep kept the entries.
template <int V, class D>
__device__ inline void load_kept(DevPtr<const D> p, i64 j, i64 w, const RowStash<D>& s, i64 c,
                                 AccT<D> (&out)[V] SCALEREF_SITE) {
  if (c < s.cols)
    load<V>(DevPtr<const D>(s.keep), c, s.cols, out SCALEREF_AT);
  else
    load<V>(p, j, w, out SCALEREF_AT);
}

// The parts [p0, p1) of `part` entries each that a forward's block walks of
// a row taken in parts (partials.cuh's RowSplit): its own in a cluster of
// the row's blocks, all of them where a block takes the whole row.
struct RowParts {
  i64 part, p0, p1;
};

// A forward's first pass over the block's parts of the row at xr: the sum of
// f(v) over their entries, each part's a group_sum, the parts' added in part
// order from the first; the entries go to the stash (load_keep) at their
// column counted from the block's first part. Every thread of the block
// calls it (`on`: its row exists).
template <int V, class D, class F>
__device__ inline AccT<D> parts_first_pass(DevPtr<const D> xr, const RowParts& rp,
                                           const RowStash<D>& stash, bool on,
                                           DevPtr<ScratchRow<AccT<D>>> scratch, F f) {
  using A = AccT<D>;
  A total = 0;
  for (i64 p = rp.p0; p < rp.p1; ++p) {
    A s = 0;
    if (on)
      for (i64 j = first_col<V>(); j < rp.part; j += col_step<V>()) {
        A v[V];
        load_keep<V>(xr + p * rp.part, j, rp.part, stash, (p - rp.p0) * rp.part + j, v);
#pragma unroll
        for (int k = 0; k < V; ++k) s += f(v[k]);
      }
    s = group_sum(s, scratch);
    total = p == rp.p0 ? s : total + s;
  }
  return total;
}

// The device view of a host view (bf16 -> __nv_bfloat16; the same bits).
// A launch converts it to the kernel's DevRows (kernel.hpp).
template <class T>
Rows<Dev<T>> dev(Rows<T> r) {
  return {reinterpret_cast<Dev<T>*>(r.data), r.rows, r.cols, r.stride};
}
template <class T>
Rows<const Dev<T>> dev(Rows<const T> r) {
  return {reinterpret_cast<const Dev<T>*>(r.data), r.rows, r.cols, r.stride};
}
template <class T>
Dev<T>* dev(T* p) {
  return reinterpret_cast<Dev<T>*>(p);
}
template <class T>
const Dev<T>* dev(const T* p) {
  return reinterpret_cast<const Dev<T>*>(p);
}

// One attribute of the current device; an Error naming `where` if the
// runtime cannot say.
inline int device_attribute(const char* where, cudaDeviceAttr attr) {
  int device = 0, value = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&value, attr, device);
  require(e == cudaSuccess, where, "cannot read device attribute ", static_cast<int>(attr), ": ",
          cudaGetErrorString(e));
  return value;
}

// The most blocks a grid may have along x on this device, for the launch
// rules' max_blocks (launch.hpp): 2^31 - 1 on every CUDA GPU, fewer on the
// emulator when told so (SCALEREF_EMU_MAX_GRID_X).
inline i64 grid_limit(const char* where) { return device_attribute(where, cudaDevAttrMaxGridDimX); }

// Runs f(std::integral_constant<int, V>{}) for the vector width V the host
// picked: 1, or the 16-byte width of T.
template <class T, class F>
void with_vector_width(int V, F&& f) {
  constexpr int wide = static_cast<int>(16 / sizeof(T));
  if (V == wide) {
    f(std::integral_constant<int, wide>{});
  } else {
    f(std::integral_constant<int, 1>{});
  }
}

// Runs f(std::bool_constant<split>{}): a kernel's instantiation with a row
// split (kSplit) or without.
template <class F>
void with_split(bool split, F&& f) {
  if (split) {
    f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// Dynamic shared memory, one declaration for every kernel (kernels of
// different types must not redeclare it with different element types):
// `extern __shared__` under nvcc, the emulator's arena otherwise (kernel.hpp).
SCALEREF_DYNAMIC_SHARED(unsigned char, dynamic_shared);

}  // namespace scaleref::cuda::detail
