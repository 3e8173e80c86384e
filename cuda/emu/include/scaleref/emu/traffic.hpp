// The emulator's memory-traffic counters (issue 34's speed model): what each
// launch asks of the memory system, counted at every kernel access
// (access.hpp's ld and st), the way an SM's load/store unit sees it.
//
// Requests. A warp issues one request per source site and occurrence: the
// n-th time each of its lanes executes one ld or st (file, line, column)
// since the block began, its lanes' accesses form one request, as the n-th
// dynamic instance of one instruction does on the GPU. (Fibers run a lane at
// a time; the occurrence count pairs the lanes up again. Lanes that skip an
// instance, at a ragged tail, join the next one: a request may then hold
// accesses a GPU would issue apart.)
//
// Global memory: the 32-byte sectors a request touches, against the fewest
// that could hold its distinct bytes (ceil(bytes / 32)): their ratio is the
// coalescing efficiency.
//
// Shared memory: 32 banks of 4 bytes. A request's lanes go in phases of
// 128 bytes' worth of their widest access (one phase of 32 lanes for 4-byte
// accesses, two of 16 for 8-byte, four of 8 for 16-byte), and each phase
// takes the most distinct 4-byte words it touches in any one bank; a
// request's wavefronts are the sum over its phases, and at least its
// distinct bytes / 128 (a 16-byte access per lane moves 512 bytes: 4
// wavefronts with no conflict); its conflict degree is wavefronts over that
// least number. Lanes reading the same word are one access (a broadcast),
// and a request of at most 128 distinct bytes is one phase (a double every
// lane reads is one wavefront). The phases came from an H200's counts
// (cuda/results/2026-11-27b-nvidia-h200/ncu: fp64 sum_partials' transposed
// tiles took the wavefronts of two half-warps, each 2-way, where the whole
// warp's busiest bank holds 2 words).
//
// DRAM (the cache model). A sector's first touch in a launch is read from
// DRAM (reads) and every sector written is written back once (writes); a
// sector read again by the same block is a re-read whose reuse distance is
// kept in a histogram, so that the model (scripts/cuda_model.py) can count it
// again when the blocks resident at once would have pushed it out of L2. The
// distance is measured in the block's time, a thread's bytes accessed times
// the block's threads (the threads of a block advance together, as a warp's
// lanes do): the other lanes of one request re-read at distance 0, and a
// second pass over a row at the row's bytes, though the emulator runs a
// thread at a time. A sector another block touched first is an L2 hit, and
// so is a block's re-read of a sector that another block has touched (data
// every block reads, such as a parameter vector each row reads again: the
// resident blocks keep touching it, so it stays in L2 whatever one block's
// reuse distance; counted apart, not in the histogram). A re-read of a
// sector the block stored to since it last loaded it (a read-modify-write
// of a running sum in global memory) is also counted by distance in a
// second histogram: an eviction between the store and the re-read writes
// the sector back before it is read again (the model counts both; one
// write per written sector was all it counted before Nsight Compute, on an
// H200, wrote 784 MB where the model had 239 in SeeDNorm's bf16 backward at
// 1024 x 65536, its sums in global memory). The first blocks to
// run cannot know yet that others will share a sector: their re-reads are
// binned at the launch's end, when every block that ran has touched what it
// touches, and those of sectors another block touched are shared re-reads
// too. (Binned as they happened, a sampled launch in clusters of 8, two
// clusters run, had the first cluster's re-reads of beta, a row apart, in
// the histogram, and the model counted them far, scaled as the blocks' own:
// 267 MB, 0.17x of the minimum, of fp64 SeeDNorm's backward at 1024 x
// 65536.) The log costs 9 bytes a re-read of a sector not yet shared, for
// one launch, freed at its end: that case's cuda_traffic run peaked at 13.5
// GB, 0.2 GB more than with re-reads binned as they happened. Not
// modelled: L1 (each re-read is an L2 access), the L2's associativity, its
// write policy for partial sectors, DRAM pages, blocks that run unevenly.
//
// Sampling: with Options::sample_blocks = N, a launch of more than N blocks
// runs only N of them, evenly spaced (block k * blocks / N), and its counts
// are scaled by blocks / N, but for the first reads of sectors more than one
// of them touched (shared_first_read_sectors: read once, however many
// blocks run; with N under 2 C, a single cluster runs and its parts of a
// shared vector are still scaled) (a launch in clusters of C blocks runs
// max(1, N / C) whole clusters, evenly spaced: more than N blocks where
// N < C). The others never run: their outputs are not written, so sampling
// is for the model only (initcheck is off while it is on; values read are
// whatever the buffers held).
//
// Clusters: a block's accesses to another block's shared memory (kernel.hpp's
// cluster_peer, distributed shared memory) count as shared-memory requests
// of the block that makes them, as its own do. Not modelled: the SM-to-SM
// network they cross.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace scaleref::emu {

// One source site's accesses of one kind (load or store, global or shared)
// in one launch, over the blocks that ran.
struct SiteTraffic {
  std::string site;  // "file:line"
  bool shared = false, store = false;
  std::uint64_t requests = 0;
  std::uint64_t bytes = 0;  // distinct bytes asked, summed over requests
  // global
  std::uint64_t sectors = 0, min_sectors = 0;
  // shared
  std::uint64_t wavefronts = 0, min_wavefronts = 0;
  double worst_degree = 0;  // the largest wavefronts / least of one request
};

// Re-reads by one block of a sector it touched before, by reuse distance:
// bucket k holds those with distance in [2^k, 2^(k+1)) bytes (bucket 0: < 2).
inline constexpr int kReuseBuckets = 48;

struct LaunchTraffic {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::size_t shared_bytes = 0;  // dynamic
  unsigned cluster = 1;          // blocks per thread-block cluster
  std::uint64_t blocks = 0, blocks_run = 0;
  std::vector<SiteTraffic> sites;        // unscaled: the blocks that ran
  std::uint64_t first_read_sectors = 0;  // distinct sectors read first in the launch
  // of those, the ones other blocks touched too (data the blocks share, such
  // as a parameter vector): read once however many blocks run, so a model
  // scales only the rest by the sampling (a forward in 8192 blocks, 16 of
  // them sampled, had its 256 KiB gamma counted 512 times)
  std::uint64_t shared_first_read_sectors = 0;
  std::uint64_t written_sectors = 0;                  // distinct sectors written
  std::array<std::uint64_t, kReuseBuckets> reread{};  // sectors re-read, by reuse distance
  // of those, the re-reads of sectors the block stored to since it last
  // loaded them (a running sum in global memory): where the model finds the
  // sector evicted in between, it was written back dirty as well
  std::array<std::uint64_t, kReuseBuckets> reread_dirty{};
  std::uint64_t shared_rereads = 0;  // re-reads of sectors other blocks touched (L2 hits)

  double scale() const { return blocks_run ? double(blocks) / double(blocks_run) : 0.0; }
};

// The launches since the last take_traffic(), in order (Options::traffic on).
std::vector<LaunchTraffic> take_traffic();

}  // namespace scaleref::emu
