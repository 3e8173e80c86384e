// The device side of CUDA C++ for the host compiler (cuda/emu/): execution
// space qualifiers, the built-in index variables, __syncthreads, the warp
// collectives, atomics, the rounding intrinsics and the math functions.
//
// How each maps (cuda/README.md, "The emulator"):
//   __global__, __device__, __host__, __forceinline__   nothing (plain functions)
//   __launch_bounds__(n)     nothing: the bound is not known to the emulator
//   __shared__               not defined: a kernel declares shared memory with
//                            SCALEREF_SHARED (a function-local static that
//                            registers itself, access.hpp's shared_static) and
//                            SCALEREF_DYNAMIC_SHARED (the arena), both in
//                            scaleref/cuda/kernel.hpp and reached through an
//                            emu::Ptr; the emulator poisons both (a NaN in fp64,
//                            fp32 and bf16: memory.cpp) for each block
//   threadIdx, blockIdx,     globals the scheduler sets before it resumes a
//   blockDim, gridDim        thread (blocks run one at a time)
//   __syncthreads, __shfl_*  switch to the next thread (a fiber) until every
//                            thread of the block (every lane of the mask) is
//                            there; a thread that can never arrive is an error
//   atomicAdd, atomicMax     plain read-modify-write on an emu::Ptr: threads
//                            switch only at the collectives above, so nothing
//                            interleaves
//   this_cluster().sync(),   kernel.hpp's cluster_sync, cluster_rank and
//   block_rank(),            cluster_peer: a barrier of every thread of the
//   map_shared_rank()        cluster's blocks; blockIdx.x mod the cluster's
//                            blocks; the same offset in the dynamic shared
//                            memory of another block of the cluster (each
//                            block's is kept apart while another runs)
#pragma once

#include <math.h>  // the global float and double overloads the kernels call unqualified

#include <cmath>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "access.hpp"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct uint3 {
  unsigned x, y, z;
};

struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

// The running thread's coordinates; the scheduler writes them before each resume.
inline uint3 threadIdx{0, 0, 0};
inline uint3 blockIdx{0, 0, 0};
inline dim3 blockDim{1, 1, 1};
inline dim3 gridDim{1, 1, 1};
inline constexpr int warpSize = 32;

namespace scaleref::emu::detail {

enum class WarpOp : std::uint8_t { sync, shfl, shfl_xor, shfl_up, shfl_down, ballot, any, all };

void barrier(const std::source_location& where);
// One warp collective of the calling lane: waits for every lane of `mask`,
// then returns this lane's result (the bits of the value it receives, or the
// vote). `operand` is the source lane, xor mask or delta.
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t bits, int operand, int width,
                              const std::source_location& where);

// Thread-block clusters (launch.hpp's launch_cluster_kernel): the barrier of
// every thread of the cluster, this block's rank in it, and the address of
// byte `p` of this block's dynamic shared memory in the dynamic shared
// memory of the block of rank `rank`.
void cluster_barrier(const std::source_location& where);
unsigned cluster_rank();
void* cluster_map(void* p, unsigned rank, const std::source_location& where);

template <class T>
std::uint64_t to_bits(T v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "a warp shuffle moves at most 8 bytes");
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof v);
  return b;
}
template <class T>
T from_bits(std::uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// The value this lane receives from a shuffle of v.
template <class T>
T shuffle(WarpOp op, unsigned mask, T v, int operand, int width,
          const std::source_location& where) {
  return from_bits<T>(warp_collective(op, mask, to_bits(v), operand, width, where));
}

}  // namespace scaleref::emu::detail

inline void __syncthreads(std::source_location where = std::source_location::current()) {
  scaleref::emu::detail::barrier(where);
}

inline void __syncwarp(unsigned mask = 0xffffffffu,
                       std::source_location where = std::source_location::current()) {
  scaleref::emu::detail::warp_collective(scaleref::emu::detail::WarpOp::sync, mask, 0, 0, 32,
                                         where);
}

template <class T>
T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32,
              std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return shuffle(WarpOp::shfl, mask, v, src_lane, width, where);
}

template <class T>
T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32,
                  std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return shuffle(WarpOp::shfl_xor, mask, v, lane_mask, width, where);
}

template <class T>
T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32,
                 std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return shuffle(WarpOp::shfl_up, mask, v, static_cast<int>(delta), width, where);
}

template <class T>
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32,
                   std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return shuffle(WarpOp::shfl_down, mask, v, static_cast<int>(delta), width, where);
}

inline unsigned __ballot_sync(unsigned mask, int predicate,
                              std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return static_cast<unsigned>(warp_collective(WarpOp::ballot, mask, predicate != 0, 0, 32, where));
}

inline int __any_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return static_cast<int>(warp_collective(WarpOp::any, mask, predicate != 0, 0, 32, where));
}

inline int __all_sync(unsigned mask, int predicate,
                      std::source_location where = std::source_location::current()) {
  using namespace scaleref::emu::detail;
  return static_cast<int>(warp_collective(WarpOp::all, mask, predicate != 0, 0, 32, where));
}

// Atomics: each returns the old value. Each is one access (memcheck and
// initcheck see it; racecheck leaves atomics out: they do not race with one
// another, and a plain access beside them is not looked for).
namespace scaleref::emu::detail {
// *address = update(old) as one access; returns old.
template <class T, class F>
T atomic_update(Ptr<T> address, F update, const std::source_location& where) {
  T* p = raw(address);
  access(p, sizeof(T), alignof(T), Access::atomic, where);
  const T old = *p;
  *p = update(old);
  return old;
}
}  // namespace scaleref::emu::detail

template <class T>
T atomicAdd(scaleref::emu::Ptr<T> address, std::type_identity_t<T> v,
            std::source_location where = std::source_location::current()) {
  return scaleref::emu::detail::atomic_update(
      address, [v](T old) { return old + v; }, where);
}
template <class T>
T atomicMax(scaleref::emu::Ptr<T> address, std::type_identity_t<T> v,
            std::source_location where = std::source_location::current()) {
  return scaleref::emu::detail::atomic_update(
      address, [v](T old) { return v > old ? v : old; }, where);
}

// Rounding intrinsics of double (and double -> float) in each IEEE direction:
// _rn to nearest even, _rz toward zero, _ru up, _rd down (intrinsics.cpp,
// under the host's dynamic rounding mode). _rn is the host's own arithmetic.
extern "C" {
double __dadd_rz(double a, double b);
double __dadd_ru(double a, double b);
double __dadd_rd(double a, double b);
double __dsub_rz(double a, double b);
double __dsub_ru(double a, double b);
double __dsub_rd(double a, double b);
double __dmul_rz(double a, double b);
double __dmul_ru(double a, double b);
double __dmul_rd(double a, double b);
double __ddiv_rz(double a, double b);
double __ddiv_ru(double a, double b);
double __ddiv_rd(double a, double b);
double __dsqrt_rz(double a);
double __dsqrt_ru(double a);
double __dsqrt_rd(double a);
double __fma_rz(double a, double b, double c);
double __fma_ru(double a, double b, double c);
double __fma_rd(double a, double b, double c);
float __double2float_rz(double a);
float __double2float_ru(double a);
float __double2float_rd(double a);
}
// _rn: the host's own arithmetic, out of line (intrinsics.cpp) so that no
// caller can fuse one's product with another's sum, not even a kernel built
// in the FMA mode (-ffp-contract=fast): CUDA never fuses these.
extern "C" {
double __dadd_rn(double a, double b);
double __dsub_rn(double a, double b);
double __dmul_rn(double a, double b);
double __ddiv_rn(double a, double b);
}
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __double2float_rn(double a) { return static_cast<float>(a); }

inline long long __double_as_longlong(double v) {
  long long b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline double __longlong_as_double(long long b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}
inline int __float_as_int(float v) {
  int b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
inline float __int_as_float(int b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// The math functions: the host's own (glibc) through <math.h>'s global
// overloads. They may differ from CUDA's in the last ulps (CUDA documents
// 1-2 ulps for expf, tanhf, ...), which cuda_check's tolerances cover.
