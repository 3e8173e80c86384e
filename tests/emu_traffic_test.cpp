// The emulator's memory-traffic counters (scaleref/emu/traffic.hpp), the
// speed model's eyes: each planted slow kernel must show up in the figure
// that names its fault, and its fixed twin must not. Expected counts are
// derived by hand in each test's comment, from the access pattern alone.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <scaleref/cuda/kernel.hpp>
#include <scaleref/emu/launch.hpp>
#include <scaleref/emu/traffic.hpp>
#include <tuple>
#include <vector>

#include "detail/partials.cuh"

namespace {

using scaleref::cuda::DevPtr;
using scaleref::cuda::launch;
using scaleref::cuda::ld;
using scaleref::cuda::st;
namespace emu = scaleref::emu;

// Traffic counting on for one test (in-order schedule only), restored after.
class Counting {
 public:
  explicit Counting(unsigned sample = 0) : saved_(emu::options()) {
    emu::options().traffic = true;
    emu::options().sample_blocks = sample;
    emu::options().schedules = {emu::Schedule{}};
    emu::take_traffic();
  }
  ~Counting() { emu::options() = saved_; }

 private:
  emu::Options saved_;
};

template <class T>
struct Device {
  T* p = nullptr;
  explicit Device(std::size_t n, T fill = T(1)) {
    EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess);
    std::vector<T> h(n, fill);
    EXPECT_EQ(cudaMemcpy(p, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  ~Device() { cudaFree(p); }
};

struct Totals {
  std::uint64_t requests = 0, sectors = 0, min_sectors = 0, wavefronts = 0, min_wavefronts = 0;
  double worst_degree = 0;
};

Totals totals(const emu::LaunchTraffic& t, bool shared, bool store) {
  Totals s;
  for (const emu::SiteTraffic& x : t.sites)
    if (x.shared == shared && x.store == store) {
      s.requests += x.requests;
      s.sectors += x.sectors;
      s.min_sectors += x.min_sectors;
      s.wavefronts += x.wavefronts;
      s.min_wavefronts += x.min_wavefronts;
      s.worst_degree = std::max(s.worst_degree, x.worst_degree);
    }
  return s;
}

emu::LaunchTraffic only_launch() {
  std::vector<emu::LaunchTraffic> t = emu::take_traffic();
  EXPECT_EQ(t.size(), 1u);
  return t.empty() ? emu::LaunchTraffic{} : t.front();
}

// out[r][c] = in[r][c] (row-major, coalesced) or in[c][r] (a transposed read).
__global__ void copy_rows(DevPtr<const float> in, DevPtr<float> out, int n, bool transposed) {
  const int r = blockIdx.x, c = threadIdx.x;
  st(out + (r * n + c), ld(in + (transposed ? c * n + r : r * n + c)));
}

// A transposed read: each lane reads a float 4n bytes from its neighbour's,
// so each 128-byte warp request touches 32 sectors instead of 4.
TEST(EmuTraffic, ATransposedReadUsesAnEighthOfEachSector) {
  constexpr int n = 64;
  Device<float> in(n * n), out(n * n);
  Counting on;
  for (bool transposed : {false, true}) {
    launch<copy_rows>(n, n, 0, nullptr, in.p, out.p, n, transposed);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const emu::LaunchTraffic t = only_launch();
    const Totals load = totals(t, false, false), store = totals(t, false, true);
    // n blocks x 2 warps, one load and one store each
    EXPECT_EQ(load.requests, 2u * n);
    EXPECT_EQ(store.requests, 2u * n);
    EXPECT_EQ(load.min_sectors, 2u * n * 4);  // 32 floats = 4 sectors per request
    EXPECT_EQ(load.sectors, transposed ? 2u * n * 32 : 2u * n * 4) << transposed;
    EXPECT_EQ(store.sectors, store.min_sectors);
    // DRAM under the cache model: every input sector read once per launch
    // (the transposed pattern re-touches sectors other blocks touched first:
    // L2 hits), every output sector written once
    EXPECT_EQ(t.first_read_sectors, n * n * 4u / 32u);
    EXPECT_EQ(t.written_sectors, n * n * 4u / 32u);
  }
}

// Shared memory: a warp stores s[lane * stride] (4-byte words); the bank is
// (lane * stride) mod 32, so stride 32 puts all 32 lanes in bank 0 (32
// wavefronts), stride 8 makes 8-way conflicts, stride 33 (the padded
// layout) none.
__global__ void strided_shared(DevPtr<float> out, int stride) {
  SCALEREF_SHARED(float, s, 32 * 33);
  const int lane = threadIdx.x;
  st(s + lane * stride, float(lane));
  __syncthreads();
  st(out + lane, ld(s + lane * stride));
}

TEST(EmuTraffic, BankConflictsAreTheMostWordsInOneBank) {
  Device<float> out(32);
  Counting on;
  for (const auto& [stride, degree] : {std::pair{1, 1}, {33, 1}, {8, 8}, {32, 32}, {2, 2}}) {
    launch<strided_shared>(1, 32, 0, nullptr, out.p, stride);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const emu::LaunchTraffic t = only_launch();
    for (bool store : {false, true}) {
      const Totals s = totals(t, true, store);
      EXPECT_EQ(s.requests, 1u);
      EXPECT_EQ(s.min_wavefronts, 1u);
      EXPECT_EQ(s.wavefronts, static_cast<unsigned>(degree)) << "stride " << stride;
      EXPECT_EQ(s.worst_degree, degree) << "stride " << stride;
    }
  }
}

// 16-byte accesses per lane: 512 bytes a request, 4 wavefronts at least.
// Lane-consecutive float4s: no conflict. The bf16 partial-sum pattern of a
// row kernel (each lane owning 8 consecutive fp32 sums, k = 0..7 one at a
// time): lanes 32 bytes apart, 8-way.
struct alignas(16) Float4 {
  float v[4];
};

__global__ void vector_shared(DevPtr<float> out, bool owned_runs) {
  SCALEREF_SHARED(float, s, 32 * 8);
  const int lane = threadIdx.x;
  if (owned_runs) {
    for (int k = 0; k < 8; ++k) st(s + (lane * 8 + k), float(k));
  } else {
    DevPtr<Float4> v = scaleref::cuda::ptr_cast<Float4*>(s);
    st(v + lane, Float4{{1, 2, 3, 4}});
    st(v + (32 + lane), Float4{{1, 2, 3, 4}});
  }
  __syncthreads();
  st(out + lane, ld(s + lane));
}

TEST(EmuTraffic, VectorAccessesAndOwnedRuns) {
  Device<float> out(32);
  Counting on;
  launch<vector_shared>(1, 32, 0, nullptr, out.p, false);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Totals s = totals(only_launch(), true, true);
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.min_wavefronts, 8u);  // 2 x 512 bytes / 128
  EXPECT_EQ(s.wavefronts, 8u);
  launch<vector_shared>(1, 32, 0, nullptr, out.p, true);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  s = totals(only_launch(), true, true);
  EXPECT_EQ(s.requests, 8u);        // k = 0..7
  EXPECT_EQ(s.min_wavefronts, 8u);  // each 128 bytes
  EXPECT_EQ(s.wavefronts, 64u);     // lanes 8 words apart: 4 banks, 8 words each
  EXPECT_EQ(s.worst_degree, 8);
}

// 8-byte accesses go in two phases of 16 lanes (16-byte ones in four of 8),
// each with its own bank conflicts (cuda/results/2026-11-27b-nvidia-h200:
// fp64 sum_partials took the wavefronts of two conflicted half-warps). The
// pattern: lane l = 16 h + k reads double (k / 8) 16 + 8 h + k mod 8, so
// half-warp 0 reads doubles 0-7 and 16-23 (banks 0-15, twice each) and
// half-warp 1 doubles 8-15 and 24-31 (banks 16-31, twice): 2 wavefronts a
// half, 4 in all, where the whole warp's busiest bank holds 2 words. Its
// twin, double l for lane l: 1 a half, 2 in all. A double every lane reads
// (8 bytes: one wavefront's worth) is one broadcast wavefront.
__global__ void half_warp_shared(DevPtr<double> out, int pattern) {
  SCALEREF_SHARED(double, s, 32);
  const int lane = threadIdx.x, h = lane / 16, k = lane % 16;
  const int i = pattern == 0 ? lane : pattern == 1 ? (k / 8) * 16 + h * 8 + k % 8 : 0;
  st(s + lane, double(lane));
  __syncthreads();
  st(out + lane, ld(s + i));
}

TEST(EmuTraffic, WideAccessesConflictWithinTheirPhase) {
  Device<double> out(32);
  Counting on;
  for (const auto& [pattern, least, waves] :
       {std::tuple{0, 2u, 2u}, std::tuple{1, 2u, 4u}, std::tuple{2, 1u, 1u}}) {
    launch<half_warp_shared>(1, 32, 0, nullptr, out.p, pattern);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const emu::LaunchTraffic t = only_launch();
    const Totals load = totals(t, true, false), store = totals(t, true, true);
    EXPECT_EQ(store.wavefronts, 2u);  // double l for lane l
    EXPECT_EQ(load.requests, 1u);
    EXPECT_EQ(load.min_wavefronts, least) << "pattern " << pattern;
    EXPECT_EQ(load.wavefronts, waves) << "pattern " << pattern;
  }
}

// Two passes over a row: the second re-reads each sector after the block
// has touched the whole row, so its reuse distance is the row's bytes; a
// one-pass kernel keeps the row in registers and re-reads nothing.
__global__ void two_pass(DevPtr<const float> x, DevPtr<float> y, int n, bool twice) {
  float sum = 0;
  for (int c = threadIdx.x; c < n; c += blockDim.x) sum += ld(x + (blockIdx.x * n + c));
  if (twice)
    for (int c = threadIdx.x; c < n; c += blockDim.x)
      st(y + (blockIdx.x * n + c), ld(x + (blockIdx.x * n + c)) * sum);
  else
    st(y + (blockIdx.x * n + threadIdx.x), sum);
}

TEST(EmuTraffic, ASecondPassIsAReReadAtTheRowsDistance) {
  constexpr int rows = 4, n = 4096;
  Device<float> x(rows * n), y(rows * n);
  Counting on;
  launch<two_pass>(rows, 256, 0, nullptr, x.p, y.p, n, true);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  emu::LaunchTraffic t = only_launch();
  EXPECT_EQ(t.first_read_sectors, rows * n * 4u / 32u);
  // Each block re-reads its row's n * 4 / 32 = 512 sectors at a distance of
  // the row's 16 KiB (bucket 14: the block's 256 threads at 64 bytes each).
  std::uint64_t far = 0, all = 0;
  for (int k = 0; k < emu::kReuseBuckets; ++k) {
    all += t.reread[k];
    if (k >= 14) far += t.reread[k];
  }
  EXPECT_EQ(far, rows * 512u);
  // the others: in each pass, the 7 more lanes of a request that share each
  // sector, at distance 0
  EXPECT_EQ(t.reread[0], all - far);
  EXPECT_EQ(all - far, 2u * rows * n * 7u / 8u);
  launch<two_pass>(rows, 256, 0, nullptr, x.p, y.p, n, false);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  t = only_launch();
  far = 0;
  for (int k = 14; k < emu::kReuseBuckets; ++k) far += t.reread[k];
  EXPECT_EQ(far, 0u);
}

// Each block scales R rows by one vector that every row and every block
// reads: gamma's sectors, re-read by each row, are data the blocks share.
__global__ void scale_rows(DevPtr<const float> x, DevPtr<const float> gamma, DevPtr<float> y, int n,
                           int rows_per_block) {
  for (int r = 0; r < rows_per_block; ++r) {
    const int row = blockIdx.x * rows_per_block + r;
    for (int c = threadIdx.x; c < n; c += blockDim.x)
      st(y + (row * n + c), ld(x + (row * n + c)) * ld(gamma + c));
  }
}

TEST(EmuTraffic, AVectorEveryBlockReadsAgainIsAnL2HitNotAFarReRead) {
  constexpr int blocks = 4, rows = 3, n = 1024, sectors = n * 4 / 32;
  Device<float> x(blocks * rows * n), gamma(n), y(blocks * rows * n);
  Counting on;
  launch<scale_rows>(blocks, 256, 0, nullptr, x.p, gamma.p, y.p, n, rows);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const emu::LaunchTraffic t = only_launch();
  EXPECT_EQ(t.first_read_sectors, (blocks * rows * n + n) * 4u / 32u);
  EXPECT_EQ(t.shared_first_read_sectors, unsigned(sectors));  // gamma's: the blocks share them
  // every block's re-reads of gamma are shared re-reads: its first row's 7
  // more lanes of each sector, and every later row; block 0's too, which ran
  // before any other block touched gamma (its later rows re-read it at a
  // row's distance: 256 threads at 48 bytes a row each, x, gamma and y, 12
  // KiB, bucket 13), and which the launch's end finds shared
  EXPECT_EQ(t.shared_rereads, blocks * (7u * sectors + (rows - 1u) * n));
  std::uint64_t far = 0;
  for (int k = 13; k < emu::kReuseBuckets; ++k) far += t.reread[k];
  EXPECT_EQ(far, 0u);
  // x's: the 7 more lanes of each of its sectors, at distance 0
  EXPECT_EQ(t.reread[0], blocks * rows * 7u * sectors);
}

// Sampled, 4 of 64 blocks run: their rows stand for the other blocks' (the
// model scales them by 16), gamma's sectors, which they share, do not.
TEST(EmuTraffic, SampledBlocksScaleTheirOwnSectorsNotTheOnesTheyShare) {
  constexpr int blocks = 64, rows = 2, n = 1024, sectors = n * 4 / 32;
  Device<float> x(blocks * rows * n), gamma(n), y(blocks * rows * n);
  Counting on(4);
  launch<scale_rows>(blocks, 256, 0, nullptr, x.p, gamma.p, y.p, n, rows);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const emu::LaunchTraffic t = only_launch();
  EXPECT_EQ(t.blocks_run, 4u);
  EXPECT_EQ(t.first_read_sectors, 4u * rows * sectors + sectors);
  EXPECT_EQ(t.shared_first_read_sectors, unsigned(sectors));
}

// Each block adds R rows into its own running sums in global memory: a
// read-modify-write per row, whose re-reads of the sums follow the block's
// stores to them (dirty), unlike its reads of x.
__global__ void running_sums(DevPtr<const float> x, DevPtr<float> sums, int n, int rows_per_block) {
  const DevPtr<float> mine = sums + blockIdx.x * n;
  for (int r = 0; r < rows_per_block; ++r) {
    const int row = blockIdx.x * rows_per_block + r;
    for (int c = threadIdx.x; c < n; c += blockDim.x)
      st(mine + c, ld(mine + c) + ld(x + (row * n + c)));
  }
}

TEST(EmuTraffic, AReReadOfARunningSumInGlobalMemoryFollowsAStoreToIt) {
  constexpr int blocks = 2, rows = 3, n = 1024, sectors = n * 4 / 32;
  Device<float> x(blocks * rows * n), sums(blocks * n), y(blocks * rows * n);
  Counting on;
  launch<running_sums>(blocks, 256, 0, nullptr, x.p, sums.p, n, rows);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const emu::LaunchTraffic t = only_launch();
  // each later row's first lane re-reads a sum sector a row's work after the
  // last store to it (256 threads x 48 bytes: 12 KiB, bucket 13), dirty
  std::uint64_t far = 0, far_dirty = 0;
  for (int k = 13; k < emu::kReuseBuckets; ++k) {
    far += t.reread[k];
    far_dirty += t.reread_dirty[k];
  }
  EXPECT_EQ(far, blocks * (rows - 1u) * sectors);
  EXPECT_EQ(far_dirty, far);
  // a second pass over x re-reads clean sectors
  launch<two_pass>(blocks * rows, 256, 0, nullptr, x.p, y.p, n, true);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const emu::LaunchTraffic clean = only_launch();
  for (int k = 0; k < emu::kReuseBuckets; ++k) EXPECT_EQ(clean.reread_dirty[k], 0u) << k;
}

// Sampling: 1024 blocks, 16 of them run; the counts are those of the 16 and
// scale() says by how much to multiply them.
TEST(EmuTraffic, SamplingRunsEvenlySpacedBlocksAndScales) {
  constexpr int n = 32, rows = 1024;
  Device<float> in(rows * n), out(rows * n, 0.0f);
  Counting on(16);
  launch<copy_rows>(rows, n, 0, nullptr, in.p, out.p, n, false);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const emu::LaunchTraffic t = only_launch();
  EXPECT_EQ(t.blocks, 1024u);
  EXPECT_EQ(t.blocks_run, 16u);
  EXPECT_EQ(t.scale(), 64.0);
  EXPECT_EQ(totals(t, false, false).requests, 16u);
  std::vector<float> h(rows * n);
  ASSERT_EQ(cudaMemcpy(h.data(), out.p, h.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[64 * n], 1.0f);  // block 64 = 1 * 1024 / 16 ran
  EXPECT_EQ(h[1 * n], 0.0f);   // block 1 did not
}

// The kernels' own spelling of the layout (owned_run, no division) gives
// SumLayout::slot for every lane's every run.
template <int V>
void expect_runs_match(std::int64_t width, std::int64_t segments, std::int64_t group) {
  const scaleref::cuda::detail::SumLayout l{width, segments, group, V};
  for (std::int64_t p = 0; p < segments; ++p)
    for (std::int64_t lane = 0; lane < group; ++lane)
      for (std::int64_t j = lane * V; j < width; j += group * V) {
        const auto run = scaleref::cuda::detail::owned_run<V>(width, p, j, lane, group);
        for (int k = 0; k < V && j + k < width; ++k)
          ASSERT_EQ(run(k), l.slot(p * width + j + k))
              << "V " << V << " width " << width << " lane " << lane << " j " << j;
      }
}

// The backward kernels' sum layout (partials.cuh): slot is a bijection of
// every partial row, for every width, segment count,
// group and vector width a launch can have, including a narrower last chunk
// and entries past the segments; and each warp's k-th sums are side by side.
TEST(EmuTraffic, SumLayoutIsABijectionThatPutsEachWarpsSumsSideBySide) {
  using scaleref::cuda::detail::SumLayout;
  for (std::int64_t V : {1, 2, 4, 8})
    for (std::int64_t group : {32, 64, 256})
      for (std::int64_t width : {V, 8 * V, 32 * V, 40 * V, 300 * V, std::int64_t{257}})
        for (std::int64_t segments : {1, 3}) {
          const SumLayout l{width, segments, group, V};
          if (V == 1) expect_runs_match<1>(width, segments, group);
          if (V == 2) expect_runs_match<2>(width, segments, group);
          if (V == 4) expect_runs_match<4>(width, segments, group);
          if (V == 8) expect_runs_match<8>(width, segments, group);
          const std::int64_t count = segments * width + 1;  // and one scalar entry
          std::vector<int> hit(static_cast<std::size_t>(count), 0);
          for (std::int64_t c = 0; c < count; ++c) {
            const std::int64_t s = l.slot(c);
            ASSERT_GE(s, 0);
            ASSERT_LT(s, count);
            ++hit[static_cast<std::size_t>(s)];
          }
          EXPECT_EQ(std::count(hit.begin(), hit.end(), 1), count);
          if (width % V != 0 || V == 1) continue;
          // lanes 0..31 of a full chunk, entry k: 32 consecutive slots
          if (width < group * V) continue;
          for (std::int64_t k = 0; k < V; ++k)
            for (std::int64_t lane = 1; lane < 32; ++lane)
              EXPECT_EQ(l.slot(lane * V + k), l.slot(k) + lane);
        }
}

}  // namespace
