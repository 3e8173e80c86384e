// The GPU draws the CPU's numbers: uniforms bit for bit (integer arithmetic
// only), normals to a few ulps (CUDA's log, cos and sqrt are within 1-2 ulps
// of correctly rounded; Box-Muller compounds three of them: 8 ulps allowed).
#include <gtest/gtest.h>

#include <cmath>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/philox_fill.hpp>
#include <scaleref/random/philox.hpp>

namespace {

using namespace scaleref;

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

TEST_F(CudaPhilox, NormalsAgreeToEightUlps) {
  const std::size_t n = 1 << 20;
  for (auto draw : {cuda::Draw::normal, cuda::Draw::truncated_normal}) {
    const auto gpu = cuda::philox_fill(12, 4, n, draw);
    for (std::size_t i = 0; i < n; ++i) {
      const double cpu = draw == cuda::Draw::normal ? random::normal(12, 4, i)
                                                    : random::truncated_normal(12, 4, i, 2.0);
      ASSERT_LE(std::abs(gpu[i] - cpu),
                8 * std::numeric_limits<double>::epsilon() * std::abs(cpu) + 1e-300)
          << "index " << i;
    }
  }
}

}  // namespace
