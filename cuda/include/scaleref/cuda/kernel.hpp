// How a kernel source names the two things CUDA spells as language extensions
// that a host C++ compiler cannot: a launch and dynamic shared memory. Under
// nvcc they are exactly CUDA's `<<<>>>` and `extern __shared__`; in the
// emulator build (SCALEREF_CUDA_EMU, cuda/emu/) the launch runs the kernel's
// threads as fibers on the CPU and the dynamic shared memory is the block's
// arena. Everything else in a kernel is plain CUDA C++ and compiles as it is
// under both (cuda/README.md, "The emulator").
//
//   scaleref::cuda::launch<my_kernel<float, 4>>(grid, block, shared_bytes, stream, args...);
//   SCALEREF_DYNAMIC_SHARED(unsigned char, smem);   // at namespace scope, once per name
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#if defined(SCALEREF_CUDA_EMU)
#include <scaleref/emu/launch.hpp>
#endif

namespace scaleref::cuda {

// Kernel<<<grid, block, shared_bytes, stream>>>(args...). Launch errors are
// left for cudaGetLastError (check_launch), as after `<<<>>>`.
template <auto Kernel, class... Args>
void launch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
#if defined(SCALEREF_CUDA_EMU)
  emu::launch<Kernel>(grid, block, shared_bytes, stream, std::forward<Args>(args)...);
#else
  // clang-format would split `>>>` in a .hpp, which it reads as plain C++
  // clang-format off
  Kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  // clang-format on
#endif
}

}  // namespace scaleref::cuda

// `extern __shared__ __align__(16) type name[];`: the block's dynamic shared
// memory, 16-byte aligned.
#if defined(SCALEREF_CUDA_EMU)
#define SCALEREF_DYNAMIC_SHARED(type, name) \
  inline type* const name = static_cast<type*>(::scaleref::emu::dynamic_shared_base())
#else
#define SCALEREF_DYNAMIC_SHARED(type, name) extern __shared__ __align__(16) type name[]
#endif
