// Device memory and error checks for host programs (scaleref/cuda/buffer.hpp).
#include <cuda_runtime.h>

#include <atomic>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/error.hpp>

namespace scaleref::cuda {

namespace {

// The installed allocator (set_device_allocator) and how many of its or
// cudaMalloc's allocations are live.
DeviceAllocator allocator;
std::atomic<long> live{0};

void check(cudaError_t e, const char* call, std::size_t bytes) {
  require(e == cudaSuccess, "cuda", ": ", call, "(", bytes, " bytes): ", cudaGetErrorString(e));
}

}  // namespace

void* device_malloc(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  if (allocator.allocate) {
    p = allocator.allocate(bytes);
    require(p != nullptr, "cuda", ": the installed allocator could not allocate ", bytes, " bytes");
  } else {
    check(cudaMalloc(&p, bytes), "cudaMalloc", bytes);
  }
  live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void device_free(void* p) noexcept {
  if (!p) return;
  live.fetch_sub(1, std::memory_order_relaxed);
  if (allocator.release) {
    allocator.release(p);
  } else {
    cudaFree(p);
  }
}

void set_device_allocator(const DeviceAllocator& a) {
  require((a.allocate == nullptr) == (a.release == nullptr), "cuda::set_device_allocator",
          "give both allocate and release, or neither (cudaMalloc and cudaFree)");
  const long n = live.load();
  require(n == 0, "cuda::set_device_allocator", n,
          " allocations from device_malloc are live: each must go back to the allocator "
          "that gave it, so install an allocator before the first allocation");
  allocator = a;
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
