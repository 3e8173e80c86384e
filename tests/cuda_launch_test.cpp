// The row kernels' launch rules (cuda/src/detail/launch.hpp), which are host
// code and so testable without a GPU: the launch shapes every kernel gets, the
// vector width with its alignment check, and where a backward's sums live.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../cuda/src/detail/launch.hpp"
#include "env_support.hpp"
#include "error_support.hpp"

namespace {

using namespace scaleref::cuda;
using detail::i64;

const std::vector<i64> kWidths{1,    2,    7,    8,    31,    33,    255,   1000,
                               1023, 1024, 4095, 4096, 65535, 65536, 262144};

TEST(CudaLaunch, GroupsArePowersOfTwoBetween32And1024) {
  for (i64 w : kWidths)
    for (int V : {1, 2, 4, 8}) {
      const int g = detail::group_size(w, V);
      EXPECT_GE(g, 32);
      EXPECT_LE(g, detail::kMaxThreads);
      EXPECT_EQ(g & (g - 1), 0) << "w = " << w << ", V = " << V;
    }
}

TEST(CudaLaunch, ForwardBlocksHoldWholeWarpsAndStayInOneGridDimension) {
  for (i64 rows : {i64{1}, i64{3}, i64{600000}, i64{1} << 31})
    for (i64 w : kWidths) {
      const auto g = detail::forward_geometry(rows, w, 1);
      EXPECT_LE(g.group * g.rows_per_block, detail::kMaxThreads);
      EXPECT_EQ(g.group * g.rows_per_block % 32, 0);
      EXPECT_GE(g.blocks, 1u);
      EXPECT_LE(static_cast<i64>(g.blocks), detail::kMaxBlocks);
    }
  // 600000 rows of width 8 need more blocks than one grid dimension takes: the
  // kernels' grid-stride loop covers the rest.
  const auto g = detail::forward_geometry(600000, 8, 1);
  EXPECT_GT(600000 / g.rows_per_block, detail::kMaxBlocks);
}

TEST(CudaLaunch, BackwardBlockCountDependsOnTheRowsAlone) {
  for (i64 rows : {i64{1}, i64{8}, i64{9}, i64{16384}, i64{600000}}) {
    const auto a = detail::backward_geometry(rows, 8, 1),
               b = detail::backward_geometry(rows, 65536, 8);
    EXPECT_EQ(a.blocks, b.blocks) << rows;  // the partial rows, hence the sums' order
    EXPECT_EQ(a.rows_per_block, 1);
    EXPECT_LE(static_cast<i64>(a.blocks), detail::kMaxPartials);
    EXPECT_LE(static_cast<i64>(a.blocks),
              std::max((rows + detail::kRowsPerPartial - 1) / detail::kRowsPerPartial,
                       std::min(rows, detail::kFillBlocks)));
  }
}

// The speed model's fill criterion (scripts/cuda_model.py --check fill): a
// launch has at least min(rows, kFillBlocks) blocks, one row per SM where
// the batch is that small.
TEST(CudaLaunch, GridsFillTheSMsTheirRowsCan) {
  for (i64 rows :
       {i64{1}, i64{16}, i64{100}, i64{131}, i64{132}, i64{1000}, i64{1024}, i64{1056}, i64{4096}})
    for (i64 w : kWidths) {
      const auto f = detail::forward_geometry(rows, w, 1),
                 b = detail::backward_geometry(rows, w, 1);
      EXPECT_GE(static_cast<i64>(f.blocks), std::min(rows, detail::kFillBlocks))
          << rows << " " << w;
      EXPECT_GE(static_cast<i64>(b.blocks), std::min(rows, detail::kFillBlocks))
          << rows << " " << w;
      EXPECT_LE(static_cast<i64>(b.blocks), rows);  // never a block without a row
    }
  // past kFillBlocks x kRowsPerPartial rows the partial count is the rows over 8 again
  EXPECT_EQ(detail::backward_geometry(4096, 4096, 8).blocks, 512u);
}

// A device (the emulator, told SCALEREF_EMU_MAX_GRID_X) may allow fewer blocks
// than kMaxBlocks: both grids stay within it, and the backward's block count
// is then a function of the rows and that limit.
TEST(CudaLaunch, GridsStayWithinTheDevicesGridLimit) {
  for (i64 limit : {i64{1}, i64{16}, i64{1000}})
    for (i64 rows : {i64{1}, i64{300}, i64{600000}}) {
      const auto f = detail::forward_geometry(rows, 8, 1, limit);
      const auto b = detail::backward_geometry(rows, 8, 1, limit);
      EXPECT_LE(static_cast<i64>(f.blocks), limit);
      EXPECT_LE(static_cast<i64>(b.blocks), limit);
      EXPECT_EQ(b.blocks, detail::backward_geometry(rows, 65536, 8, limit).blocks);
      EXPECT_EQ(f.blocks, detail::forward_geometry(rows, 8, 1).blocks < limit
                              ? detail::forward_geometry(rows, 8, 1).blocks
                              : static_cast<unsigned>(limit));
    }
}

TEST(CudaLaunch, HeadSlicesDivideTheHeadsAndGiveABlockTheRowsThreads) {
  using detail::group_size;
  using detail::head_slices;
  EXPECT_EQ(head_slices(1, 32, 1024), 1);
  // 16 heads of 4096 bf16 columns: head groups of 32, a row's group of 128
  EXPECT_EQ(head_slices(16, group_size(256, 8), group_size(4096, 8)), 4);
  EXPECT_EQ(head_slices(16, group_size(1024, 8), group_size(16384, 8)), 16);
  for (int heads : {1, 2, 3, 4, 6, 12, 16, 32, 64})
    for (i64 cols : {64, 1000, 4096, 16384, 65536})
      for (int V : {1, 2, 8}) {
        if (cols % heads) continue;
        const int g = group_size(cols / heads, V), row = group_size(cols, V);
        const int s = head_slices(heads, g, row);
        EXPECT_GE(s, 1);
        EXPECT_EQ(heads % s, 0) << heads << " " << cols << " " << V;
        EXPECT_LE(g * s, std::max(g, row)) << heads << " " << cols << " " << V;
        EXPECT_LE(g * s, detail::kMaxThreads);
      }
}

TEST(CudaLaunch, VectorAccessNeedsAlignedPointersStridesAndWidths) {
  const auto* aligned = reinterpret_cast<const void*>(std::uintptr_t{4096});
  const auto* off16 = reinterpret_cast<const void*>(std::uintptr_t{4096 + 4});
  EXPECT_EQ(detail::vector_width<float>("t", {aligned, nullptr}, {4096, 64}), 4);
  EXPECT_EQ(detail::vector_width<bf16>("t", {aligned}, {4096}), 8);
  EXPECT_EQ(detail::vector_width<double>("t", {aligned}, {4096}), 2);
  EXPECT_EQ(detail::vector_width<float>("t", {off16}, {4096}), 1);    // pointer off 16 bytes
  EXPECT_EQ(detail::vector_width<float>("t", {aligned}, {4095}), 1);  // a stride that drifts
}

TEST(CudaLaunch, APointerOffItsEntrySizeIsAnError) {
  const auto* odd = reinterpret_cast<const void*>(std::uintptr_t{4097});
  const auto e =
      scaleref::test::error_of([&] { detail::vector_width<float>("cuda::f", {odd}, {}); });
  EXPECT_TRUE(scaleref::test::mentions(e, "cuda::f")) << e;
  EXPECT_TRUE(scaleref::test::mentions(e, "aligned")) << e;
}

// Shared memory one block may opt in to: 227 KiB on the H100 and H200
// (cudaDevAttrMaxSharedMemoryPerBlockOptin); 48 KiB on a device that offers no more.
constexpr std::size_t kHopperOptIn = 227 * 1024, kNoOptIn = 48 * 1024;

// SeeDNorm's backward with a vector alpha: dbeta, dgamma, dalpha as fp32 sums,
// beside one fp32 dz per head.
constexpr i64 seednorm_sums(i64 d) { return 3 * d; }

TEST(CudaLaunch, SeedNormSumsStayOnChipUpToD16384OnHopper) {
  for (i64 d : {1024, 4096, 8192, 16384})
    EXPECT_EQ(detail::shared_sums_kept(seednorm_sums(d), 4, 4, kHopperOptIn), seednorm_sums(d))
        << d;
  // beyond what one block may opt in to, shared memory keeps the first sums
  // that fit, and the block's partial row in global memory the rest
  const i64 room = static_cast<i64>(kHopperOptIn - detail::kStaticSharedBytes - 4) / 4;
  EXPECT_EQ(room, 56063);
  EXPECT_EQ(detail::shared_sums_kept(seednorm_sums(32768), 4, 4, kHopperOptIn), room);
  EXPECT_EQ(detail::shared_sums_kept(room, 4, 4, kHopperOptIn), room);
  EXPECT_EQ(detail::shared_sums_kept(room + 1, 4, 4, kHopperOptIn), room);
  // fp64 sums: half as many fit
  EXPECT_EQ(detail::shared_sums_kept(seednorm_sums(16384), 8, 8, kHopperOptIn),
            static_cast<i64>(kHopperOptIn - detail::kStaticSharedBytes - 8) / 8);
}

// An H100's 132 SMs and 50 MiB of L2 (an H200 has 132 and reports 60 MiB:
// cuda/results/2026-11-27b-nvidia-h200's bench JSON, l2_bytes).
constexpr i64 kSms = 132;
constexpr std::size_t kL2 = 50u << 20, kH200L2 = 60u << 20;

TEST(CudaLaunch, BackwardWalksBackToFrontOnlyWhereTheResidentRowsOverflowL2) {
  const auto back = [](std::size_t row, std::size_t global, i64 blocks, int threads) {
    return detail::backward_back_to_front(row, global, blocks, threads, kSms, kL2);
  };
  const std::size_t f32_kept = 56064;  // RMSNorm's fp32 sums shared memory keeps (no extra)
  // x and dy of one row a block, 132 blocks of 1024 threads (one an SM)
  EXPECT_FALSE(back(2 * 65536 * 2, (65536 - f32_kept) * 4, 132, 1024));  // bf16 RMSNorm: 38 MB
  EXPECT_TRUE(back(2 * 65536 * 4, (65536 - f32_kept) * 4, 132, 1024));   // fp32 RMSNorm: 72 MB
  EXPECT_FALSE(back(2 * 16384 * 8, 0, 256, 1024));                       // fp64 RMSNorm: 34 MB
  // fp64 SeeDNorm at 16384: 256 KiB of x and dy, 165 KiB of sums in global
  // memory: 56 MB
  EXPECT_TRUE(back(2 * 16384 * 8, (3 * 16384 - 28031) * 8, 256, 1024));
  // narrow rows: as many blocks an SM as registers allow, and still far from L2
  EXPECT_FALSE(back(2 * 4096 * 2, 0, 512, 128));
  // the same rows on fewer blocks than SMs fit
  EXPECT_FALSE(back(2 * 65536 * 4, 0, 64, 1024));
  // the boundary: 132 blocks of exactly a 132th of L2 fit, one byte more does not
  EXPECT_FALSE(back(kL2 / 132, 0, 132, 1024));
  EXPECT_TRUE(back(kL2 / 132 + 1, 0, 132, 1024));
  // on the H200 whose passes were timed both ways: fp64 SeeDNorm at 16384
  // (56 MB) fits its L2 and stays front to back (back to front measured
  // 0.986x there); fp32 RMSNorm at 65536 (74 MB) does not (0.966x)
  EXPECT_FALSE(detail::backward_back_to_front(2 * 16384 * 8, (3 * 16384 - 28031) * 8, 256, 1024,
                                              kSms, kH200L2));
  EXPECT_TRUE(detail::backward_back_to_front(2 * 65536 * 4, (65536 - f32_kept) * 4, 132, 1024, kSms,
                                             kH200L2));
}

// SCALEREF_SECOND_PASS forces the direction (for measuring the rule on a
// GPU); unset, empty or "rule" leaves it to the rule; anything else is refused.
// The backward's chunks (partials.cuh): 8 blocks, or the largest power of two
// that divides the block count, so that a cluster of one chunk tiles the grid.
TEST(CudaLaunch, BackwardChunksAreThePowerOfTwoUpToEightThatDividesTheBlocks) {
  const std::pair<std::int64_t, int> cases[] = {{512, 8}, {256, 8}, {136, 8}, {1024, 8}, {132, 4},
                                                {12, 4},  {6, 2},   {7, 1},   {1, 1},    {2, 2}};
  for (const auto& [blocks, chunk] : cases) {
    EXPECT_EQ(detail::sum_chunk(blocks), chunk) << blocks;
    EXPECT_EQ(blocks % chunk, 0);
  }
  // every block count a backward can have
  for (std::int64_t rows = 1; rows <= 20000; rows += 7) {
    const std::int64_t blocks = detail::backward_geometry(rows, 4096, 8).blocks;
    const int chunk = detail::sum_chunk(blocks);
    EXPECT_EQ(blocks % chunk, 0) << rows;
    EXPECT_TRUE(chunk == 8 || blocks % (2 * chunk) != 0) << rows;
  }
}

// The row split (launch.hpp's row_slices): none while a block's sums fit in
// 192 KiB, else 8 parts, or the largest power of two under 8 that keeps each
// part a whole number of 16-byte accesses and the grid limit, or none.
TEST(CudaLaunch, RowsSplitInEightWhereTheirSumsPass192KiB) {
  // (width, sums, accumulator bytes, entries a 16-byte access, grid limit) -> parts
  struct Case {
    std::int64_t width;
    int sums;
    std::size_t acc;
    int wide;
    std::int64_t grid;
    int parts;
  };
  const Case cases[] = {
      {49152, 1, 4, 8, 65535, 1},  // RMSNorm's fp32 dgamma: 192 KiB, fits
      {49160, 1, 4, 8, 65535, 1},  // past it, but 49160 / 8 is no whole 16-byte access
      {65536, 1, 4, 8, 65535, 8},  // bf16 at 65536
      {16384, 2, 8, 2, 65535, 8},  // fp64 LayerNorm at 16384: 256 KiB
      {16384, 3, 4, 4, 65535, 1},  // fp32 SeeDNorm at 16384: 192 KiB
      {65528, 1, 4, 4, 65535, 2},  // 65528 = 8 x 8191: 2 parts of 4 x 8191
      {65536, 2, 4, 4, 2, 2},      // the emulator's grid limit of 2
      {65536, 2, 4, 4, 1, 1}};
  for (const Case& c : cases)
    EXPECT_EQ(detail::row_slices(c.width, c.sums, c.acc, c.wide, c.grid), c.parts) << c.width;
}

// A split launch (split_geometry): as many blocks as a backward without the
// split has, rounded up to whole row groups of `slices`, with groups sized
// for two accesses a thread a row; without a split, backward_geometry's.
TEST(CudaLaunch, SplitLaunchesHaveRowGroupsOfTheirPartsAndTheBlocksOfAWholeRow) {
  for (std::int64_t rows : {1, 8, 12, 1024, 2048, 100000}) {
    const auto whole = detail::backward_geometry(rows, 8192, 8);
    const auto same = detail::split_geometry(rows, 8192, 1, 8, 65535);
    EXPECT_EQ(same.blocks, whole.blocks) << rows;
    EXPECT_EQ(same.group, whole.group) << rows;
    const auto split = detail::split_geometry(rows, 8192, 8, 8, 65535);
    EXPECT_EQ(split.blocks, (whole.blocks + 7) / 8) << rows;
    EXPECT_EQ(split.group, 512) << rows;  // 8192 bf16 columns: 2 accesses of 8 a thread
    EXPECT_EQ(split.rows_per_block, 1);
  }
  EXPECT_EQ(detail::split_geometry(1024, 8192, 8, 8, 65535).blocks, 17u);      // of 132
  EXPECT_EQ(detail::split_geometry(1024, 8192, 8, 2, 65535, 512).group, 512);  // the cap
  EXPECT_EQ(detail::split_geometry(100, 8192, 2, 8, 2).blocks, 1u);            // the grid limit
}

TEST(CudaLaunch, ClustersCanBeTurnedOffFromTheEnvironment) {
  using scaleref::test::error_of;
  using scaleref::test::mentions;
  using scaleref::test::ScopedEnv;
  for (const char* on : {static_cast<const char*>(nullptr), "", "on"}) {
    const ScopedEnv env("SCALEREF_CLUSTERS", on);
    EXPECT_TRUE(detail::clusters_allowed("here")) << (on ? on : "unset");
  }
  {
    const ScopedEnv env("SCALEREF_CLUSTERS", "off");
    EXPECT_FALSE(detail::clusters_allowed("here"));
  }
  for (const char* bad : {"Off", "0", "no"}) {
    const ScopedEnv env("SCALEREF_CLUSTERS", bad);
    const std::string e = error_of([] { detail::clusters_allowed("dyt::backward"); });
    EXPECT_TRUE(mentions(e, "dyt::backward: SCALEREF_CLUSTERS must be on or off")) << e;
    EXPECT_TRUE(mentions(e, std::string("got '") + bad + "'")) << e;
  }
}

TEST(CudaLaunch, SecondPassDirectionCanBeForcedFromTheEnvironment) {
  using detail::SecondPass;
  using scaleref::test::error_of;
  using scaleref::test::mentions;
  using scaleref::test::ScopedEnv;
  {
    const ScopedEnv unset("SCALEREF_SECOND_PASS", nullptr);
    EXPECT_EQ(detail::second_pass_override("here"), SecondPass::rule);
  }
  const std::pair<const char*, SecondPass> cases[] = {{"", SecondPass::rule},
                                                      {"rule", SecondPass::rule},
                                                      {"front", SecondPass::front_to_back},
                                                      {"back", SecondPass::back_to_front}};
  for (const auto& [value, expected] : cases) {
    const ScopedEnv env("SCALEREF_SECOND_PASS", value);
    EXPECT_EQ(detail::second_pass_override("here"), expected) << "'" << value << "'";
  }
  for (const char* bad : {"Back", "back ", "reverse", "1"}) {
    const ScopedEnv env("SCALEREF_SECOND_PASS", bad);
    const std::string e = error_of([] { detail::second_pass_override("rmsnorm::backward"); });
    EXPECT_TRUE(mentions(e, "rmsnorm::backward: SCALEREF_SECOND_PASS must be front, back or rule"))
        << e;
    EXPECT_TRUE(mentions(e, std::string("got '") + bad + "'")) << e;
  }
}

TEST(CudaLaunch, SumsNeverAskForMoreSharedMemoryThanTheDeviceGives) {
  // 48 KiB in all leaves 40 KiB beside group_sum's static scratch
  EXPECT_EQ(detail::shared_sums_kept(4096, 4, 0, kNoOptIn), 4096);  // RMSNorm's dgamma, D = 4096
  EXPECT_EQ(detail::shared_sums_kept(seednorm_sums(4096), 4, 4, kNoOptIn), 10239);
  for (const std::size_t opt_in : {kNoOptIn, kHopperOptIn})
    for (const std::size_t extra : {std::size_t{0}, std::size_t{12}, std::size_t{4096}})
      for (const std::size_t bytes : {std::size_t{4}, std::size_t{8}}) {
        const i64 kept = detail::shared_sums_kept(1 << 20, bytes, extra, opt_in);
        EXPECT_LE(static_cast<std::size_t>(kept) * bytes + extra + detail::kStaticSharedBytes,
                  opt_in);
        EXPECT_GT(static_cast<std::size_t>(kept + 1) * bytes + extra + detail::kStaticSharedBytes,
                  opt_in);
      }
  EXPECT_EQ(detail::shared_sums_kept(1, 4, 0, detail::kStaticSharedBytes), 0);
  EXPECT_EQ(detail::shared_sums_kept(1, 4, 0, 0), 0);
  EXPECT_EQ(detail::shared_sums_kept(0, 4, 0, kHopperOptIn), 0);
}

TEST(CudaLaunch, WideRowsKeepWhatFitsOfThemInSharedMemory) {
  const std::size_t room = kHopperOptIn - detail::kStaticSharedBytes;
  // below 16 KiB a row is read again from L1/L2: nothing kept
  EXPECT_EQ(detail::stash_columns(4095, 4, 4, 1, 0, kHopperOptIn), 0);
  EXPECT_EQ(detail::stash_columns(4096, 2, 8, 1, 0, kHopperOptIn), 0);
  // 16 KiB and more: the whole row where it fits, else what fits, in whole vectors
  EXPECT_EQ(detail::stash_columns(4096, 4, 4, 1, 0, kHopperOptIn), 4096);
  EXPECT_EQ(detail::stash_columns(4096, 8, 2, 1, 0, kHopperOptIn), 4096);
  EXPECT_EQ(detail::stash_columns(16384, 4, 4, 1, 0, kHopperOptIn), 16384);
  EXPECT_EQ(detail::stash_columns(16384, 8, 2, 1, 0, kHopperOptIn), 16384);
  EXPECT_EQ(detail::stash_columns(65536, 2, 8, 1, 0, kHopperOptIn), 65536);
  EXPECT_EQ(detail::stash_columns(65536, 4, 4, 1, 0, kHopperOptIn), i64(room / 4) / 4 * 4);
  EXPECT_EQ(detail::stash_columns(65536, 8, 2, 1, 0, kHopperOptIn), i64(room / 8) / 2 * 2);
  EXPECT_EQ(detail::stash_columns(65535, 8, 1, 1, 0, kHopperOptIn), i64(room / 8));
  // beside the kernel's other shared memory, never more than the device gives
  for (std::size_t extra : {0, 4, 64, 1000})
    for (i64 d : {16384, 65535, 65536, 262144})
      for (int v : {1, 2, 4}) {
        const i64 kept = detail::stash_columns(d, 4, v, 1, extra, kHopperOptIn);
        EXPECT_EQ(kept % v, 0);
        EXPECT_LE(kept, d);
        EXPECT_LE(detail::kStaticSharedBytes + extra + std::size_t(kept) * 4, kHopperOptIn);
      }
  // the stash's bytes rounded up to 16, then the kernel's own (SeeDNorm's
  // fp64 forward with one head: 8 bytes), within what the device gives; the
  // first version, which did not count the rounding, asked for 8 too many
  for (std::size_t extra : {8, 24, 40})
    for (int v : {1, 2}) {
      const i64 kept = detail::stash_columns(65536, 8, v, 1, extra, kHopperOptIn);
      const std::size_t stash = (std::size_t(kept) * 8 + 15) / 16 * 16;
      EXPECT_LE(detail::kStaticSharedBytes + stash + extra, kHopperOptIn) << extra << " " << v;
    }
  EXPECT_EQ(detail::stash_columns(65536, 4, 4, 1, 0, kNoOptIn),
            i64((kNoOptIn - detail::kStaticSharedBytes) / 4));
  EXPECT_EQ(detail::stash_columns(65536, 4, 4, 1, kNoOptIn, kNoOptIn), 0);
  // several rows to a block (narrow rows only): nothing kept
  EXPECT_EQ(detail::stash_columns(65536, 4, 4, 2, 0, kHopperOptIn), 0);
}

TEST(CudaLaunch, MultiHeadForwardTakesARowPerBlockWithItsHeadsInSlices) {
  // 16 heads of 256 bf16: 32-thread groups, 4 slices give a row the 128
  // threads one group would get for all of it
  auto g = detail::head_forward_geometry(4096, 4096, 16, 8);
  EXPECT_EQ(g.group, 32);
  EXPECT_EQ(g.rows_per_block, 4);
  EXPECT_EQ(g.blocks, 4096u);
  g = detail::head_forward_geometry(2048, 16384, 16, 8);
  EXPECT_EQ(g.group * g.rows_per_block, 512);
  g = detail::head_forward_geometry(16, 65536, 16, 4);
  EXPECT_EQ(g.group * g.rows_per_block, 1024);
  EXPECT_EQ(g.blocks, 16u);
  // a grid that strides past the device's limit
  EXPECT_EQ(detail::head_forward_geometry(100000, 64, 4, 1, 16).blocks, 16u);
}

}  // namespace
