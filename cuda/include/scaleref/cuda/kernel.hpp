// How a kernel source names what CUDA spells as language extensions that a
// host C++ compiler cannot (a launch, shared memory) and how it touches device
// memory. Under nvcc each is exactly CUDA's own: `<<<>>>`, `__shared__`,
// `extern __shared__`, a T*, `*p` and `*p = v`. In the emulator build
// (SCALEREF_CUDA_EMU, cuda/emu/) the launch runs the kernel's threads as
// fibers on the CPU, and every device pointer is an emu::Ptr that only ld and
// st dereference, each access reported to the emulator's memcheck, initcheck
// and racecheck with its source line (scaleref/emu/access.hpp). Everything
// else in a kernel is plain CUDA C++ and compiles as it is under both
// (cuda/README.md, "The emulator").
//
//   scaleref::cuda::launch<my_kernel<float, 4>>(grid, block, shared_bytes, stream, args...);
//   DevPtr<const float> x; DevRows<float> y;     // kernel parameters: device memory
//   float v = ld(x + i); st(y.data + j, v);       // the only reads and writes of it
//   ptr_cast<const Pack*>(x + j)                  // reinterpret_cast<const Pack*>
//   field(stats, &Stats::sum)                     // &stats->sum
//   SCALEREF_SHARED(float, scratch, 32);          // __shared__ float scratch[32] (a DevPtr)
//   SCALEREF_DYNAMIC_SHARED(unsigned char, smem); // at namespace scope, once per name
//   launch_cluster<k>(grid, block, 8, shared_bytes, stream, args...);  // clusters of 8 blocks
//   cluster_sync(); cluster_rank();               // this_cluster().sync(), .block_rank()
//   cluster_peer(p, r)                            // this_cluster().map_shared_rank(p, r)
//
// A helper that accesses memory for its caller takes SCALEREF_SITE as its
// last parameter and passes SCALEREF_AT to ld and st, so that the emulator
// names the kernel's line, not the helper's; both are empty under nvcc.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <scaleref/cuda/types.hpp>
#include <type_traits>
#include <utility>

#if defined(SCALEREF_CUDA_EMU)
#include <scaleref/emu/access.hpp>
#include <scaleref/emu/launch.hpp>
#elif defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace scaleref::cuda {

#if defined(SCALEREF_CUDA_EMU)
template <class T>
using DevPtr = emu::Ptr<T>;
template <class T>
using DevRows = emu::Rows<T>;
using emu::field;
using emu::ld;
using emu::ptr_cast;
using emu::st;
#define SCALEREF_SITE , std::source_location site = std::source_location::current()
#define SCALEREF_AT , site
#else
// A pointer to device memory, global or shared, as a kernel holds it.
template <class T>
using DevPtr = T*;
// A device matrix view as a kernel receives it.
template <class T>
using DevRows = Rows<T>;
// *p and *p = v, and reinterpret_cast, spelled as macros so that nvcc sees
// exactly the expression a kernel would write without them: through an
// inline function, even a forced one, NVVM orders some instructions
// differently or no longer sees that a pointer is to shared memory (the PTX
// of the rescale and SeeDNorm kernels changed; with the macros it is byte for
// byte the same: scripts/ptx_diff.py). The pointer of st must not hold a
// comma outside parentheses (name a ptr_cast<Pack<D, V>*> first).
#define ld(...) (*(__VA_ARGS__))
#define st(p, ...) (*(p) = (__VA_ARGS__))
#define ptr_cast reinterpret_cast
// &p->*m: member m of the struct at p, on its own (a load of one field
// reads only that field's bytes).
template <class T, class M>
__device__ __forceinline__ auto field(T* p, M std::remove_cv_t<T>::*m) -> decltype(&(p->*m)) {
  return &(p->*m);
}
#define SCALEREF_SITE
#define SCALEREF_AT
#endif

// Thread-block clusters (sm_90): the barrier of every thread of the blocks of
// this block's cluster (it orders their shared memory accesses, as
// __syncthreads does a block's), this block's rank in its cluster, and p (in
// this block's dynamic shared memory) as the same offset in the dynamic
// shared memory of the cluster's block of rank r. A block whose shared memory
// other blocks read must not exit before they are done: a cluster_sync after
// the reads keeps it.
#if defined(SCALEREF_CUDA_EMU)
inline void cluster_sync(std::source_location where = std::source_location::current()) {
  emu::detail::cluster_barrier(where);
}
inline unsigned cluster_rank() { return emu::detail::cluster_rank(); }
template <class T>
DevPtr<T> cluster_peer(DevPtr<T> p, unsigned rank,
                       std::source_location where = std::source_location::current()) {
  return DevPtr<T>(static_cast<T*>(emu::detail::cluster_map(
      const_cast<std::remove_const_t<T>*>(emu::detail::raw(p)), rank, where)));
}
#elif defined(__CUDACC__)
// Clusters exist from sm_90; compiled for an older architecture a kernel that
// reaches one of these traps (the host never launches clusters for such a
// build: SCALEREF_CUDA_CLUSTERS, cuda/CMakeLists.txt).
__device__ __forceinline__ void cluster_sync() {
#if __CUDA_ARCH__ >= 900
  cooperative_groups::this_cluster().sync();
#else
  __trap();
#endif
}
__device__ __forceinline__ unsigned cluster_rank() {
#if __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().block_rank();
#else
  __trap();
  return 0;
#endif
}
template <class T>
__device__ __forceinline__ T* cluster_peer(T* p, unsigned rank) {
#if __CUDA_ARCH__ >= 900
  return cooperative_groups::this_cluster().map_shared_rank(p, rank);
#else
  (void)rank;
  __trap();
  return p;
#endif
}
#endif

// Kernel<<<grid, block, shared_bytes, stream>>>(args...). Launch errors are
// left for cudaGetLastError (check_launch), as after `<<<>>>`.
template <auto Kernel, class... Args>
void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
#if defined(SCALEREF_CUDA_EMU)
  emu::launch_kernel<Kernel>(grid, block, shared_bytes, stream, std::forward<Args>(args)...);
#else
  // clang-format would split `>>>` in a .hpp, which it reads as plain C++
  // clang-format off
  Kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  // clang-format on
#endif
}

// Kernel<<<grid, block, shared_bytes, stream>>>(args...) in clusters of
// `cluster` blocks along x (1 to 8, dividing grid.x; 1: a plain launch).
// Launch errors are left for cudaGetLastError (check_launch).
template <auto Kernel, class... Args>
void launch_cluster(dim3 grid, dim3 block, unsigned cluster, std::size_t shared_bytes,
                    cudaStream_t stream, Args&&... args) {
#if defined(SCALEREF_CUDA_EMU)
  emu::launch_cluster_kernel<Kernel>(grid, block, cluster, shared_bytes, stream,
                                     std::forward<Args>(args)...);
#else
  if (cluster == 1) {
    launch<Kernel>(grid, block, shared_bytes, stream, std::forward<Args>(args)...);
    return;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  // its error, as a launch's, is cudaGetLastError's
  cudaLaunchKernelEx(&config, Kernel, std::forward<Args>(args)...);
#endif
}

}  // namespace scaleref::cuda

// `extern __shared__ __align__(16) type name[];`: the block's dynamic shared
// memory, 16-byte aligned.
// `__shared__ type name[count];` in a kernel or device function: `name` is the
// block's array, a DevPtr<type> under the emulator.
#if defined(SCALEREF_CUDA_EMU)
#define SCALEREF_DYNAMIC_SHARED(type, name)      \
  inline const ::scaleref::emu::Ptr<type> name = \
      ::scaleref::emu::Ptr<type>(static_cast<type*>(::scaleref::emu::dynamic_shared_base()))
#define SCALEREF_SHARED(type, name, count)                  \
  alignas(16) static type name##_storage_[count];           \
  const ::scaleref::emu::Ptr<type> name(static_cast<type*>( \
      ::scaleref::emu::shared_static(name##_storage_, sizeof(name##_storage_))))
#else
#define SCALEREF_DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#define SCALEREF_SHARED(type, name, count) __shared__ type name[count]
#endif
