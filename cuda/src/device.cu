#include <cuda_runtime.h>

#include <cstdio>
#include <scaleref/cuda/device.hpp>

namespace scaleref::cuda {

double DeviceInfo::peak_bandwidth_gbs() const {
  return 2.0 * memory_clock_mhz * 1e6 * (memory_bus_bits / 8.0) / 1e9;
}

std::string DeviceInfo::str() const {
  if (!available) return reason;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.1f GiB, %.0f GB/s theoretical)",
                name.c_str(), compute_major, compute_minor, multiprocessors, memory_gib,
                peak_bandwidth_gbs());
  return buf;
}

DeviceInfo query_device() {
  DeviceInfo info;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    info.reason = std::string("no CUDA device: ") +
                  (err != cudaSuccess ? cudaGetErrorString(err) : "the runtime reports 0 devices");
    return info;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) {
    info.reason = "no CUDA device: cudaGetDeviceProperties failed";
    return info;
  }
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  info.available = true;
  info.name = p.name;
  info.compute_major = p.major;
  info.compute_minor = p.minor;
  info.multiprocessors = p.multiProcessorCount;
  info.memory_gib = static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  info.memory_clock_mhz = clock_khz / 1000.0;
  info.memory_bus_bits = bus_bits;
  return info;
}

}  // namespace scaleref::cuda
