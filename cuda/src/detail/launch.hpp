// Host-side launch rules shared by the row kernels (internal to cuda/src):
// input checks with messages that name the function, the vector width a call
// may use, and the launch shape. Every choice that can change a result's bits
// is a function of the shape, the pointers' alignment and the grid limit
// only (the bitwise replay test relies on it). The grid limit is kMaxBlocks on
// every CUDA GPU (they allow 2^31 - 1 blocks along x); the emulator can be
// told a smaller one (device.cuh's grid_limit), so that the grid-stride paths
// run at small sizes. The device's shared memory decides only where the
// backward's sums live.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <scaleref/cuda/types.hpp>
#include <scaleref/error.hpp>
#include <vector>

namespace scaleref::cuda::detail {

using i64 = std::int64_t;

// Tuning knobs of the launch shape (see cuda/README.md before changing them:
// the backward's partial count changes its result bits, not their accuracy).
// The largest block a row kernel is launched with, and its __launch_bounds__:
// the compiler then keeps each thread under 64 registers, so a 1024-thread
// group can launch (cuda/src/seednorm.cu's backward needs 72-80 without it).
// The backward kernels say (kMaxThreads, 1): one block per SM is all they
// need, so ptxas may use the 64 registers rather than spill to fit two
// (it chose 32 and spilled 4-16 bytes in five of them; scripts/cuda_model.py
// --check spills); AdaSeeDNorm's say (512, 1) and launch groups of at most
// 512 threads (cuda/src/seednorm.cu). Their grids, at most kMaxPartials
// blocks, fill fewer slots than the registers allow anyway.
inline constexpr int kMaxThreads = 1024;
inline constexpr int kUnitsPerThread = 4;    // vector accesses per thread per row, aimed at
inline constexpr int kForwardThreads = 256;  // threads per block when rows are narrow
inline constexpr i64 kMaxBlocks = 65535;     // forward grids stride beyond this many (row groups)
inline constexpr i64 kRowsPerPartial = 8;    // backward: this many rows per block (partial
inline constexpr i64 kMaxPartials = 1024;    // row), at most this many blocks, and at
inline constexpr i64 kFillBlocks = 132;      // least this many where there are as many
                                             // rows: one per SM of an H100 or H200 (a
                                             // constant, not the device's count: the
                                             // backward's block count must not depend
                                             // on the device)
// Shared memory: a launch gets kLaunchSharedBytes (static and dynamic) without
// opting in; a row kernel declares at most kStaticSharedBytes itself (group_sum's
// 32 ScratchRow<double>). A backward keeps its per-block gradient sums in shared
// memory, as many of them as fit in what the device lets one block opt in to
// (227 KiB on Hopper: all of SeeDNorm's three D-vectors of fp32 sums up to
// D = 16384), and the rest in its global partial row (shared_sums_kept).
// No smaller budget: large sums leave room for fewer blocks per SM (one at
// D = 16384), but sums in global memory are read and written through L2 for
// every row, which cost 1.5 to 5 times the minimum bytes at D = 16384 when the
// budget was 104 KiB (the speed model, cuda/results/model/before.txt). And
// where sums that do not all fit lived wholly in global memory, 2.1-5.8x at
// D = 65536 and fp64 D = 16384 (cuda/results/model/model.txt at b356576).
// Where the sums live changes the speed, never the bits: each sum is added in
// the same order either way.
inline constexpr std::size_t kLaunchSharedBytes = 48 * 1024;
inline constexpr std::size_t kStaticSharedBytes = 8 * 1024;

// How many of a backward's `count` column sums (`entry_bytes` each, from
// the first) go to shared memory beside the `extra` bytes of dynamic shared
// memory the kernel needs anyway, on a device that lets one block opt in to
// `opt_in` bytes in all: all of them where they fit, else as many as fit.
inline i64 shared_sums_kept(i64 count, std::size_t entry_bytes, std::size_t extra,
                            std::size_t opt_in) {
  const std::size_t used = kStaticSharedBytes + extra;
  const std::size_t room = opt_in > used ? (opt_in - used) / entry_bytes : 0;
  return std::min(count, static_cast<i64>(room));
}

template <class T>
void check_view(const char* where, const char* name, Rows<T> v) {
  require(v.rows >= 1 && v.cols >= 1, where, "expected a non-empty ", name, ", got [", v.rows, "x",
          v.cols, "]");
  require(v.stride >= v.cols, where, "expected ", name, "'s row stride >= its ", v.cols,
          " columns, got ", v.stride);
  require(v.data != nullptr, where, "expected ", name, " to point at device memory, got nullptr");
  require(reinterpret_cast<std::uintptr_t>(v.data) % sizeof(T) == 0, where, "expected ", name,
          " aligned to its ", sizeof(T), "-byte entries");
}

template <class A, class B>
void check_same_shape(const char* where, const char* a_name, Rows<A> a, const char* b_name,
                      Rows<B> b) {
  require(a.rows == b.rows && a.cols == b.cols, where, "expected ", b_name, " [", a.rows, "x",
          a.cols, "] like ", a_name, ", got [", b.rows, "x", b.cols, "]");
}

// A forward's x and y: well-formed views of one shape.
template <class T>
void check_forward_views(const char* where, Rows<const T> x, Rows<T> y) {
  check_view(where, "x", x);
  check_view(where, "y", y);
  check_same_shape(where, "x", x, "y", y);
}

// A backward's x, dy and dx: well-formed views of one shape.
template <class T>
void check_backward_views(const char* where, Rows<const T> x, Rows<const T> dy, Rows<T> dx) {
  check_view(where, "x", x);
  check_view(where, "dy", dy);
  check_view(where, "dx", dx);
  check_same_shape(where, "x", x, "dy", dy);
  check_same_shape(where, "x", x, "dx", dx);
}

inline void check_heads(const char* where, i64 cols, int heads) {
  require(heads >= 1 && cols % heads == 0, where,
          "expected D divisible by heads >= 1, got D = ", cols, " and heads = ", heads);
}

inline void check_eps(const char* where, double eps) {
  require(eps >= 0 && eps < 1e300, where, "expected eps >= 0 and finite, got ", eps);
}

// The widest access (in entries) every row segment allows: 16 bytes when each
// pointer is 16-byte aligned and every stride and segment width keeps it so,
// else one entry at a time. Every pointer a kernel reads or writes passes
// through here: one not aligned to its sizeof(T)-byte entries is an Error
// (it would fault on the device).
template <class T>
int vector_width_of(const char* where, const std::vector<const void*>& pointers,
                    const std::vector<i64>& steps) {
  constexpr int wide = static_cast<int>(16 / sizeof(T));
  int v = wide;
  for (const void* p : pointers) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    require(address % sizeof(T) == 0, where, "expected every device pointer aligned to its ",
            sizeof(T), "-byte entries, got one at byte offset ", address % sizeof(T));
    if (address % 16 != 0) v = 1;
  }
  for (i64 s : steps)
    if (s % wide != 0) v = 1;
  return v;
}

template <class T>
int vector_width(const char* where, std::initializer_list<const void*> pointers,
                 std::initializer_list<i64> steps) {
  return vector_width_of<T>(where, std::vector<const void*>(pointers), std::vector<i64>(steps));
}

struct Geometry {
  int group;           // threads per row (blockDim.x), a power of two in [32, 1024]
  int rows_per_block;  // blockDim.y
  unsigned blocks;     // gridDim.x
};

// Threads per row for a row segment of `width` entries read V at a time, at
// most max_threads (a power of two, the kernel's __launch_bounds__).
inline int group_size(i64 width, int V, int max_threads = kMaxThreads) {
  const i64 units = (width + V - 1) / V;
  const i64 want = (units + kUnitsPerThread - 1) / kUnitsPerThread;
  int g = 32;
  while (g < max_threads && g < want) g *= 2;
  return g;
}

// Forward passes: several narrow rows per block, but no more than leave
// kFillBlocks blocks where there are that many rows (16 rows two to a block
// kept 8 SMs busy of 132), and a grid that strides beyond max_blocks (at most
// kMaxBlocks). The rows per block never change a result's bits: each row is
// its own group's.
inline Geometry forward_geometry(i64 rows, i64 width, int V, i64 max_blocks = kMaxBlocks,
                                 int max_threads = kMaxThreads) {
  const int g = group_size(width, V, max_threads);
  const int r =
      static_cast<int>(std::clamp<i64>(rows / kFillBlocks, 1, std::max(1, kForwardThreads / g)));
  const i64 blocks = std::min({(rows + r - 1) / r, kMaxBlocks, max_blocks});
  return {g, r, static_cast<unsigned>(blocks)};
}

// Forward passes read a row segment (a row, or a head of RMSNorm's) two or
// three times. Where one block holds one segment of at least kStashRowBytes
// (groups of 256 threads and more: forward_geometry), the first pass keeps the segment's
// first stash_columns entries in shared memory (device.cuh's RowStash), as
// many as fit in what one block may opt in to beside its `extra` dynamic
// bytes, and the pass that writes the output walks the segment back to
// front: the rest is read again in the reverse order of its last reading, so
// that what was read last is read again first, from L2. (The speed model
// counted the second pass over 256 KiB fp32 rows and 128-512 KiB fp64 rows
// again in DRAM, 1.28-2.06x the minimum bytes: cuda/results/model/.)
// Neither changes a bit: the later passes read the same entries, a pass
// that sums (LayerNorm's variance) keeps its front-to-back order, and the
// output's entries are each their own. The cost: none in residency up to
// rows of 64 KiB (16 KiB rows: 8 blocks of 256 threads an SM by the thread
// limit, 9 by shared memory; 64 KiB: 2 of 1024, 3), one block per SM beyond.
// From 16 KiB, not 64: with a 64 KiB threshold, a change that took
// SeeDNorm's fp64 forward from 37 registers to 32 (4 blocks an SM, not 3)
// put its second pass over 32 KiB rows back in DRAM in the model (1.09x the
// minimum bytes to 1.22x at 4096 x 4096).
inline constexpr std::size_t kStashRowBytes = 16 * 1024;

inline i64 stash_columns(i64 segment, std::size_t entry_bytes, int V, int rows_per_block,
                         std::size_t extra, std::size_t opt_in) {
  if (rows_per_block != 1 || static_cast<std::size_t>(segment) * entry_bytes < kStashRowBytes)
    return 0;
  // the stash takes its bytes rounded up to 16 (device.cuh's stash_bytes)
  // before the `extra` bytes: what it may use is rounded down to 16 first
  const std::size_t used = kStaticSharedBytes + extra;
  const i64 room = opt_in > used ? static_cast<i64>((opt_in - used) / 16 * 16 / entry_bytes) : 0;
  return std::min(segment, room) / V * V;
}

// Backward passes: one row per block at a time, and a block count fixed by
// the row count alone: each block sums its rows' parameter gradients, and
// the blocks' sums are added in an order fixed by the block count
// (partials.cuh: in chunks of sum_chunk(blocks), then the chunks).
// kRowsPerPartial rows per block, or fewer where that leaves fewer than
// kFillBlocks blocks (16 rows: 16 blocks of one row, not 2 of 8; more
// partial rows to add, which a batch that small does in the launch's time).
inline Geometry backward_geometry(i64 rows, i64 width, int V, i64 max_blocks = kMaxBlocks,
                                  int max_threads = kMaxThreads) {
  const i64 wanted =
      std::max((rows + kRowsPerPartial - 1) / kRowsPerPartial, std::min(rows, kFillBlocks));
  const i64 blocks = std::min({wanted, kMaxPartials, max_blocks});
  return {group_size(width, V, max_threads), 1, static_cast<unsigned>(blocks)};
}

// Whether a backward's second pass over a row (segment) walks it back to
// front. Its first pass reads `row_bytes` per block (x and dy), and the
// second reads them again while it adds into `global_sum_bytes` of running
// sums in global memory (what shared memory did not keep). Under an LRU L2
// of `l2_bytes` shared by the resident blocks, a second pass front to back
// finds every entry in L2 while the resident blocks' rows and sums fit, and
// none once they do not; back to front, the entries read last come back
// first, so part of them still does (the speed model at 1024 x 65536 and
// 2048 x 16384, run once with every second pass back to front: that took
// fp32 RMSNorm from 2.44x the minimum bytes to 2.12x and fp64 SeeDNorm from
// 3.89x to 3.41x, where the rows do not fit, and fp64 RMSNorm from 1.12x to
// 1.61x, bf16 RMSNorm from 1.50x to 1.92x, where they do). The resident
// blocks: at most what registers allow on `sms` SMs (a thread may take 64
// of an SM's 65536 under the kernels' __launch_bounds__). Each column's sum
// is its own, and the direction changes no bit.
inline bool backward_back_to_front(std::size_t row_bytes, std::size_t global_sum_bytes, i64 blocks,
                                   int threads, i64 sms, std::size_t l2_bytes) {
  const i64 resident = std::min(blocks, sms * std::max(1, 1024 / threads));
  return static_cast<std::size_t>(resident) * (row_bytes + global_sum_bytes) > l2_bytes;
}

// Who decides the direction of every backward's second pass: the rule above,
// or the environment variable SCALEREF_SECOND_PASS ("front" or "back"), which
// forces one so that the rule can be measured against both on a GPU
// (scripts/gpu_run.sh's `passes` step) and the back-to-front path tested
// where the test's rows fit in L2. Unset, empty or "rule": the rule. Any
// other value is an error naming `where`. Read at each call.
enum class SecondPass { rule, front_to_back, back_to_front };
inline SecondPass second_pass_override(const char* where) {
  const char* v = std::getenv("SCALEREF_SECOND_PASS");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "rule") == 0) return SecondPass::rule;
  if (std::strcmp(v, "front") == 0) return SecondPass::front_to_back;
  if (std::strcmp(v, "back") == 0) return SecondPass::back_to_front;
  fail(where, ": SCALEREF_SECOND_PASS must be front, back or rule (or unset), got '", v, "'");
}

// The backward's blocks add their parameter-gradient sums in chunks of
// sum_chunk(blocks) consecutive blocks first (partials.cuh): kClusterBlocks,
// the largest thread-block cluster every sm_90 device launches (8, the
// portable size), or the largest power of two dividing the block count.
// A function of the block count alone, so of the shape: whether the chunks
// are added in the kernel, in clusters, or by sum_partials changes no bit.
// (Each block's partial row written out and read back had cost 1.12-1.55x
// the minimum bytes in the speed model at 4096 and 16384 columns, where the
// sums fit in shared memory: cuda/results/model/round4.txt.)
inline constexpr int kClusterBlocks = 8;
inline int sum_chunk(i64 blocks) {
  int c = kClusterBlocks;
  while (blocks % c != 0) c /= 2;
  return c;
}

// A backward whose column sums would not fit on chip splits each row over
// `row_slices` blocks (partials.cuh's RowSplit): block r of a row's blocks
// takes the r-th of `slices` equal slices of its columns, with their sums,
// and the blocks add a row statistic's slice sums in slice order (through
// distributed shared memory in a cluster of the row's blocks, or through
// global memory between two launches). A row of `width` columns with `sums`
// column sums of `acc_bytes` each is split where those sums pass
// kSplitSumBytes, into kClusterBlocks slices, or the largest power of two
// below it whose slices keep the 16-byte vector access (`wide` entries);
// none where even two would not (then the sums go to global memory as far
// as they do not fit); and no more slices than a grid may have blocks
// (`max_blocks`, the emulator's small grid limits). A function of the shape
// and the grid limit alone, as the bits must be (the file's head): the
// slices change the statistics' order of additions and the row partition of
// the parameter gradients' sums (cuda/README.md). kSplitSumBytes keeps
// every backward whose sums fit in what Hopper lets one block opt in to
// (219 KiB beside the static shared memory) whole, up to SeeDNorm's three
// fp32 sums at D = 16384 (192 KiB): within 1.10x of the minimum bytes in
// the speed model; past it the sums went to global memory (1.37-4.98x at
// D = 65536 and fp64 D = 16384, cuda/results/model/model.txt at 8b35256).
// The forwards of RMSNorm, LayerNorm and SeeDNorm ask it with a row's own
// bytes (1 "sum" of sizeof(T); partials.cuh's plan_forward): a row past 192
// KiB, which the stash would not hold whole, is taken in parts.
inline constexpr std::size_t kSplitSumBytes = 192 * 1024;
inline int row_slices(i64 width, int sums, std::size_t acc_bytes, int wide,
                      i64 max_blocks = kMaxBlocks) {
  if (static_cast<std::size_t>(width) * static_cast<std::size_t>(sums) * acc_bytes <=
      kSplitSumBytes)
    return 1;
  int s = kClusterBlocks;
  while (s > 1 && (width % (i64(s) * wide) != 0 || s > max_blocks)) s /= 2;
  return s;
}

// A split backward's launch (row_slices > 1): `slices` blocks a row group,
// as many row groups as leave the grid about as many blocks as the row count
// gives a backward without the split (backward_geometry's, at least one row
// group per `slices` of its blocks), so that the partial rows, a row group's
// each, are fewer by the slices: at 1024 x 65536, 17 row groups of 8 blocks,
// not 132 (which cost 1.14-1.40x the minimum bytes in the speed model, the
// parameter gradients' 132 partial rows written and read back). Each part
// is read by a group sized for two accesses a thread a row rather than
// kUnitsPerThread (group_size of twice the part, at most max_threads): 512
// threads for a bf16 part of 8192 columns, whose 136 blocks then keep 16
// warps an SM, not 8 (the speed model's latency floor). blockDim.y = 1.
inline Geometry split_geometry(i64 rows, i64 part, int slices, int V, i64 max_blocks,
                               int max_threads = kMaxThreads) {
  const Geometry whole = backward_geometry(rows, part, V, max_blocks, max_threads);
  if (slices == 1) return whole;
  const i64 groups = std::min((i64(whole.blocks) + slices - 1) / slices, max_blocks / slices);
  return {group_size(2 * part, V, max_threads), 1, static_cast<unsigned>(groups)};
}

// Whether a backward may add its chunks in clusters: SCALEREF_CLUSTERS unset,
// empty or "on"; "off" leaves them to sum_partials (the same bits: the
// kernels test compares the two, and scripts/gpu_run.sh can time both). Any
// other value is an error naming `where`. Read at each call that could take
// clusters (partials.cuh's plan_partials).
inline bool clusters_allowed(const char* where) {
  const char* v = std::getenv("SCALEREF_CLUSTERS");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "on") == 0) return true;
  if (std::strcmp(v, "off") == 0) return false;
  fail(where, ": SCALEREF_CLUSTERS must be on or off (or unset), got '", v, "'");
}

// SeeDNorm's backward splits a row's heads over blockDim.y slices, each a
// group of `group` threads sized by the head: enough slices for a block to
// have the threads one group would get for the whole row (row_group), at
// most one per head, and a divisor of heads, so that every slice walks as
// many heads and their group_sums' barriers line up. One head: one slice.
// (Head-sized blocks of 16 heads had kept 1-8 warps on an SM: 1.9-43x the
// speed model's time on an H200.)
inline int head_slices(int heads, int group, int row_group) {
  int slices = std::max(1, std::min(heads, row_group / group));
  while (heads % slices != 0) --slices;
  return slices;
}

// SeeDNorm's forward with more than one head: one row per block, its heads
// split over head_slices (above) slices of a group sized by the head;
// rows_per_block is the slice count here. (Head-sized groups of 8 rows a
// block kept 8 rows of every 256-thread block in flight between a row's two
// passes: 1.51-1.59x the minimum bytes in the speed model at every width.)
inline Geometry head_forward_geometry(i64 rows, i64 cols, int heads, int V,
                                      i64 max_blocks = kMaxBlocks, int max_threads = kMaxThreads) {
  const int g = group_size(cols / heads, V, max_threads);
  const i64 blocks = std::min({rows, kMaxBlocks, max_blocks});
  return {g, head_slices(heads, g, group_size(cols, V, max_threads)),
          static_cast<unsigned>(blocks)};
}

}  // namespace scaleref::cuda::detail
