// Weight rescaling kernels (formulas and conventions: scaleref/cuda/rescale.hpp).
//
// The statistics, each a per-block pass and a one-block second pass:
//   extremes_kernel   min W and max W of each block's entries (NaN if it has one)
//   finish_extremes   min, max over the blocks; e with max |W| 2^-e in [1/2, 1)
//   sums_kernel       sum of W 2^-e, or of (W 2^-e - m)^2, per block, in double
//   finish_sum        the blocks' sums added in block order: the sum and m = sum / n,
//                     or the sum of squares
// then the host reads them (one copy, one synchronization) and queues
//   affine_kernel     out = ((w - mu) / sigma) target + mu    (ZWR, TVR)
//   divide_kernel     out = w / ||W||_F                       (UWR)
// or a cudaMemcpy2DAsync (the authors' TVR under its threshold: an exact copy).
//
// Work split. The n = rows x cols entries, in row-major order, are cut into
// `blocks` contiguous ranges of `chunk` entries (the last may be shorter);
// blocks and chunk depend on n alone, so the order of every sum does too.
// Block b's thread t visits entries b chunk + t, + kThreads, + 2 kThreads, ...
// of its range, tracking (row, column) without a division per entry, so any
// row stride is followed. A thread sums its entries in order; the block's
// threads' sums are combined by a fixed tree (warp butterfly, then one warp over
// the warps' sums).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <scaleref/cuda/rescale.hpp>
#include <scaleref/error.hpp>
#include <scaleref/random/portable_math.hpp>

#include "detail/device.cuh"
#include "detail/launch.hpp"

namespace scaleref::cuda::rescale {

namespace {

using namespace detail;

constexpr int kThreads = 256;                 // per block, every kernel here
constexpr i64 kMinEntriesPerBlock = 1 << 14;  // 64 entries per thread before a second block
constexpr i64 kMaxRescaleBlocks = 1024;       // partial sums per statistic, at most

// The entries' split into blocks (see the file comment).
struct Layout {
  using kernel_args = void;  // a kernel parameter (kernel.hpp): no pointer in it
  i64 n = 0, cols = 0;
  i64 chunk = 0;                     // entries per block; the last block may have fewer
  i64 step_rows = 0, step_cols = 0;  // kThreads entries = step_rows rows + step_cols columns
  unsigned blocks = 0;
};

Layout layout_of(i64 rows, i64 cols, i64 max_blocks) {
  Layout l;
  l.n = rows * cols;
  l.cols = cols;
  const i64 want = std::clamp<i64>((l.n + kMinEntriesPerBlock - 1) / kMinEntriesPerBlock, 1,
                                   std::min(kMaxRescaleBlocks, max_blocks));
  l.chunk = (l.n + want - 1) / want;
  l.blocks = static_cast<unsigned>((l.n + l.chunk - 1) / l.chunk);  // each block has entries
  l.step_rows = kThreads / cols;
  l.step_cols = kThreads % cols;
  return l;
}

// This thread's entries of its block's range, in visiting order.
struct Cursor {
  i64 k, end, i, j;
  __device__ explicit Cursor(const Layout& l) {
    const i64 begin = i64(blockIdx.x) * l.chunk;
    end = begin + l.chunk < l.n ? begin + l.chunk : l.n;
    k = begin + threadIdx.x;
    i = k / l.cols;
    j = k - i * l.cols;
  }
  __device__ bool more() const { return k < end; }
  __device__ void next(const Layout& l) {
    k += kThreads;
    i += l.step_rows;
    j += l.step_cols;  // < 2 cols: at most one carry
    if (j >= l.cols) {
      j -= l.cols;
      ++i;
    }
  }
  __device__ i64 at(i64 stride) const { return i * stride + j; }
};

// The statistics as the device leaves them for the host (and the next pass),
// copied to the host whole: no padding, and finish_extremes writes every field
// (compute-sanitizer's initcheck on an H200 reported the copy of the 4 bytes
// after an int e, and of sum and mean, which the norm's path left unwritten).
struct DeviceStats {
  double lo, hi;   // min W and max W (NaN when W holds a NaN)
  long long e;     // max |W| 2^-e in [1/2, 1); 0 for W = 0 or a non-finite W
  double sum;      // sum of W 2^-e (0 when not computed: the norm's path)
  double mean;     // sum / n: the mean of W 2^-e (0 when not computed)
  double squares;  // sum of (W 2^-e - mean)^2, or of (W 2^-e)^2 for the norm
};
static_assert(sizeof(DeviceStats) == 6 * 8, "DeviceStats has padding the host would copy");

constexpr std::size_t kStatsBytes = 256;  // DeviceStats, padded: the partials follow aligned
static_assert(sizeof(DeviceStats) <= kStatsBytes, "DeviceStats outgrew its slot");

__device__ inline double load_double(double v) { return v; }
__device__ inline double load_double(float v) { return v; }
__device__ inline double load_double(__nv_bfloat16 v) { return __bfloat162float(v); }

// NaN-propagating min and max: a NaN anywhere makes the result NaN.
struct MinOp {
  __device__ double operator()(double a, double b) const { return (a < b || a != a) ? a : b; }
};
struct MaxOp {
  __device__ double operator()(double a, double b) const { return (a > b || a != a) ? a : b; }
};
struct SumOp {
  __device__ double operator()(double a, double b) const { return a + b; }
};

// op over the block's kThreads values, by a fixed tree; the result is thread
// 0's. Every thread of the block must call it.
template <class Op>
__device__ double block_reduce(double v, Op op, DevPtr<double> scratch) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  constexpr unsigned warps = kThreads / 32;
  if (lane == 0) st(scratch + warp, v);
  __syncthreads();
  if (warp == 0) {
    v = ld(scratch + lane % warps);
#pragma unroll
    for (unsigned offset = warps / 2; offset > 0; offset >>= 1)
      v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));  // lanes < warps combine among themselves
  }
  __syncthreads();  // scratch may be written again by the next call
  return v;
}

template <class D>
__global__ void __launch_bounds__(kThreads)
    extremes_kernel(DevRows<const D> w, Layout l, DevPtr<double> lo_partials,
                    DevPtr<double> hi_partials) {
  SCALEREF_SHARED(double, scratch, 32);
  double lo = INFINITY, hi = -INFINITY;
  for (Cursor c(l); c.more(); c.next(l)) {
    const double v = load_double(ld(w.data + c.at(w.stride)));
    lo = MinOp{}(lo, v);
    hi = MaxOp{}(hi, v);
  }
  lo = block_reduce(lo, MinOp{}, scratch);
  hi = block_reduce(hi, MaxOp{}, scratch);
  if (threadIdx.x == 0) {
    st(lo_partials + blockIdx.x, lo);
    st(hi_partials + blockIdx.x, hi);
  }
}

__global__ void __launch_bounds__(kThreads)
    finish_extremes(DevPtr<const double> lo_partials, DevPtr<const double> hi_partials,
                    unsigned blocks, DevPtr<DeviceStats> stats) {
  SCALEREF_SHARED(double, scratch, 32);
  double lo = INFINITY, hi = -INFINITY;
  for (unsigned b = threadIdx.x; b < blocks; b += kThreads) {
    lo = MinOp{}(lo, ld(lo_partials + b));
    hi = MaxOp{}(hi, ld(hi_partials + b));
  }
  lo = block_reduce(lo, MinOp{}, scratch);
  hi = block_reduce(hi, MaxOp{}, scratch);
  if (threadIdx.x == 0) {
    st(field(stats, &DeviceStats::lo), lo);
    st(field(stats, &DeviceStats::hi), hi);
    int e = 0;
    const double largest = -lo > hi ? -lo : hi;  // max |W| = max(-min W, max W)
    if (isfinite(lo) && isfinite(hi) && largest > 0) frexp(largest, &e);
    st(field(stats, &DeviceStats::e), static_cast<long long>(e));
    st(field(stats, &DeviceStats::sum), 0.0);  // finish_sum's, where it runs
    st(field(stats, &DeviceStats::mean), 0.0);
    st(field(stats, &DeviceStats::squares), 0.0);
  }
}

// Per block: sum of W 2^-e (kSquares false) or of (W 2^-e - m)^2 (kSquares
// true; m = stats->mean when centered, else 0).
template <class D, bool kSquares>
__global__ void __launch_bounds__(kThreads)
    sums_kernel(DevRows<const D> w, Layout l, DevPtr<const DeviceStats> stats, bool centered,
                DevPtr<double> partials) {
  SCALEREF_SHARED(double, scratch, 32);
  const int e = static_cast<int>(ld(field(stats, &DeviceStats::e)));
  const double m = centered ? ld(field(stats, &DeviceStats::mean)) : 0.0;
  double acc = 0;
  for (Cursor c(l); c.more(); c.next(l)) {
    const double v =
        ldexp(load_double(ld(w.data + c.at(w.stride))), -e);  // exact (as the reference)
    if constexpr (kSquares) {
      const double d = v - m;
      acc = __fma_rn(d, d, acc);
    } else {
      acc += v;
    }
  }
  acc = block_reduce(acc, SumOp{}, scratch);
  if (threadIdx.x == 0) st(partials + blockIdx.x, acc);
}

// The blocks' sums in block order (a fixed tree over kThreads strided sums).
// squares false: stats->sum and stats->mean = sum / n; true: stats->squares.
__global__ void __launch_bounds__(kThreads)
    finish_sum(DevPtr<const double> partials, unsigned blocks, double n, bool squares,
               DevPtr<DeviceStats> stats) {
  SCALEREF_SHARED(double, scratch, 32);
  double s = 0;
  for (unsigned b = threadIdx.x; b < blocks; b += kThreads) s += ld(partials + b);
  s = block_reduce(s, SumOp{}, scratch);
  if (threadIdx.x == 0) {
    if (squares) {
      st(field(stats, &DeviceStats::squares), s);
    } else {
      st(field(stats, &DeviceStats::sum), s);
      st(field(stats, &DeviceStats::mean), __ddiv_rn(s, n));
    }
  }
}

// out = ((w - mean) / std) target + mean, each operation rounded as the reference's.
template <class D>
__global__ void __launch_bounds__(kThreads)
    affine_kernel(DevRows<const D> w, DevRows<D> out, Layout l, double mean, double std,
                  double target) {
  for (Cursor c(l); c.more(); c.next(l)) {
    const double v = load_double(ld(w.data + c.at(w.stride)));
    const double z = __ddiv_rn(__dsub_rn(v, mean), std);  // eq. 19
    st(out.data + c.at(out.stride), detail::from_double<D>(__dadd_rn(__dmul_rn(z, target), mean)));
  }
}

// out = w / norm (eq. 17).
template <class D>
__global__ void __launch_bounds__(kThreads)
    divide_kernel(DevRows<const D> w, DevRows<D> out, Layout l, double norm) {
  for (Cursor c(l); c.more(); c.next(l)) {
    const double v = load_double(ld(w.data + c.at(w.stride)));
    st(out.data + c.at(out.stride), detail::from_double<D>(__ddiv_rn(v, norm)));
  }
}

// ---- host side --------------------------------------------------------------

void check_cuda(cudaError_t e, const char* where, const char* call) {
  require(e == cudaSuccess, where, call, " failed: ", cudaGetErrorString(e));
}

// The statistics as the host reads them.
struct HostStats {
  double lo, hi;
  int e;
  double sum, mean_scaled, squares;
};

// W's extremes, and either its centered sums (centered: sum, mean and squared
// deviations) or its sum of squares (the norm). One synchronization.
template <class T>
HostStats reduce(const char* where, Rows<const T> w, bool centered, Workspace& ws, Stream stream) {
  const Layout l = layout_of(w.rows, w.cols, grid_limit(where));
  const std::size_t partial_bytes = std::size_t(l.blocks) * sizeof(double);
  auto* base = static_cast<unsigned char*>(ws.get(kStatsBytes + 2 * partial_bytes));
  auto* st = reinterpret_cast<DeviceStats*>(base);
  auto* lo_partials = reinterpret_cast<double*>(base + kStatsBytes);
  auto* hi_partials = lo_partials + l.blocks;
  const auto x = dev(w);
  const double n = static_cast<double>(l.n);  // exact: n < 2^53

  launch<extremes_kernel<Dev<T>>>(l.blocks, kThreads, 0, stream, x, l, lo_partials, hi_partials);
  check_launch(where);
  launch<finish_extremes>(1, kThreads, 0, stream, lo_partials, hi_partials, l.blocks, st);
  check_launch(where);
  if (centered) {
    launch<sums_kernel<Dev<T>, false>>(l.blocks, kThreads, 0, stream, x, l, st, false, lo_partials);
    check_launch(where);
    launch<finish_sum>(1, kThreads, 0, stream, lo_partials, l.blocks, n, false, st);
    check_launch(where);
  }
  launch<sums_kernel<Dev<T>, true>>(l.blocks, kThreads, 0, stream, x, l, st, centered, lo_partials);
  check_launch(where);
  launch<finish_sum>(1, kThreads, 0, stream, lo_partials, l.blocks, n, true, st);
  check_launch(where);

  DeviceStats host{};
  check_cuda(cudaMemcpyAsync(&host, st, sizeof host, cudaMemcpyDeviceToHost, stream), where,
             "cudaMemcpyAsync of the statistics");
  check_cuda(cudaStreamSynchronize(stream), where, "the reductions (cudaStreamSynchronize)");
  return {host.lo, host.hi, static_cast<int>(host.e), host.sum, host.mean, host.squares};
}

template <class T>
void check_input(const char* where, Rows<const T> w) {
  check_view(where, "W", w);
}

// out is W itself or lies apart from it.
template <class T>
void check_output(const char* where, Rows<const T> w, Rows<T> out) {
  check_view(where, "out", out);
  check_same_shape(where, "W", w, "out", out);
  if (out.data == w.data && out.stride == w.stride) return;  // in place
  const auto first = [](auto v) { return reinterpret_cast<std::uintptr_t>(v.data); };
  const auto last = [](auto v) {  // one past the last entry
    return reinterpret_cast<std::uintptr_t>(v.data + (v.rows - 1) * v.stride + v.cols);
  };
  require(last(out) <= first(w) || last(w) <= first(out), where,
          "expected out to be W itself (same data and stride) or not to overlap it");
}

void check_target(const char* where, const char* name, double sigma) {
  require(std::isfinite(sigma) && sigma > 0, where, "expected ", name, " > 0 and finite, got ",
          sigma);
}

template <class T>
void check_count(const char* where, Rows<const T> w, StdKind kind) {
  require(kind == StdKind::population || w.rows * w.cols >= 2, where,
          "expected at least 2 entries for the unbiased std (it divides by n - 1), got W [", w.rows,
          "x", w.cols, "]");
}

template <class T>
void check_finite(const char* where, Rows<const T> w, const HostStats& s) {
  require(std::isfinite(s.lo) && std::isfinite(s.hi), where,
          "expected a finite W, got a non-finite entry (NaN or infinity) in W [", w.rows, "x",
          w.cols, "]");
}

// mu(W) and sigma(W) from the sums, as metrics::mean_std finishes them.
// A W whose entries are all equal has mean that value and std exactly 0, as
// metrics::mean_std gives it.
template <class T>
Moments moments_of(Rows<const T> w, const HostStats& s, StdKind kind) {
  if (s.lo == s.hi) return {s.lo, 0.0};
  const double n = static_cast<double>(w.rows * w.cols);
  const double divisor = kind == StdKind::unbiased ? n - 1 : n;
  return {std::ldexp(s.mean_scaled, s.e), std::ldexp(std::sqrt(s.squares / divisor), s.e)};
}

// Whether W has a spread z-scores can use: metrics::has_spread, in double.
template <class T>
bool spread(Rows<const T> w, const HostStats& s, const Moments& m) {
  return metrics::has_spread(s.lo, s.hi, m.std, static_cast<double>(w.rows * w.cols), 0x1p-53);
}

// Whether v is finite once rounded to T (double -> float -> bf16 for bf16).
template <class T>
bool fits(double v) {
  if constexpr (std::is_same_v<T, double>) {
    return std::isfinite(v);
  } else {
    if (!(std::abs(v) < 0x1p128)) return false;  // beyond float's range (or NaN)
    return std::isfinite(cuda::to_double(cuda::from_double<T>(v)));
  }
}

// The kernel's map of one entry, with the same operations (never fused).
double affine(double v, const Moments& m, double target) {
  namespace pm = random::portable;
  return pm::add(pm::mul(pm::div(pm::sub(v, m.mean), m.std), target), m.mean);
}

template <class T>
void to_target(const char* where, Rows<const T> w, Rows<T> out, const HostStats& s,
               const Moments& m, double target, Stream stream) {
  // The map is increasing (std, target > 0), so its extremes are the images of min and max W.
  for (double v : {s.lo, s.hi}) {
    const double image = affine(v, m, target);
    require(fits<T>(image), where, "the rescaled W overflows ", dtype_name(dtype_of<T>()),
            ": the entry ", v, " maps to ", image, " (target std ", target, ", mean ", m.mean,
            ", std ", m.std, ")");
  }
  const Layout l = layout_of(w.rows, w.cols, grid_limit(where));
  launch<affine_kernel<Dev<T>>>(l.blocks, kThreads, 0, stream, dev(w), dev(out), l, m.mean, m.std,
                                target);
  check_launch(where);
}

template <class T>
void copy(const char* where, Rows<const T> w, Rows<T> out, Stream stream) {
  if (out.data == w.data) return;  // in place: already W
  check_cuda(cudaMemcpy2DAsync(out.data, std::size_t(out.stride) * sizeof(T), w.data,
                               std::size_t(w.stride) * sizeof(T), std::size_t(w.cols) * sizeof(T),
                               std::size_t(w.rows), cudaMemcpyDeviceToDevice, stream),
             where, "cudaMemcpy2DAsync (the unchanged W)");
}

// ZWR and TVR (paper): W <- z target + mu(W), with nonzero spread.
template <class T>
Outcome to_target_std(const char* where, const char* target_name, Rows<const T> w, Rows<T> out,
                      double target, StdKind kind, Workspace& ws, Stream stream) {
  check_target(where, target_name, target);
  check_input(where, w);
  check_output(where, w, out);
  check_count(where, w, kind);
  const HostStats s = reduce(where, w, true, ws, stream);
  check_finite(where, w, s);
  const Moments m = moments_of(w, s, kind);
  require(s.lo != s.hi, where, "expected W with a nonzero standard deviation, got all ",
          w.rows * w.cols, " entries of W [", w.rows, "x", w.cols, "] equal to ", s.lo,
          ": its z-scores (eq. 19) are undefined");
  require(spread(w, s, m), where,
          "expected W with a nonzero standard deviation, got a spread at rounding level: std ",
          m.std, " <= (n + 4) u max|W| for the ", w.rows * w.cols, " entries of W [", w.rows, "x",
          w.cols, "] (from ", s.lo, " to ", s.hi,
          "): its z-scores (eq. 19) would be rounding noise");
  to_target(where, w, out, s, m, target, stream);
  return {true, m.mean, m.std, target};
}

}  // namespace

template <class T>
Moments moments(Rows<const T> w, StdKind kind, Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::rescale::moments";
  check_input(where, w);
  check_count(where, w, kind);
  const HostStats s = reduce(where, w, true, ws, stream);
  check_finite(where, w, s);
  return moments_of(w, s, kind);
}

template <class T>
double frobenius_norm(Rows<const T> w, Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::rescale::frobenius_norm";
  check_input(where, w);
  const HostStats s = reduce(where, w, false, ws, stream);
  check_finite(where, w, s);
  return std::ldexp(std::sqrt(s.squares), s.e);
}

template <class T>
Outcome uwr(Rows<const T> w, Rows<T> out, Workspace& ws, Stream stream) {
  constexpr const char* where = "cuda::rescale::uwr";
  check_input(where, w);
  check_output(where, w, out);
  const HostStats s = reduce(where, w, false, ws, stream);
  check_finite(where, w, s);
  const double norm = std::ldexp(std::sqrt(s.squares), s.e);
  require(norm > 0, where, "expected W != 0, got an all-zero W [", w.rows, "x", w.cols,
          "]: ||W||_F = 0 cannot be rescaled to 1");
  const Layout l = layout_of(w.rows, w.cols, grid_limit(where));
  launch<divide_kernel<Dev<T>>>(l.blocks, kThreads, 0, stream, dev(w), dev(out), l, norm);
  check_launch(where);
  return {true, 0.0, norm, 0.0};
}

template <class T>
Outcome zwr(Rows<const T> w, Rows<T> out, double sigma_init, StdKind kind, Workspace& ws,
            Stream stream) {
  return to_target_std("cuda::rescale::zwr", "sigma_init", w, out, sigma_init, kind, ws, stream);
}

template <class T>
Outcome tvr(Rows<const T> w, Rows<T> out, double sigma_target, StdKind kind, Workspace& ws,
            Stream stream) {
  return to_target_std("cuda::rescale::tvr", "sigma_target", w, out, sigma_target, kind, ws,
                       stream);
}

template <class T>
Outcome tvr_authors_code(Rows<const T> w, Rows<T> out, const AuthorsTvr& c, Workspace& ws,
                         Stream stream) {
  constexpr const char* where = "cuda::rescale::tvr_authors_code";
  check_target(where, "sigma_target", c.sigma_target);
  require(std::isfinite(c.threshold) && c.threshold >= 1, where,
          "expected threshold >= 1 and finite (the authors' TVR rescales when "
          "std / sigma_target > threshold and so only shrinks; below 1 it would also grow W), got ",
          c.threshold);
  require(!c.depth_scaled || c.layer >= 1, where,
          "expected layer >= 1 (decoder layers count from l = 1, as LIR's 1 / sqrt(l) does), "
          "got ",
          c.layer);
  check_input(where, w);
  check_output(where, w, out);
  check_count(where, w, StdKind::unbiased);
  // The reference's target_at: sigma_target / sqrt(l) when depth-scaled.
  const double target =
      c.depth_scaled ? c.sigma_target / std::sqrt(static_cast<double>(c.layer)) : c.sigma_target;
  const HostStats s = reduce(where, w, true, ws, stream);
  check_finite(where, w, s);
  const Moments m = moments_of(w, s, StdKind::unbiased);
  Outcome o{false, m.mean, m.std, target};
  o.rescaled = spread(w, s, m) && m.std / target > c.threshold;  // strictly, as their code
  if (o.rescaled) {
    to_target(where, w, out, s, m, target, stream);
  } else {
    copy(where, w, out, stream);
  }
  return o;
}

#define SCALEREF_INSTANTIATE(T)                                                               \
  template Moments moments<T>(Rows<const T>, StdKind, Workspace&, Stream);                    \
  template double frobenius_norm<T>(Rows<const T>, Workspace&, Stream);                       \
  template Outcome uwr<T>(Rows<const T>, Rows<T>, Workspace&, Stream);                        \
  template Outcome zwr<T>(Rows<const T>, Rows<T>, double, StdKind, Workspace&, Stream);       \
  template Outcome tvr<T>(Rows<const T>, Rows<T>, double, StdKind, Workspace&, Stream);       \
  template Outcome tvr_authors_code<T>(Rows<const T>, Rows<T>, const AuthorsTvr&, Workspace&, \
                                       Stream);
SCALEREF_INSTANTIATE(double)
SCALEREF_INSTANTIATE(float)
SCALEREF_INSTANTIATE(bf16)
#undef SCALEREF_INSTANTIATE

}  // namespace scaleref::cuda::rescale
