// The deterministic second stage of every parameter gradient (internal to
// cuda/src). A backward kernel's block b sums its rows' contributions in row
// order; no two blocks touch one entry and nothing is atomic. The blocks'
// sums are then added for each column in an order fixed by the block count
// and the vector width V alone, so the result is the same bits on every run
// and on every device:
//   1. the sums of each chunk of sum_chunk(blocks) consecutive blocks
//      (launch.hpp: 8, or the largest power of two dividing the block
//      count), in block order;
//   2. those chunk sums, by sum_partials (8 groups of them, or 8 / V under
//      kFillBlocks chunks, each in order, then the groups in order).
// The workspace holds a partial row per block, [blocks, partial_stride(count)]
// (per row group under a row split, below).
// Step 1 runs in the backward kernel itself where it can (PartialPlan): its
// blocks are launched in thread-block clusters of one chunk, each keeps all
// its column sums in shared memory, and after a cluster barrier block r of a
// cluster adds the cluster's sums of its share of the columns through
// distributed shared memory (finish_sums) into the chunk's first partial
// row; the chunk's other rows hold only their blocks' scalar sums (a
// scalar parameter: finish_scalar), which sum_partials adds as it does
// without clusters. Elsewhere block b writes all of partial row b and
// sum_partials adds each chunk's rows first: the same additions in the same
// order, so the same bits (SCALEREF_CLUSTERS=off forces this path;
// tests/cuda_kernels_test.cpp compares the two). The accumulator is Acc<T>;
// the result is rounded to T once. A scalar parameter (DyT's alpha, a scalar
// SeeDNorm alpha) is a column of its own: each thread sums its entries' terms
// in a register, and the block adds its threads' sums by group_sum's fixed
// tree. Under a row split (RowSplit, below) the blocks of a row group share
// its partial row, each its part's sums; there are no chunks (chunk 1), and
// sum_partials adds the row groups' rows.
#pragma once

#include <scaleref/cuda/buffer.hpp>

#include "device.cuh"
#include "launch.hpp"

namespace scaleref::cuda::detail {

// Where a block keeps its running column sums: the first `kept` of them (in
// slot order, SumLayout below) in shared memory, copied out at the end, the
// rest straight in its partial row in global memory; all of them in shared
// memory when they fit (PartialPlan). Either way each sum has one owning
// thread, and where a sum sits never changes the order it is added in.
template <class A>
struct Accumulators {
  DevPtr<A> shared;   // kept entries: this block's running sums in shared memory
  DevPtr<A> partial;  // this block's row of the [blocks, count] partials (in
                      // clusters: its chunk's first row, the cluster's sums)
  i64 kept;           // slots [0, kept) live in shared memory, the rest in partial

  // Where slot s's running sum lives (indexed by s itself).
  __device__ DevPtr<A> base(i64 s) const { return s < kept ? shared : partial; }
};

// A partial row's length in the workspace: `count` rounded up to whole
// 32-byte sectors, so that every row starts on one (a row of 2 D + 1 sums,
// DyT's, left each warp's 128-byte access across 5 sectors: the speed model's
// coalescing of 0.8).
template <class A>
__host__ __device__ constexpr i64 partial_stride(i64 count) {
  constexpr i64 per = 32 / static_cast<i64>(sizeof(A));
  return (count + per - 1) / per * per;
}

// `cluster`: the blocks of a cluster (a power of two), whose column sums go
// to the first partial row of their chunk (1: each block's to its own).
// (Found by a mask: a 64-bit division by it spilled SeeDNorm's backward.)
template <class A>
__device__ inline Accumulators<A> block_accumulators(DevPtr<A> partials, i64 count,
                                                     DevPtr<A> shared_mem, i64 kept, int cluster) {
  const unsigned first = blockIdx.x & ~(unsigned(cluster) - 1u);
  return {shared_mem, partials + i64(first) * partial_stride<A>(count), kept};
}

// A row split over the blocks of a row (launch.hpp's row_slices), a kernel
// parameter. Block b takes slice rank() = b mod slices of the columns of the
// rows of row group b / slices (RowLoop's second argument), with their
// column sums. A row statistic is each slice's group_sum, added over the
// slices in slice order (row_statistics):
//   - Phase::whole, slices > 1: the row's blocks are a thread-block cluster
//     and add them through distributed shared memory (a kernel with no row
//     statistic, DyT's, needs no cluster, and calls neither row_statistics
//     nor end_split: in_cluster() is about the kernels that do);
//   - where clusters cannot be launched, two launches of the same grid:
//     Phase::stats runs each row's first pass and leaves the slice sums in
//     `stats` ([rows][kMaxRowStats][slices] in the workspace: a row's
//     statistics apart, so that no two of them make one 16-byte window for
//     scripts/cuda_ptx.py to take for a vector store split in two), and
//     Phase::finish adds them there and runs the second pass (SeeDNorm's
//     runs the first pass again too: it needs each head's ds and its scalar
//     alpha's terms, which its statistics do not carry).
// The same sums in the same order either way, so the same bits.
enum class Phase : int { whole, stats, finish };
inline constexpr int kMaxRowStats = 4;
template <class A>
struct RowSplit {
  using kernel_args = void;  // a kernel parameter (kernel.hpp)
  int slices = 1;
  Phase phase = Phase::whole;
  DevPtr<A> stats;  // Phase::stats and finish only

  __device__ unsigned rank() const { return blockIdx.x & (unsigned(slices) - 1u); }
  __device__ bool first_pass() const { return phase != Phase::finish; }
  __device__ bool second_pass() const { return phase != Phase::stats; }
  __device__ bool in_cluster() const { return slices > 1 && phase == Phase::whole; }
};

// The dynamic shared memory a split kernel's statistics pass through, ahead
// of its column sums (a forward's: after its stash): kMaxRowStats entries
// for each of two exchanges in turn, so that one cluster barrier an
// exchange orders both the writes before the peers' reads and those reads
// before the same entries are written again (a block writes exchange k +
// 2's only after the barrier of exchange k + 1, which every peer reaches
// after its reads of exchange k). 16-byte aligned for what follows.
__host__ __device__ constexpr i64 split_exchange_entries(int slices) {
  return slices > 1 ? 2 * kMaxRowStats : 0;
}

// A row's K statistics (v, each this slice's group_sum, the same in every
// thread) completed over the row's slices by `op` (a sum, or Max: a row's
// range), in slice order from slice 0's value (not from 0: 0 + -0 is +0):
// every thread gets the same bits. `row` indexes `stats`; `turn` (a counter
// the kernel keeps, 0 at its start) picks the exchange's half; a kernel may
// call it more than once a row (a block writes a half only after the
// barrier that follows its peers' last reads of it). A no-op without a
// split. Every thread of the block calls it.
template <int K, class A, class Op = Add>
__device__ inline void row_statistics(const RowSplit<A>& split, A (&v)[K], i64 row, int& turn,
                                      DevPtr<A> exchange, Op op = {}) {
  static_assert(K <= kMaxRowStats);
  if (split.slices == 1) return;
  const i64 slices = split.slices;
  if (split.phase == Phase::stats) {
    if (threadIdx.x == 0 && threadIdx.y == 0)
      for (int k = 0; k < K; ++k)
        st(split.stats + ((row * kMaxRowStats + k) * slices + split.rank()), v[k]);
    return;
  }
  if (split.phase == Phase::whole) {
    const DevPtr<A> mine = exchange + turn * kMaxRowStats;
    turn ^= 1;
    if (threadIdx.x == 0 && threadIdx.y == 0)
      for (int k = 0; k < K; ++k) st(mine + k, v[k]);
    cluster_sync();
    for (int k = 0; k < K; ++k) {
      A t = ld(cluster_peer(mine, 0) + k);
      for (unsigned r = 1; r < unsigned(slices); ++r) t = op(t, ld(cluster_peer(mine, r) + k));
      v[k] = t;
    }
    return;
  }
  for (int k = 0; k < K; ++k) {
    const DevPtr<A> parts = split.stats + (row * kMaxRowStats + k) * slices;
    A t = ld(parts);
    // one at a time: unrolled, the loads of consecutive entries from one base
    // are what scripts/cuda_ptx.py reads as a 16-byte access split in pieces
#pragma unroll 1
    for (i64 r = 1; r < slices; ++r) t = op(t, ld(parts + r));
    v[k] = t;
  }
}

// A split kernel's last step: in a cluster, a block must not exit while its
// peers may still read its statistics.
template <class A>
__device__ inline void end_split(const RowSplit<A>& split) {
  if (split.in_cluster()) cluster_sync();
}

// Where a split block keeps its `slice_sums` column sums (its slice of each
// of the parameter's sums): its row group's partial row holds the slices one
// after another ([slice 0's sums][slice 1's]...: SumLayout's `slices`, which
// sum_partials undoes), this block's from slot rank() slice_sums, which it
// indexes from 0, as it does the `kept` of them in shared memory.
template <class A>
__device__ inline Accumulators<A> slice_accumulators(DevPtr<A> partials, i64 count,
                                                     DevPtr<A> shared_mem, i64 kept,
                                                     const RowSplit<A>& split, i64 slice_sums) {
  const i64 group = i64(blockIdx.x / unsigned(split.slices));
  return {shared_mem, partials + (group * partial_stride<A>(count) + split.rank() * slice_sums),
          kept};
}

// The sums are `segments` consecutive segments of `width` entries (a
// parameter's D columns are `heads` segments of D / heads when a kernel walks
// a row head by head). Segment p belongs to the threads of threadIdx.y =
// p mod blockDim.y (a backward kernel's blocks are one slice, but SeeDNorm's
// split a row's heads over slices), and in it a thread owns the columns
// first_col<V>() + m col_step<V>() (+ 0 .. V-1), exactly those its row loop
// visits: it zeroes their sums, adds into them and copies them out, so a
// block's threads never touch one another's sums and need no barrier.
//
// Where a column's sum sits (SumLayout): kept at its column, a warp adding
// its k-th sums would touch words V apart, V-way bank conflicts in shared
// memory and 1/V of each 32-byte sector in global memory (bf16's V = 8: the
// speed model counted 8-way conflicts and store coalescing of 0.25-0.42 in
// every bf16 backward, and Nsight Compute agreed on an H100). So within each
// chunk of group x V columns (a segment's last chunk may be narrower) the
// lanes' k-th sums sit side by side: the sum of column base + lane V + k is
// at base + k lanes + lane. Only where sums sit changes, never the order in
// which each is added, so the results keep their bits. Entries past the
// segments (a scalar parameter's) stay at their index (under a row split,
// scalar k's parts sit at columns + k slices + part, written out at
// columns + k).
//
// Under a row split into `slices` (RowSplit), a slice of a parameter's
// columns is `units` segments (1, or the whole heads a slice of SeeDNorm's
// row holds), and a partial row holds the slices' segments one slice after
// another, each slice its block's per = segments / slices segments
// (slice_accumulators), parameter by parameter: segment p of the partial
// row is slice p / per's unit (p mod per) mod units of parameter
// (p mod per) / units, which is segment
// ((p mod per) / units) units slices + (p / per) units + (p mod per) mod units
// of the parameter gradients' columns (column_segment).
struct SumLayout {
  using kernel_args = void;  // a kernel parameter (kernel.hpp)
  i64 width = 1;             // entries per segment
  i64 segments = 0;          // segments laid out so
  i64 group = 1;             // threads per row (blockDim.x)
  i64 V = 1;                 // entries per vector access
  i64 slices = 1;            // the row split (1: none)
  i64 units = 1;             // a parameter's segments in one slice

  // The columns' segment whose sums partial-row segment p holds, and back.
  __host__ __device__ i64 column_segment(i64 p) const {
    if (slices == 1) return p;
    const i64 per = segments / slices, r = p / per, q = p % per;
    return q / units * units * slices + r * units + q % units;
  }
  __host__ __device__ i64 row_segment(i64 c) const {
    if (slices == 1) return c;
    const i64 per = segments / slices, m = c / (units * slices), rest = c % (units * slices);
    return rest / units * per + m * units + rest % units;
  }

  // Where the sum of entry c of the partial row sits: the layout's
  // definition. owned_run (the kernels) follows it, which
  // tests/emu_traffic_test.cpp checks (without a split; with one, the
  // kernels' periodic-gradient tests and cuda_check at 65536 columns);
  // sum_partials's tiles undo it, which every parameter gradient cuda_check
  // compares checks.
  __host__ __device__ i64 slot(i64 c) const {
    if (c >= segments * width) return c;
    const i64 q = c / width, in = c - q * width, p = row_segment(q), step = group * V;
    const i64 base = in / step * step, left = width - base < step ? width - base : step;
    if (V == 1 || left % V != 0) return p * width + in;
    const i64 off = in - base;
    return p * width + base + off % V * (left / V) + off / V;
  }
};

// The slots of one thread's run of V columns j .. j + V - 1 in segment p:
// slot(k) = at + k lanes, SumLayout::slot without a division in the hot
// loop (V is a power of two known at compile time). `lane` is threadIdx.x,
// `group` blockDim.x.
struct Run {
  i64 at;
  int lanes;  // at most blockDim.x
  __host__ __device__ i64 operator()(int k) const { return at + k * lanes; }
};
template <int V>
__host__ __device__ inline Run owned_run(i64 width, i64 p, i64 j, i64 lane, i64 group) {
  const i64 base = j - lane * V, left = width - base, chunk = left < group * V ? left : group * V;
  if (V == 1 || chunk % V != 0) return {p * width + j, 1};
  return {p * width + base + lane, static_cast<int>(chunk / V)};
}
template <int V>
__device__ inline Run owned_run(i64 width, i64 p, i64 j) {
  return owned_run<V>(width, p, j, i64(threadIdx.x), i64(blockDim.x));
}

template <int V, class A>
__device__ inline void zero_owned(const Accumulators<A>& acc, i64 width, i64 segments) {
  for (i64 p = threadIdx.y; p < segments; p += blockDim.y)
    for (i64 j = first_col<V>(); j < width; j += col_step<V>()) {
      const Run run = owned_run<V>(width, p, j);
      for (int k = 0; k < V && j + k < width; ++k) st(acc.base(run(k)) + run(k), A(0));
    }
}

// The running sum of slot `at` += v: one owning thread's. Under nvcc the
// compound assignment itself (a macro: through a function nvcc fused
// differently); `at` is evaluated twice.
#if defined(SCALEREF_CUDA_EMU)
template <class A>
__device__ inline void add_to(const Accumulators<A>& acc, i64 at, A v SCALEREF_SITE) {
  const DevPtr<A> sums = acc.base(at);
  st(sums + at, ld(sums + at SCALEREF_AT) + v SCALEREF_AT);
}
#else
#define add_to(acc, at, ...) ((acc).base(at)[at] += (__VA_ARGS__))
#endif

template <int V, class A>
__device__ inline void copy_owned(const Accumulators<A>& acc, i64 width, i64 segments) {
  if (acc.kept == 0) return;
  for (i64 p = threadIdx.y; p < segments; p += blockDim.y)
    for (i64 j = first_col<V>(); j < width; j += col_step<V>()) {
      const Run run = owned_run<V>(width, p, j);
      for (int k = 0; k < V && j + k < width; ++k)
        if (run(k) < acc.kept) st(acc.partial + run(k), ld(acc.shared + run(k)));
    }
}

// The end of a backward kernel's column sums (the segments' entries, not a
// scalar's: finish_scalar). cluster == 1: each thread copies the sums it
// owns that shared memory kept to the block's partial row. Else all of them
// are in each block's shared memory, and the cluster adds them (step 1
// above): after a cluster barrier, block r of the cluster takes the r-th of
// `cluster` runs of whole 32-byte sectors of the row, and its threads add
// each entry's sums over the cluster's blocks in rank order (rank =
// blockIdx.x mod cluster: block order) into the chunk's first partial row;
// a second barrier keeps every block's sums until the others have read
// them.
template <int V, class A>
__device__ inline void finish_sums(const Accumulators<A>& acc, i64 width, i64 segments,
                                   int cluster) {
  if (cluster == 1) {
    copy_owned<V>(acc, width, segments);
    return;
  }
  const i64 count = segments * width;
  cluster_sync();
  constexpr i64 sector = 32 / static_cast<i64>(sizeof(A));
  const i64 per = (count + cluster * sector - 1) / (cluster * sector) * sector;
  const i64 lo = i64(cluster_rank()) * per;
  const i64 hi = lo + per < count ? lo + per : count;
  const i64 n = i64(blockDim.x) * blockDim.y;
  for (i64 at = lo + threadIdx.y * i64(blockDim.x) + threadIdx.x; at < hi; at += n) {
    A s = ld(cluster_peer(acc.shared, 0) + at);
    for (int r = 1; r < cluster; ++r) s += ld(cluster_peer(acc.shared, unsigned(r)) + at);
    st(acc.partial + at, s);
  }
  cluster_sync();
}

// A scalar parameter's block sum v (held by `leader`) into entry `at` of the
// block's own row of the [blocks, count] partials, with or without clusters:
// sum_partials adds each chunk's scalars. (Added by the cluster through
// distributed shared memory, before or after finish_sums, or with the row
// kept in Accumulators, they took SeeDNorm's backward past its 64
// registers: 4-36 bytes of spills, scripts/cuda_model.py --check spills.)
// Under a row split (split.slices > 1, the block's sums `slice_sums`
// long: slice_accumulators), the row group's partial row holds one entry per
// slice instead, at + rank(), which sum_partials adds in slice order.
template <class A>
__device__ inline void finish_scalar(const Accumulators<A>& acc, i64 count, i64 at, A v,
                                     bool leader, int cluster, const RowSplit<A>& split = {},
                                     i64 slice_sums = 0) {
  if (!leader) return;
  if (split.slices > 1) {
    const i64 rank = split.rank();
    st(acc.partial + (at + rank - rank * slice_sums), v);
    return;
  }
  const unsigned rank = blockIdx.x & (unsigned(cluster) - 1u);
  st(acc.partial + (i64(rank) * partial_stride<A>(count) + at), v);
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

// out[k][c - offset[k]] = the partials of entry c summed over blocks b, in
// block order, for the entry c of each output k.
template <class D>
__device__ inline void emit(const Outputs<D>& outs, i64 c, AccT<D> s) {
  // k unrolled: indexed at run time, the parameter struct went to a 104-byte
  // stack frame (ptxas, through scripts/cuda_model.py --check spills)
#pragma unroll
  for (int k = 0; k < Outputs<D>::kMax; ++k)
    if (k < outs.n && outs.out[k] && c >= outs.offset[k] && c < outs.offset[k] + outs.length[k])
      st(outs.out[k] + (c - outs.offset[k]), narrow<D>(s));
}

// The sum of chunks [from, to) of entry `at`, in order, each chunk
// (`chunk_step` entries from the last) the sum of its first `rows` entries
// `row_step` apart, in order: a chunk of partial rows (chunk_step: the
// chunk's rows times the row stride, row_step: the stride; rows 1 where the
// kernel added the chunk into its first row), or a scalar's entries of the
// slices of a row split (chunk_step: the stride, row_step 1).
template <class D>
__device__ inline AccT<D> block_order_sum(DevPtr<const AccT<D>> partials, i64 from, i64 to,
                                          i64 chunk_step, i64 rows, i64 row_step, i64 at) {
  AccT<D> s = 0;
  for (i64 b = from; b < to; ++b) {
    AccT<D> c = ld(partials + (b * chunk_step + at));
    for (i64 r = 1; r < rows; ++r) c += ld(partials + (b * chunk_step + r * row_step + at));
    s += c;
  }
  return s;
}

// sum_partials's blocks: kSumThreads threads, 32 lanes x `runs` runs x
// kSumThreads / (32 runs) groups of partial rows; kSumThreadsFewTiles (16
// groups) where runs = 1 and there are fewer than kSumFewTiles tiles.
inline constexpr int kSumThreads = 256;
inline constexpr int kSumThreadsFewTiles = 512;
inline constexpr i64 kSumFewTiles = 2 * kFillBlocks;

// The tiles sum_partials shares out. In each segment, each chunk of
// group x V columns holds V runs of `lanes` slots (SumLayout); a segment's
// last chunk may be narrower (v_last runs of lanes_last slots: one of
// `rest` slots where its width is not a multiple of V). A tile is 32 lanes
// of `runs` consecutive runs of one chunk: runs = 1, or runs = V (its 32 V
// columns side by side).
struct SumTiles {
  i64 step, full, v_last, lanes_last, runs;
  __host__ __device__ SumTiles(const SumLayout& l, i64 runs_) : runs(runs_) {
    step = l.group * l.V;
    full = l.width / step;
    const i64 rest = l.width - full * step;
    v_last = rest % l.V == 0 ? l.V : 1;
    lanes_last = rest / v_last;
  }
  __host__ __device__ i64 of_chunk(i64 v, i64 lanes) const {
    return (v + runs - 1) / runs * ((lanes + 31) / 32);
  }
  __host__ __device__ i64 per_full(const SumLayout& l) const { return of_chunk(l.V, l.group); }
  __host__ __device__ i64 per_segment(const SumLayout& l) const {
    return full * per_full(l) + of_chunk(v_last, lanes_last);
  }
};

// One block per tile: its lanes read 32 consecutive slots of every partial
// row (coalesced), its groups each add their share of the B chunks (group y
// of G: chunks [y B / G, (y + 1) B / G), in order, each the sum of its
// `chunk_rows` partial rows, of which the first `column_rows` hold the column
// sums: 1 where a cluster added them), and the G group sums of each slot are
// added in order: an order fixed by B, chunk_rows and `runs`, so the same
// bits on every run. Which `runs` (launch_sum_partials) follows the
// chunks B: with B >= kFillBlocks, runs = 1 and G = 8 (16, below, where the
// tiles are few): a block per 32 slots (128 blocks for RMSNorm's 4096
// columns, where a block per 32 V columns with one thread per slot had 16
// and took 54 us on the H100 for 512 partial rows, 5% of a copy's
// bandwidth), each lane writing its slot's column, V entries apart: one
// uncoalesced store per column against B loads. With B < kFillBlocks (a
// batch under 132 rows, or any whose blocks go in chunks of 8: at most
// 1024 / 8) those stores weigh more (bf16 needs B >= 66 for 95% of the
// sectors to carry data), and runs = V: the
// tile's 32 V columns go out side by side through shared memory padded to
// an odd stride (at most 2-way bank conflicts). Then block 0 takes the
// entries past the segments (scalar parameters), a thread each, in chunk
// order (under a row split, each row group's per-part entries of the
// scalar in part order). With runs = 1 and fewer than kSumFewTiles tiles (RMSNorm's 128 at
// 4096 columns), a block has 512 threads and G = 16: with 256, those 128
// blocks left 8 warps an SM, too few to cover DRAM latency (the speed
// model's latency criterion). The tile count is fixed by the shape, so the
// order still is.
// (kSumThreadsFewTiles, 1): under (kSumThreads) alone ptxas held the bf16
// instantiation to 64 registers and spilled 4 bytes; it takes 93-118 (the
// row loop's loads unrolled), which leaves 2 blocks of 256 threads per SM
// or one of 512.
template <class D>
__global__ void __launch_bounds__(kSumThreadsFewTiles, 1)
    sum_partials(DevPtr<const AccT<D>> partials, i64 blocks, i64 chunk_rows, i64 column_rows,
                 i64 count, Outputs<D> outs, SumLayout l, int runs) {
  using A = AccT<D>;
  // G groups x 32 lanes x (runs | 1): at most 16 x 32 (runs = 1, 512 threads)
  SCALEREF_SHARED(A, sums, kSumThreadsFewTiles);
  const i64 stride = partial_stride<A>(count);
  const SumTiles t(l, runs);
  const i64 groups = i64(blockDim.x) / (32 * runs), pad = runs | 1;
  const i64 x = threadIdx.x % 32, kr = threadIdx.x / 32 % runs, y = threadIdx.x / (32 * runs);
  const i64 from = y * blocks / groups, to = (y + 1) * blocks / groups;
  const i64 per_full = t.per_full(l), per_segment = t.per_segment(l);
  for (i64 id = blockIdx.x; id < l.segments * per_segment; id += gridDim.x) {
    const i64 p = id / per_segment, in = id - p * per_segment;
    const bool last = in >= t.full * per_full;
    const i64 chunk = last ? t.full : in / per_full;
    const i64 V = last ? t.v_last : l.V, lanes = last ? t.lanes_last : l.group;
    const i64 r = in - chunk * per_full;  // the tile within its chunk
    const i64 per_runs = (lanes + 31) / 32, k0 = r / per_runs * runs, lane0 = 32 * (r % per_runs);
    const i64 base = p * l.width + chunk * t.step;  // in the partial row
    if (lane0 + x < lanes && k0 + kr < V)
      st(sums + (y * 32 * pad + x * pad + kr),
         block_order_sum<D>(partials, from, to, chunk_rows * stride, column_rows, stride,
                            base + (k0 + kr) * lanes + lane0 + x));
    __syncthreads();
    const i64 c = threadIdx.x, cx = c / runs, ck = c % runs;  // output c of the tile
    if (c < 32 * runs && lane0 + cx < lanes && k0 + ck < V) {
      A s = ld(sums + (cx * pad + ck));
      for (i64 g = 1; g < groups; ++g) s += ld(sums + (g * 32 * pad + cx * pad + ck));
      emit(outs, l.column_segment(p) * l.width + chunk * t.step + (lane0 + cx) * V + k0 + ck, s);
    }
    __syncthreads();  // the sums are rewritten for the next tile only after every read
  }
  // a scalar: chunk_rows rows of each chunk, or (a row split) its slices'
  // entries in each group's row
  const i64 columns = l.segments * l.width, entries = l.slices;
  if (blockIdx.x == 0)
    for (i64 k = threadIdx.x; columns + k * entries < count; k += blockDim.x)
      emit(outs, columns + k,
           entries > 1
               ? block_order_sum<D>(partials, 0, blocks, stride, entries, 1, columns + k * entries)
               : block_order_sum<D>(partials, 0, blocks, chunk_rows * stride, chunk_rows, stride,
                                    columns + k));
}

// launch.hpp's kStaticSharedBytes bounds the static shared memory of every row
// kernel, which is group_sum's scratch.
static_assert(32 * sizeof(ScratchRow<double>) <= kStaticSharedBytes);

// Whether this build's kernels may run in thread-block clusters: always on
// the emulator; under nvcc when every architecture it compiles for is sm_90
// or later (SCALEREF_CUDA_CLUSTERS, cuda/CMakeLists.txt).
#if defined(SCALEREF_CUDA_EMU) || (defined(SCALEREF_CUDA_CLUSTERS) && SCALEREF_CUDA_CLUSTERS)
inline constexpr bool kBuiltWithClusters = true;
#else
inline constexpr bool kBuiltWithClusters = false;
#endif

// Whether a launch may take thread-block clusters: built for them, the
// device launches them, and SCALEREF_CLUSTERS is not "off".
inline bool can_launch_clusters(const char* where) {
  return kBuiltWithClusters && clusters_allowed(where) &&
         device_attribute(where, cudaDevAttrClusterLaunch) != 0;
}

// Bytes of shared memory one block of the current device may opt in to.
inline std::size_t opt_in_shared_bytes(const char* where) {
  return static_cast<std::size_t>(device_attribute(where, cudaDevAttrMaxSharedMemoryPerBlockOptin));
}

// Where a backward call keeps its parameter-gradient sums, for a launch of
// `blocks` blocks with `count` sums each (a partial row per block in the
// workspace, partial_stride(count) apart), of which the first `shared_count`
// are the column sums a thread owns, the rest scalars:
//   - in clusters of sum_chunk(blocks) blocks that add their column sums in
//     the kernel (finish_sums) into their chunk's first row, where the chunk
//     is more than one block, every column sum fits in what one block may
//     opt in to beside the `extra_smem` bytes the kernel needs anyway, the
//     device launches clusters and SCALEREF_CLUSTERS is not "off";
//   - else the first `kept` sums (at most shared_count) in shared memory, as
//     many as shared_sums_kept (launch.hpp) finds room for, the rest in the
//     block's partial row, and sum_partials adds each chunk's rows first.
// Either way the result has the same bits (the file's head).
// Under a row split (`split`: slices > 1, launch.hpp's row_slices), `blocks`
// is the row groups, each a partial row and `slices` blocks (the grid has
// blocks x slices), `shared_count` is a block's share of the column sums
// and `count` a whole partial row; no chunks are added in the kernel
// (chunk 1). A kernel with row statistics (split.stats of them) runs its
// row groups in clusters where the device launches them and
// SCALEREF_CLUSTERS is not "off", else in two launches (RowSplit), whose
// statistics take split.rows x slices x kMaxRowStats more entries of the
// workspace.
struct SplitRequest {
  int slices = 1;
  int stats = 0;  // row statistics exchanged (0: the slices need not meet)
  i64 rows = 0;
};
template <class A>
struct PartialPlan {
  A* partials = nullptr;       // nullptr: no parameter gradient wanted
  i64 kept = 0;                // sums in shared memory, from slot 0
  i64 in_global = 0;           // of the shared_count, those left in global memory
  std::size_t smem = 0;        // dynamic shared memory to launch with
  int cluster = 1;             // blocks per cluster, each cluster adding its chunk (1: none)
  int chunk = 1;               // blocks (partial rows) per chunk: sum_chunk(blocks)
  i64 chunks = 0;              // chunks of blocks, whose sums sum_partials adds
  int slices = 1;              // the row split (1: none)
  bool split_cluster = false;  // the row groups' blocks run in clusters
  A* stats = nullptr;          // the two launches' row statistics

  // The launches a backward makes, and the cluster and split of launch k.
  int launches() const { return stats ? 2 : 1; }
  unsigned launch_cluster() const { return split_cluster ? slices : cluster; }
  RowSplit<A> split(int k) const {
    const Phase phase = !stats ? Phase::whole : k == 0 ? Phase::stats : Phase::finish;
    return {slices, phase, DevPtr<A>(stats)};
  }
};

template <class A>
PartialPlan<A> plan_partials(const char* where, Workspace& ws, i64 blocks, i64 count,
                             i64 shared_count, std::size_t extra_smem = 0,
                             const SplitRequest& split = {}) {
  PartialPlan<A> plan;
  if (count == 0 && split.slices == 1) return plan;  // no parameter gradient, no split
  if (split.slices > 1) {
    plan.slices = split.slices;
    plan.chunks = blocks;
    if (split.stats > 0)  // the exchange, ahead of the sums (split_exchange_entries)
      extra_smem += static_cast<std::size_t>(split_exchange_entries(split.slices)) * sizeof(A);
    plan.kept = shared_sums_kept(shared_count, sizeof(A), extra_smem, opt_in_shared_bytes(where));
    plan.in_global = shared_count - plan.kept;
    plan.split_cluster = split.stats > 0 && can_launch_clusters(where);
    const i64 stats =
        split.stats > 0 && !plan.split_cluster ? split.rows * split.slices * kMaxRowStats : 0;
    const i64 sums = blocks * partial_stride<A>(count);
    plan.partials = static_cast<A*>(ws.get(static_cast<std::size_t>(sums + stats) * sizeof(A)));
    if (stats > 0) plan.stats = plan.partials + sums;
    plan.smem = static_cast<std::size_t>(plan.kept) * sizeof(A) + extra_smem;
    return plan;
  }
  plan.chunk = sum_chunk(blocks);
  plan.chunks = blocks / plan.chunk;
  plan.kept = shared_sums_kept(shared_count, sizeof(A), extra_smem, opt_in_shared_bytes(where));
  plan.in_global = shared_count - plan.kept;
  if (plan.chunk > 1 && plan.in_global == 0 && can_launch_clusters(where))
    plan.cluster = plan.chunk;
  plan.partials = static_cast<A*>(
      ws.get(static_cast<std::size_t>(blocks * partial_stride<A>(count)) * sizeof(A)));
  plan.smem = static_cast<std::size_t>(plan.kept) * sizeof(A) + extra_smem;
  return plan;
}

// The launch of a forward over rows of `width` entries of `entry_bytes` read
// V at a time, of `heads` heads (0: the row is never taken in parts;
// RMSNorm's rows of several heads, each head its own segment). A row the
// stash would not hold (row_slices of its own bytes) is taken in `parts`
// parts, whole heads where there are more than one (parts cut to a power of
// two dividing them): in a cluster of a block a part where clusters can be
// launched (each stashing its part, the exchange after the stash), else a
// block a row walks the parts (their split with one slice). Otherwise
// forward_geometry's launch with the row's stash (more than one head:
// head_forward_geometry's, a row a block, its heads in slices). `own(geo)`:
// the bytes of shared memory the kernel keeps after the exchange, for the
// launch geo; `part_threads`: the most threads a block of a row in parts may
// have (that kernel's __launch_bounds__).
template <class A>
struct ForwardPlan {
  int parts = 1;              // parts of a row
  unsigned blocks_a_row = 1;  // the cluster: parts, or 1
  Geometry geo;               // geo.blocks row groups (of blocks_a_row blocks)
  i64 stash = 0;              // stash_columns
  std::size_t smem = 0;       // the stash, the exchange, then own(geo)
  RowSplit<A> split;          // slices = blocks_a_row
  unsigned grid() const { return geo.blocks * blocks_a_row; }
};
struct NoSharedOfItsOwn {
  std::size_t operator()(const Geometry&) const { return 0; }
};
template <class A, class Own = NoSharedOfItsOwn>
ForwardPlan<A> plan_forward(const char* where, i64 rows, i64 width, std::size_t entry_bytes, int V,
                            int heads, Own own = {}, int part_threads = kMaxThreads) {
  ForwardPlan<A> f;
  const i64 grid = grid_limit(where);
  f.parts =
      heads > 0 ? row_slices(width, 1, entry_bytes, static_cast<int>(16 / entry_bytes), grid) : 1;
  while (heads > 1 && heads % f.parts != 0) f.parts /= 2;
  const bool cluster = f.parts > 1 && can_launch_clusters(where);
  f.blocks_a_row = cluster ? static_cast<unsigned>(f.parts) : 1u;
  const i64 part = width / f.parts, max_blocks = grid / f.blocks_a_row;
  const int threads = f.parts > 1 ? part_threads : kMaxThreads;
  if (heads > 1) {
    f.geo = head_forward_geometry(rows, part, heads / f.parts, V, max_blocks, threads);
  } else {
    f.geo = forward_geometry(rows, part, V, max_blocks, threads);
    if (f.parts > 1)  // a row a block (a row group a cluster)
      f.geo = {f.geo.group, 1, static_cast<unsigned>(std::min({rows, kMaxBlocks, max_blocks}))};
  }
  const int rows_per_block = heads > 1 ? 1 : f.geo.rows_per_block;
  const std::size_t exchange =
      cluster ? static_cast<std::size_t>(split_exchange_entries(f.parts)) * sizeof(A) : 0;
  const std::size_t kept = exchange + own(f.geo);
  f.stash = stash_columns(cluster ? part : width, entry_bytes, V, rows_per_block, kept,
                          opt_in_shared_bytes(where));
  f.smem = static_cast<std::size_t>(stash_bytes(f.stash, static_cast<i64>(entry_bytes))) + kept;
  f.split.slices = static_cast<int>(f.blocks_a_row);
  return f;
}

// The parameter gradients from the partial rows `plan` left: `layout` says
// where the backward kernel kept its sums (its width, segments, group and V).
template <class D>
void launch_sum_partials(const PartialPlan<AccT<D>>& plan, i64 count, const Outputs<D>& outs,
                         const SumLayout& layout, cudaStream_t stream) {
  // runs (and so the groups of chunks) follow the chunks it reads. By the
  // block count instead (both are a shape's), the tiles of 32 slots left
  // SeeDNorm's sums at 2048 x 16384 under clusters (32 chunks) a store
  // coalescing of 0.90-0.92 (the speed model, 380d8bd); by the chunks,
  // RMSNorm's at 4096 x 4096 take 16 blocks, which read 1 MiB with
  // clusters and 8 MiB without (SCALEREF_CLUSTERS=off or no cluster launch:
  // the 16 blocks that took 54 us on the H100 before, above).
  const i64 blocks = plan.chunks;
  const int runs = blocks < kFillBlocks ? static_cast<int>(layout.V) : 1;
  const i64 tiles = layout.segments * SumTiles(layout, runs).per_segment(layout);
  const i64 grid =
      std::min({std::max<i64>(tiles, 1), kMaxBlocks, grid_limit("cuda::sum_partials")});
  const int threads = runs == 1 && tiles < kSumFewTiles ? kSumThreadsFewTiles : kSumThreads;
  launch<sum_partials<D>>(static_cast<unsigned>(grid), threads, 0, stream, plan.partials, blocks,
                          i64(plan.chunk), i64(plan.cluster > 1 ? 1 : plan.chunk), count, outs,
                          layout, runs);
  check_launch("cuda::sum_partials");
}

// Whether a backward's second pass walks back to front (launch.hpp's
// backward_back_to_front) on the current device, unless SCALEREF_SECOND_PASS
// says which (launch.hpp's second_pass_override).
template <class A>
bool second_pass_back_to_front(const char* where, std::size_t row_bytes, const PartialPlan<A>& plan,
                               i64 blocks, int threads) {
  const SecondPass forced = second_pass_override(where);
  if (forced != SecondPass::rule) return forced == SecondPass::back_to_front;
  return backward_back_to_front(
      row_bytes, static_cast<std::size_t>(plan.in_global) * sizeof(A), blocks, threads,
      device_attribute(where, cudaDevAttrMultiProcessorCount),
      static_cast<std::size_t>(device_attribute(where, cudaDevAttrL2CacheSize)));
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
