// The GPU draws the CPU's numbers bit for bit. Uniforms are integer
// arithmetic and one exact scaling. Normals are too since Box-Muller's ln and
// cos are the project's own (scaleref/random/portable_math.hpp): IEEE basic
// operations only (correctly rounded on host and device alike) in one fixed
// order that no compiler may fuse into FMAs (__dmul_rn on the device, a product
// barrier on the host), plus the correctly rounded sqrt and one product. The
// platform's ::log and ::cos, which differ by ulps between glibc and CUDA, are
// no longer in the path, so the values are compared bitwise (their bit
// patterns: -0 and +0 differ).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ios>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/philox_fill.hpp>
#include <scaleref/random/philox.hpp>

namespace {

using namespace scaleref;

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

class CudaPhilox : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto info = cuda::query_device();
    if (!info.available) GTEST_SKIP() << info.reason;
  }
};

TEST_F(CudaPhilox, UniformsAreBitwiseTheHostOnes) {
  const std::size_t n = 1 << 20;
  const auto gpu = cuda::philox_fill(11, 3, n, cuda::Draw::uniform);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(gpu[i], random::uniform(11, 3, i)) << "index " << i;
}

TEST_F(CudaPhilox, NormalsAreBitwiseTheHostOnes) {
  const std::size_t n = 1 << 20;
  for (auto draw : {cuda::Draw::normal, cuda::Draw::truncated_normal}) {
    const auto gpu = cuda::philox_fill(12, 4, n, draw);
    for (std::size_t i = 0; i < n; ++i) {
      const double cpu = draw == cuda::Draw::normal ? random::normal(12, 4, i)
                                                    : random::truncated_normal(12, 4, i, 2.0);
      ASSERT_EQ(bits(gpu[i]), bits(cpu))
          << "index " << i << ": GPU " << std::hexfloat << gpu[i] << ", CPU " << cpu;
    }
  }
}

}  // namespace
