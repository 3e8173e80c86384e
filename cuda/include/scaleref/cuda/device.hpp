// What CUDA device this process can use, if any. Host code; no CUDA headers.
//
// Every GPU program and test in scaleref asks here first, so that on a machine
// without a GPU (CI) they skip with this message instead of failing.
#pragma once

#include <string>

namespace scaleref::cuda {

struct DeviceInfo {
  bool available = false;
  std::string reason;  // why not, when not available ("no CUDA device: ...")
  std::string name;    // "NVIDIA H100 80GB HBM3"
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  double memory_gib = 0;
  double memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  double peak_bandwidth_gbs() const;  // 2 x memory clock x bus width
  std::string str() const;            // one line for logs and results files
};

// Device 0 as seen by the CUDA runtime, or why there is none.
DeviceInfo query_device();

}  // namespace scaleref::cuda
