// Kernel launches on the emulator (cuda/emu/src/scheduler.cpp), and what a
// program may set and read about them. A launch runs synchronously: the
// blocks one after another, the threads of each block as fibers switching at
// __syncthreads and the warp collectives, under each schedule of
// options().schedules; errors are left for cudaGetLastError and the next
// synchronizing call, as a device's are. A launch in thread-block clusters
// (launch_cluster_kernel) runs the blocks of one cluster together: each runs
// until every one of its threads waits at the cluster barrier, then the next
// block of the cluster runs, and once all wait the barrier opens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "access.hpp"
#include "device.hpp"
#include "runtime_api.hpp"

namespace scaleref::emu {

// The order in which the scheduler resumes threads (and visits blocks).
//   in_order, reversed, random   round-robin passes: every ready thread runs to
//                                its next switch point once per pass, in index
//                                order, reversed, or shuffled from the seed
//   warp_ahead, thread_ahead     warp (thread) `seed` of each block runs as far
//                                as barriers and collectives let it before any
//                                other thread moves, and again whenever it can
//   warp_behind, thread_behind   every other thread runs as far as it can
//                                before warp (thread) `seed` moves
// The last four let one warp run on to its next barrier while another is
// still in the previous interval, which round-robin passes never do.
struct Schedule {
  enum Kind {
    in_order,
    reversed,
    random,
    warp_ahead,
    warp_behind,
    thread_ahead,
    thread_behind
  } kind = in_order;
  std::uint64_t seed = 0;  // random: the seed; the others after in_order: the warp or thread
  std::string name() const;
};

// "in-order", "reversed", "random:SEED", "warp-ahead[:W]", "warp-behind[:W]",
// "thread-ahead[:T]", "thread-behind[:T]" (W, T default 0, taken modulo the
// block's warps or threads); throws std::invalid_argument otherwise.
Schedule parse_schedule(std::string_view text);

struct Options {
  // Each launch runs under each of these from the same inputs; the device
  // memory its arguments point into must come out bitwise the same under all
  // of them, else the launch fails naming the first difference.
  std::vector<Schedule> schedules{Schedule{}};
  // gridDim.x beyond this is an invalid configuration, and
  // cudaDevAttrMaxGridDimX reports it: lower it to make grid-stride loops
  // stride at small sizes. An H100's is 2^31 - 1.
  unsigned max_grid_x = 2147483647u;
  // cudaDevAttrL2CacheSize reports it (an H100's: 50 MiB; an H200 reports 60): lower
  // it to make a host rule that depends on it take its other branch at small
  // sizes (the backward's second-pass direction, cuda/src/detail/launch.hpp).
  int l2_bytes = 50 * 1024 * 1024;
  // What every kernel access is checked for (cuda/emu/src/checks.cpp).
  // SCALEREF_EMU_CHECK=race adds racecheck (slower); =none turns all three
  // off, leaving the checks that need no instrumented access (guard pages,
  // padding, poison, schedules: the emulator as it was before them).
  bool memcheck = true;
  bool initcheck = true;
  bool racecheck = false;
  // The memory-traffic counters (scaleref/emu/traffic.hpp): off by default.
  bool traffic = false;
  // Run at most this many blocks of a launch, evenly spaced (0: all), for
  // the speed model only: the other blocks' outputs are never written, and
  // initcheck is off for a sampled launch (traffic.hpp).
  unsigned sample_blocks = 0;
};

// The process's options: read from the environment at first use
// (SCALEREF_EMU_SCHEDULES="in-order,reversed,random:7", SCALEREF_EMU_MAX_GRID_X=N,
// SCALEREF_EMU_CHECK=race),
// then the program's to change. Not to be changed while a launch runs.
Options& options();

struct Stats {
  std::uint64_t launches = 0;  // kernel launches (each schedule of one launch counts once)
  std::uint64_t blocks = 0;    // blocks run
  std::uint64_t threads = 0;   // threads run
  std::uint64_t resumes = 0;   // thread steps: a thread run from one switch point to the next
  double seconds = 0;          // wall time inside launches
};
Stats stats();

// The base address of the block's dynamic shared memory (kernel.hpp's
// SCALEREF_DYNAMIC_SHARED): fixed for the process; its first `shared_bytes`
// of a launch are the block's, poisoned before each block, and the pages past
// them are inaccessible during the launch.
void* dynamic_shared_base();

namespace detail {

struct Launch {
  const void* kernel;  // identifies the kernel (cudaFuncSetAttribute's key)
  const char* name;    // its name, for messages
  dim3 grid, block;
  std::size_t shared_bytes;
  void (*body)(void* params);  // runs the kernel with the launch's parameters
  void* params;                // the parameters, as the kernel's own types
  std::size_t params_bytes;    // scanned for pointers into device memory
  unsigned cluster = 1;        // blocks per cluster, along x (1: no clusters)
};
void run(const Launch& launch);

template <class Tuple>
inline constexpr bool all_kernel_params = false;
template <class... P>
inline constexpr bool all_kernel_params<std::tuple<P...>> = (KernelParam<P> && ...);

template <class F>
struct ParamsOf;
template <class... P>
struct ParamsOf<void (*)(P...)> {
  using type = std::tuple<std::decay_t<P>...>;
};

// The kernel's name as the compiler spells the template argument, without
// "{anonymous}::" ("scaleref::cuda::rmsnorm::forward_kernel<float, 4>").
std::string readable_kernel_name(std::string_view pretty_function);

template <auto Kernel>
const char* kernel_name() {
  static const std::string name = readable_kernel_name(__PRETTY_FUNCTION__);
  return name.c_str();
}

}  // namespace detail

// Kernel<<<grid, block, shared_bytes, stream>>>(args...) on the CPU, in
// clusters of `cluster` blocks along x (cudaLaunchKernelEx with
// cudaLaunchAttributeClusterDimension {cluster, 1, 1}): 1 to 8 blocks (the
// portable sizes), and grid.x a multiple of it.
template <auto Kernel, class... Args>
void launch_cluster_kernel(dim3 grid, dim3 block, unsigned cluster, std::size_t shared_bytes,
                           cudaStream_t, Args&&... args) {
  using Params = typename detail::ParamsOf<decltype(Kernel)>::type;
  static_assert(detail::all_kernel_params<Params>,
                "a kernel parameter holds a raw pointer: take device memory as DevPtr<T> or "
                "DevRows<T> (scaleref/cuda/kernel.hpp), so that every access goes through ld and "
                "st; a struct parameter declares `using kernel_args = void;` (emu/access.hpp)");
  // converted to the parameters' types, as CUDA does; raw device pointers to Ptr explicitly
  Params params{std::forward<Args>(args)...};
  const auto body = [](void* p) { std::apply(Kernel, *static_cast<const Params*>(p)); };
  detail::run({reinterpret_cast<const void*>(Kernel), detail::kernel_name<Kernel>(), grid, block,
               shared_bytes, +body, &params, sizeof params, cluster});
}

// Kernel<<<grid, block, shared_bytes, stream>>>(args...) on the CPU.
template <auto Kernel, class... Args>
void launch_kernel(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                   Args&&... args) {
  launch_cluster_kernel<Kernel>(grid, block, 1, shared_bytes, stream, std::forward<Args>(args)...);
}

}  // namespace scaleref::emu
