// The CUDA runtime sees a device, or every GPU test skips saying why.
#include <gtest/gtest.h>

#include <scaleref/cuda/device.hpp>

namespace {

TEST(CudaDevice, ReportsADeviceOrWhyThereIsNone) {
  const auto info = scaleref::cuda::query_device();
  if (!info.available) {
    EXPECT_NE(info.reason.find("no CUDA device"), std::string::npos) << info.reason;
    GTEST_SKIP() << info.reason;
  }
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_major, 7);  // CUDA 13 supports sm_75 and newer
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_GT(info.memory_gib, 0.0);
  EXPECT_GT(info.peak_bandwidth_gbs(), 0.0);
  std::printf("%s\n", info.str().c_str());
}

}  // namespace
