// Kernels that reach device memory outside the instrumented path
// (scaleref/cuda/kernel.hpp): each must fail to compile under the emulator
// (tests/CMakeLists.txt: emu.rejects_*, which require the compiler's message).
#include <scaleref/cuda/kernel.hpp>

using scaleref::cuda::DevPtr;
using scaleref::cuda::launch;
using scaleref::cuda::ld;
using scaleref::cuda::st;

#if defined(PLANT_RAW_POINTER)
// A raw pointer parameter: dereferenced with no check.
__global__ void planted(float* out) { out[threadIdx.x] = 1.0f; }
void run(float* out) { launch<planted>(1, 32, 0, nullptr, out); }
#elif defined(PLANT_RAW_STRUCT)
// A struct parameter that does not declare itself a kernel argument.
struct Args {
  float* out;
};
__global__ void planted(Args a) { a.out[threadIdx.x] = 1.0f; }
void run(float* out) { launch<planted>(1, 32, 0, nullptr, Args{out}); }
#elif defined(PLANT_RAW_SHARED)
// Shared memory declared as CUDA spells it, read and written directly.
__global__ void planted(DevPtr<float> out) {
  __shared__ float s[32];
  s[threadIdx.x] = 1.0f;
  st(out + threadIdx.x, s[threadIdx.x]);
}
#elif defined(PLANT_DEREFERENCE)
// A DevPtr dereferenced as a pointer.
__global__ void planted(DevPtr<float> out) { out[threadIdx.x] = 1.0f; }
#elif defined(PLANT_NONE)
// The same kernel through the path: compiles.
__global__ void planted(DevPtr<float> out) { st(out + threadIdx.x, 1.0f); }
void run(float* out) { launch<planted>(1, 32, 0, nullptr, out); }
#endif
