// The initializers on the GPU (scaleref/cuda/init.hpp) give the CPU's
// init::draw values bit for bit, for every method and storage type: the law
// is the reference's own, the draws are the shared Philox streams (normals
// through scaleref/random/portable_math.hpp, the same bits on host and device),
// and each value is rounded to T as types.hpp's from_double.
//
// The CudaInitInput cases need no device (every input check comes before
// any CUDA call), so they run everywhere; the CudaInit cases skip without
// one, saying why.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/init.hpp>
#include <scaleref/init/initializers.hpp>
#include <string>
#include <vector>

#include "error_support.hpp"

namespace {

using namespace scaleref;
using cuda::bf16;
using cuda::Rows;
using scaleref::test::error_of;
using scaleref::test::mentions;
using i64 = std::int64_t;

namespace ref = scaleref::init;
namespace gpu = scaleref::cuda::init;

// ---- input checks: no device needed -----------------------------------------------

TEST(CudaInitInput, RejectsABadConfigWithTheReferencesMessage) {
  std::vector<float> host(12);
  const Rows<float> out{host.data(), 3, 4, 4};
  const random::Stream rng{1, 2};
  const std::string sigma = error_of([&] {
    gpu::draw<float>({3, 4, ref::Role::query}, 1, ref::Gaussian{0.0}, rng, out);
  });
  EXPECT_TRUE(mentions(sigma, "cuda::init::draw") && mentions(sigma, "finite sigma > 0")) << sigma;
  const std::string alpha = error_of([&] {
    gpu::draw<float>({3, 4, ref::Role::query}, 1, ref::DSInit{1.5}, rng, out);
  });
  EXPECT_TRUE(mentions(alpha, "alpha in (0, 1]")) << alpha;
  const std::string sir = error_of([&] {
    gpu::draw<float>({3, 4, ref::Role::up}, 5, ref::SIR{0.02, 4}, rng, out);
  });
  EXPECT_TRUE(mentions(sir, "l <= n_layers")) << sir;
}

TEST(CudaInitInput, RejectsALayerIndexBelowOneInsideADecoderLayer) {
  std::vector<double> host(12);
  const Rows<double> out{host.data(), 3, 4, 4};
  const std::string e = error_of([&] {
    gpu::draw<double>({3, 4, ref::Role::key}, 0, ref::LIR{0.02}, {1, 2}, out);
  });
  EXPECT_TRUE(mentions(e, "layer index l >= 1")) << e;
}

TEST(CudaInitInput, RejectsAnOutputOfAnotherShape) {
  std::vector<float> host(12);
  const Rows<float> out{host.data(), 4, 3, 3};
  const std::string e = error_of([&] {
    gpu::draw<float>({3, 4, ref::Role::up}, 1, ref::KaimingNormal{}, {1, 2}, out);
  });
  EXPECT_TRUE(mentions(e, "expected out [3x4] like the shape, got [4x3]")) << e;
}

TEST(CudaInitInput, RejectsANullOrNarrowOutput) {
  std::vector<float> host(12);
  const Rows<float> null{nullptr, 3, 4, 4}, narrow{host.data(), 3, 4, 3};
  const std::string n = error_of([&] {
    gpu::draw<float>({3, 4, ref::Role::up}, 1, ref::KaimingNormal{}, {1, 2}, null);
  });
  EXPECT_TRUE(mentions(n, "device memory, got nullptr")) << n;
  const std::string s = error_of([&] {
    gpu::draw<float>({3, 4, ref::Role::up}, 1, ref::KaimingNormal{}, {1, 2}, narrow);
  });
  EXPECT_TRUE(mentions(s, "row stride >= its 4 columns")) << s;
}

// ---- on the device --------------------------------------------------------------

class CudaInit : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto info = cuda::query_device();
    if (!info.available) GTEST_SKIP() << info.reason;
  }
};

struct Method {
  const char* name;
  ref::Config config;
  ref::Role role;
  int layer;
};

const Method kMethods[] = {
    {"Gaussian", ref::Gaussian{0.02}, ref::Role::query, 1},
    {"XavierNormal", ref::XavierNormal{}, ref::Role::key, 2},
    {"XavierUniform", ref::XavierUniform{}, ref::Role::value, 2},
    {"KaimingNormal", ref::KaimingNormal{}, ref::Role::up, 3},
    {"KaimingUniform", ref::KaimingUniform{}, ref::Role::gate, 3},
    {"SIR (residual output)", ref::SIR{0.02, 12}, ref::Role::ffn_output, 7},
    {"DSInit (layer)", ref::DSInit{0.5}, ref::Role::attention_output, 5},
    {"DSInit (embedding)", ref::DSInit{0.5}, ref::Role::embedding, 0},
    {"LIR", ref::LIR{0.02}, ref::Role::up, 9},
    {"GammaInit", ref::GammaInit{1.0}, ref::Role::key, 4},
};

// The GPU's draw into a padded [rows, cols] buffer (padding: a NaN of T), downloaded.
template <class T>
std::vector<T> gpu_draw(const Method& m, i64 rows, i64 cols, i64 stride,
                        const random::Stream& rng) {
  std::vector<T> host(std::size_t(rows * stride),
                      cuda::from_double<T>(std::numeric_limits<double>::quiet_NaN()));
  cuda::DeviceBuffer<T> buffer(host);
  gpu::draw<T>({rows, cols, m.role}, m.layer, m.config, rng, {buffer.data(), rows, cols, stride});
  return buffer.download();
}

// The number of entries whose bits differ from the CPU's draw rounded to T.
template <class T>
i64 mismatches(const Method& m, i64 rows, i64 cols, i64 stride, const random::Stream& rng) {
  const Mat<double> cpu = ref::draw<double>({rows, cols, m.role}, m.layer, m.config, rng);
  const std::vector<T> got = gpu_draw<T>(m, rows, cols, stride, rng);
  i64 bad = 0;
  for (i64 i = 0; i < rows; ++i)
    for (i64 j = 0; j < cols; ++j) {
      const T want = cuda::from_double<T>(cpu(i, j));
      bad += std::memcmp(&got[i * stride + j], &want, sizeof(T)) != 0;
    }
  return bad;
}

TEST_F(CudaInit, EveryMethodIsBitwiseTheCpusInEveryStorageType) {
  std::uint32_t tensor = 0;
  for (const Method& m : kMethods) {
    const random::Stream rng{20261122, tensor++};
    EXPECT_EQ(mismatches<double>(m, 37, 129, 136, rng), 0) << m.name << " fp64";
    EXPECT_EQ(mismatches<float>(m, 37, 129, 136, rng), 0) << m.name << " fp32";
    EXPECT_EQ(mismatches<bf16>(m, 37, 129, 136, rng), 0) << m.name << " bf16";
  }
}

// More entries than one grid pass covers (8192 blocks of 256): the grid strides.
TEST_F(CudaInit, ALargeMatrixIsBitwiseTheCpus) {
  const Method m{"KaimingNormal", ref::KaimingNormal{}, ref::Role::up, 1};
  EXPECT_EQ(mismatches<float>(m, 1500, 1500, 1500, {5, 6}), 0);
}

TEST_F(CudaInit, PaddingIsNeverWritten) {
  const std::vector<float> got = gpu_draw<float>(kMethods[0], 9, 10, 13, {3, 4});
  for (i64 i = 0; i < 9; ++i)
    for (i64 j = 10; j < 13; ++j) EXPECT_TRUE(std::isnan(got[i * 13 + j])) << i << ", " << j;
}

}  // namespace
