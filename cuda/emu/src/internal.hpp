// What the emulator's parts tell one another (cuda/emu/src; not installed).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

namespace scaleref::emu {

// runtime.cpp: an error for cudaGetLastError and for the next synchronizing
// call, with the detail cudaGetErrorString appends. Returns `code`.
cudaError_t record_error(cudaError_t code, std::string detail);
// The dynamic shared memory a launch of `kernel` may use without error
// (cudaFuncSetAttribute's value, else the 48 KiB every kernel gets).
std::size_t dynamic_shared_limit(const void* kernel);
// The static shared memory a kernel may declare beside the dynamic bytes it
// is launched with: a GPU counts both against one budget, the 48 KiB a
// launch gets (static + dynamic), or, once the kernel opted in to A bytes of
// dynamic shared memory, the 227 KiB one block may have (static + A). `why`
// says which, for the message. Static shared memory is known only as the
// kernel declares it (checks.cpp's shared_static checks it then).
struct StaticSharedBudget {
  std::size_t bytes;
  std::string why;
};
StaticSharedBudget static_shared_budget(const void* kernel, std::size_t dynamic_bytes);

// scheduler.cpp: where the process is, for a fault's message: "kernel K,
// block (x, y, z), thread (x, y, z)", or "host code (no kernel running)".
// Writes into buf without allocating (it runs in a signal handler).
void describe_position(char* buf, std::size_t size);

// scheduler.cpp: how messages name a block or thread, "(x, y, z)", and a
// source line, "cuda/src/rmsnorm.cu:42" (the path from cuda/ or tests/).
std::string coords(uint3 v);
std::string site(const std::source_location& where);

// scheduler.cpp: fails the running block, as its barrier checks do, with
// `why` (which names the kernel); the launch then fails with it.
[[noreturn]] void fail_running_block(std::string why);

// checks.cpp: the state behind initcheck and racecheck (detail::access).
namespace checks {
// memory.cpp and runtime.cpp: an allocation made and freed; bytes written by
// a copy, a memset or cuBLAS (device side, already checked to be inside one).
void allocated(const void* data, std::size_t bytes);
void freed(const void* data);
void written(const void* p, std::size_t bytes);
// runtime.cpp, before a copy out of device memory: "" when every byte of
// [p, p + bytes) was written (or initcheck is off), else where the first
// byte nothing wrote lies ("byte K of the B-byte allocation at P").
std::string unwritten(const void* p, std::size_t bytes);
// scheduler.cpp: each schedule of a launch, each block, each barrier passed,
// each warp collective completed (the lanes of `mask` are ordered with one another).
// A sampled launch (Options::sample_blocks) runs without initcheck.
// `static_budget`: the static shared memory a block may declare (above).
void begin_launch(const char* kernel, dim3 grid, dim3 block, void* dynamic_lo,
                  std::size_t dynamic_bytes, bool sampled, StaticSharedBudget static_budget);
void begin_block(std::uint32_t block_linear, unsigned threads, unsigned rank = 0);
void end_block();
void barrier();
void warp_collective(unsigned warp, unsigned mask);
// Thread-block clusters: a cluster of `blocks` begins (before its blocks'
// begin_block, with their ranks); the running block of rank `rank` is parked
// at the cluster barrier (its shared memory kept in its window) and later
// resumed; the cluster barrier opens; the cluster ends (after its blocks'
// end_block).
void begin_cluster(unsigned blocks);
void park_block(unsigned rank);
void resume_block(unsigned rank);
void cluster_barrier();
void end_cluster();
}  // namespace checks

// traffic.cpp: the memory-traffic counters (scaleref/emu/traffic.hpp), fed by
// the scheduler (launches and blocks, the first schedule only) and by
// checks.cpp's access() (every kernel load and store, after its checks).
namespace traffic {
void begin_launch(const char* kernel, dim3 grid, dim3 block, std::size_t shared_bytes,
                  unsigned cluster, std::uint64_t blocks, std::uint64_t blocks_run);
void begin_block(unsigned threads);
void end_block();
// A block of a cluster parked at the cluster barrier, and resumed: its
// requests and reuse clock are kept apart while another block runs.
void park_block(unsigned rank);
void resume_block(unsigned rank);
void end_launch();
void access(const void* p, std::size_t n, bool shared, bool store, std::uint32_t thread,
            const std::source_location& where);
}  // namespace traffic

// memory.cpp: cudaMalloc and cudaFree (with their checks) and the bytes in use.
cudaError_t allocate(void** ptr, std::size_t bytes);
cudaError_t release(void* ptr);
std::size_t device_bytes_in_use();

namespace memory {

// One device allocation as the kernels see it.
struct Span {
  std::byte* data;
  std::size_t bytes;
};

// The live allocations that some 8-byte word of [params, params + bytes)
// points into: the memory a launch can reach through its arguments.
std::vector<Span> reachable(const void* params, std::size_t bytes);
// Whether [p, p + bytes) lies inside one live allocation.
bool is_device(const void* p, std::size_t bytes);
// "" when the bytes around allocation `s` inside its pages are as the
// allocator left them, else what was written where.
std::string check_padding(const Span& s);
// Makes the first `bytes` of the dynamic shared memory accessible, the rest
// of its pages not (out-of-bounds accesses fault).
void arm_dynamic_shared(std::size_t bytes);

// Shared memory's poison: the 16-bit unit 0xfff1 repeated, a NaN read as
// bf16 (0xfff1), fp32 (0xfff1fff1) or fp64 (0xfff1fff1fff1fff1), and kept by
// arithmetic on it (a NaN operand's payload carries to the result) and by
// the conversion to bf16. An fp32 or fp64 result computed from shared memory
// that no thread wrote holds the 32-bit word 0xfff1fff1.
inline constexpr std::uint32_t kPoisonWord = 0xfff1fff1u;
void poison(void* p, std::size_t bytes);
void poison_dynamic_shared(std::size_t bytes);
// The byte offsets of the 4-byte-aligned poison words in each span.
std::vector<std::vector<std::size_t>> poison_words(const std::vector<Span>& spans);
// Installs the fault handler (once) and an alternate signal stack for this thread.
void install_fault_handler();
// Fiber stacks: [lo, hi) is an inaccessible guard below a stack.
void note_stack_guard(const void* lo, const void* hi);

}  // namespace memory

namespace checks {
// initcheck's written flags of the allocations `spans` name, saved with a
// launch's snapshot and put back with it, so that each schedule starts from
// what the launch found.
std::vector<std::vector<std::uint8_t>> save_written(const std::vector<memory::Span>& spans);
void restore_written(const std::vector<memory::Span>& spans,
                     const std::vector<std::vector<std::uint8_t>>& saved);
}  // namespace checks

}  // namespace scaleref::emu
