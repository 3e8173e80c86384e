#include <cuda_runtime.h>

#include <algorithm>
#include <scaleref/cuda/kernel.hpp>
#include <scaleref/cuda/philox_fill.hpp>
#include <scaleref/error.hpp>
#include <scaleref/random/philox.hpp>

namespace scaleref::cuda {

namespace {

__global__ void fill(std::uint64_t seed, std::uint32_t tensor, std::size_t n, Draw draw,
                     DevPtr<double> out) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    switch (draw) {
      case Draw::uniform:
        st(out + i, random::uniform(seed, tensor, i));
        break;
      case Draw::normal:
        st(out + i, random::normal(seed, tensor, i));
        break;
      case Draw::truncated_normal:
        st(out + i, random::truncated_normal(seed, tensor, i, 2.0));
        break;
    }
  }
}

void check(cudaError_t e, const char* what) {
  require(e == cudaSuccess, "cuda::philox_fill", what, ": ", cudaGetErrorString(e));
}

}  // namespace

std::vector<double> philox_fill(std::uint64_t seed, std::uint32_t tensor, std::size_t n,
                                Draw draw) {
  std::vector<double> host(n);
  if (n == 0) return host;
  double* dev = nullptr;
  check(cudaMalloc(&dev, n * sizeof(double)), "cudaMalloc");
  int limit = 0;  // the device's grid limit (the emulator's may be lowered)
  cudaDeviceGetAttribute(&limit, cudaDevAttrMaxGridDimX, 0);
  const std::size_t blocks = std::min<std::size_t>({(n + 255) / 256, 1024, std::size_t(limit)});
  launch<fill>(static_cast<unsigned>(blocks), 256, 0, nullptr, seed, tensor, n, draw, dev);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaMemcpy(host.data(), dev, n * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(dev);
  check(e, "kernel launch or copy");
  return host;
}

}  // namespace scaleref::cuda
