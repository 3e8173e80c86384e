// Device memory and error checks for host programs (scaleref/cuda/buffer.hpp).
#include <cuda_runtime.h>

#include <scaleref/cuda/buffer.hpp>
#include <scaleref/error.hpp>

namespace scaleref::cuda {

namespace {

void check(cudaError_t e, const char* call, std::size_t bytes) {
  require(e == cudaSuccess, "cuda", ": ", call, "(", bytes, " bytes): ", cudaGetErrorString(e));
}

}  // namespace

void* device_malloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc", bytes);
  return p;
}

void device_free(void* p) noexcept {
  if (p) cudaFree(p);
}

void copy_to_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes)
    check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy to device", bytes);
}

void copy_to_host(void* dst, const void* src, std::size_t bytes) {
  if (bytes)
    check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy to host", bytes);
}

void fill_zero(void* dst, std::size_t bytes, Stream stream) {
  if (bytes) check(cudaMemsetAsync(dst, 0, bytes, stream), "cudaMemsetAsync", bytes);
}

void synchronize(Stream stream) {
  const cudaError_t e = cudaStreamSynchronize(stream);
  require(e == cudaSuccess, "cuda",
          ": a kernel failed (cudaStreamSynchronize): ", cudaGetErrorString(e));
}

void check_launch(const char* where) {
  const cudaError_t e = cudaGetLastError();
  require(e == cudaSuccess, where, "kernel launch failed: ", cudaGetErrorString(e));
}

void throw_size_mismatch(std::size_t expected, std::size_t got) {
  fail("cuda::DeviceBuffer: expected ", expected, " elements, got ", got);
}

}  // namespace scaleref::cuda
