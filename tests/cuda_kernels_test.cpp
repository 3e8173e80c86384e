// The GPU kernels' host API: bad input is a scaleref::Error naming the
// function before anything reaches the device (these run without a GPU), and,
// on a GPU, a forward and backward that match the reference and replay bit
// for bit. cuda_check (ctest cuda.check) is the full comparison grid.
#include <gtest/gtest.h>

#include <cstring>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/dyt.hpp>
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>

#include "error_support.hpp"

namespace {

using namespace scaleref;
using cuda::Rows;
using test::error_of;
using test::mentions;

// A well-formed view that is never dereferenced: the checks reject the call first.
Rows<float> fake(std::int64_t rows, std::int64_t cols, std::int64_t stride = 0) {
  return {reinterpret_cast<float*>(std::uintptr_t{256}), rows, cols, stride ? stride : cols};
}

TEST(CudaApi, RejectsMismatchedShapes) {
  const auto e = error_of([] {
    cuda::rmsnorm::forward<float>({}, {}, cuda::as_const(fake(4, 8)), fake(4, 9), nullptr);
  });
  EXPECT_TRUE(mentions(e, "cuda::rmsnorm::forward")) << e;
  EXPECT_TRUE(mentions(e, "[4x8]")) << e;
}

TEST(CudaApi, RejectsAStrideShorterThanARow) {
  const auto e = error_of([] {
    cuda::layernorm::forward<float>({}, {}, cuda::as_const(fake(4, 8, 7)), fake(4, 8), nullptr);
  });
  EXPECT_TRUE(mentions(e, "stride")) << e;
}

TEST(CudaApi, RejectsHeadsThatDoNotDivideTheWidth) {
  cuda::seednorm::Config c;
  c.heads = 3;
  const float* beta = fake(1, 8).data;
  const auto e = error_of([&] {
    cuda::seednorm::forward<float>({beta, beta, nullptr}, c, cuda::as_const(fake(2, 8)), fake(2, 8),
                                   nullptr);
  });
  EXPECT_TRUE(mentions(e, "heads")) << e;
}

TEST(CudaApi, RejectsMissingRequiredParameters) {
  EXPECT_TRUE(mentions(
      error_of([] { cuda::dyt::forward<float>({}, cuda::as_const(fake(2, 8)), fake(2, 8)); }),
      "alpha"));
  EXPECT_TRUE(mentions(error_of([] {
                         cuda::seednorm::forward<float>({}, {}, cuda::as_const(fake(2, 8)),
                                                        fake(2, 8), nullptr);
                       }),
                       "beta"));
}

TEST(CudaApi, RejectsAParameterPointerOffItsEntrySize) {
  const float* gamma = reinterpret_cast<const float*>(std::uintptr_t{258});  // 2 bytes off
  const auto e = error_of([&] {
    cuda::rmsnorm::forward<float>({gamma}, {}, cuda::as_const(fake(2, 8)), fake(2, 8), nullptr);
  });
  EXPECT_TRUE(mentions(e, "cuda::rmsnorm::forward")) << e;
  EXPECT_TRUE(mentions(e, "aligned")) << e;
}

TEST(CudaApi, RejectsANegativeEps) {
  const auto e = error_of([] {
    cuda::rmsnorm::forward<float>({}, {-1.0, 1}, cuda::as_const(fake(2, 8)), fake(2, 8), nullptr);
  });
  EXPECT_TRUE(mentions(e, "eps")) << e;
}

TEST(CudaApi, RejectsABackwardWithoutItsForwardsCache) {
  cuda::Workspace ws;
  const cuda::rmsnorm::Cache<float> empty;
  const auto e = error_of([&] {
    cuda::rmsnorm::backward<float>({}, {}, empty, cuda::as_const(fake(2, 8)),
                                   cuda::as_const(fake(2, 8)), fake(2, 8), {}, ws);
  });
  EXPECT_TRUE(mentions(e, "cache")) << e;
}

class CudaKernels : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto info = cuda::query_device();
    if (!info.available) GTEST_SKIP() << info.reason;
  }
};

// 37 x 1000, padded to a stride of 1004: odd rows, a width no vector divides.
struct Batch {
  static constexpr std::int64_t n = 37, d = 1000, stride = 1004;
  std::vector<double> x = values(1), dy = values(2);
  static std::vector<double> values(int salt) {
    std::vector<double> v(n * stride, 0.0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < d; ++j)
        v[i * stride + j] = std::sin(0.37 * (i * d + j) + salt) * (1 + 0.01 * j);
    return v;
  }
};

TEST_F(CudaKernels, RmsNormInDoubleMatchesTheReference) {
  const Batch b;
  std::vector<double> gamma(Batch::d);
  for (std::int64_t j = 0; j < Batch::d; ++j) gamma[j] = 0.5 + 0.001 * j;
  cuda::DeviceBuffer<double> x(b.x), dy(b.dy), y(b.x.size()), dx(b.x.size()), g(gamma),
      dg(gamma.size());
  const Rows<double> xv{x.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<double> yv{y.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<double> dyv{dy.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<double> dxv{dx.data(), Batch::n, Batch::d, Batch::stride};
  cuda::rmsnorm::Cache<double> cache;
  cuda::Workspace ws;
  cuda::rmsnorm::forward<double>({g.data()}, {}, cuda::as_const(xv), yv, &cache);
  cuda::rmsnorm::backward<double>({g.data()}, {}, cache, cuda::as_const(xv), cuda::as_const(dyv),
                                  dxv, {dg.data()}, ws);
  const auto hy = y.download(), hdx = dx.download(), hdg = dg.download();

  Mat<double> X(Batch::n, Batch::d), DY(Batch::n, Batch::d);
  for (std::int64_t i = 0; i < Batch::n; ++i)
    for (std::int64_t j = 0; j < Batch::d; ++j) {
      X(i, j) = b.x[i * Batch::stride + j];
      DY(i, j) = b.dy[i * Batch::stride + j];
    }
  const norm::rmsnorm::Params<double> p{Mat<double>::Map(gamma.data(), 1, Batch::d)};
  norm::rmsnorm::Cache<double> k;
  const Mat<double> Y = norm::rmsnorm::forward(p, {}, X, &k);
  const auto G = norm::rmsnorm::backward(p, {}, k, DY);
  // fp64 sums of 1000 (rows: 37) terms: (16 + terms) 2^-53 relative, as cuda_check's table
  const double u = std::ldexp(1.0, -53);
  for (std::int64_t i = 0; i < Batch::n; ++i)
    for (std::int64_t j = 0; j < Batch::d; ++j) {
      ASSERT_NEAR(hy[i * Batch::stride + j], Y(i, j), 1016 * u * (std::abs(Y(i, j)) + 1));
      ASSERT_NEAR(hdx[i * Batch::stride + j], G.dx(i, j), 1016 * u * G.dx.cwiseAbs().maxCoeff());
    }
  for (std::int64_t j = 0; j < Batch::d; ++j)
    ASSERT_NEAR(hdg[j], G.dgamma(0, j), 53 * u * G.dgamma.cwiseAbs().maxCoeff());
}

TEST_F(CudaKernels, SeedNormBackwardReplaysBitForBit) {
  const Batch b;
  std::vector<float> x(b.x.begin(), b.x.end()), dy(b.dy.begin(), b.dy.end());
  std::vector<float> alpha(Batch::d, 0.7f), beta(Batch::d, 0.01f), gamma(Batch::d, 1.1f);
  cuda::DeviceBuffer<float> X(x), DY(dy), Y(x.size()), A(alpha), B(beta), G(gamma);
  const Rows<float> xv{X.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<float> yv{Y.data(), Batch::n, Batch::d, Batch::stride};
  const Rows<float> dyv{DY.data(), Batch::n, Batch::d, Batch::stride};
  cuda::seednorm::Config c;
  c.heads = 4;
  cuda::seednorm::Cache<float> cache;
  cuda::Workspace ws;
  const cuda::seednorm::Params<float> p{A.data(), B.data(), G.data()};
  cuda::seednorm::forward<float>(p, c, cuda::as_const(xv), yv, &cache);
  std::vector<std::vector<float>> runs;
  for (int run = 0; run < 2; ++run) {
    cuda::DeviceBuffer<float> dx(x.size()), da(alpha.size()), db(beta.size()), dg(gamma.size());
    const Rows<float> dxv{dx.data(), Batch::n, Batch::d, Batch::stride};
    cuda::seednorm::backward<float>(p, c, cache, cuda::as_const(xv), cuda::as_const(dyv), dxv,
                                    {da.data(), db.data(), dg.data()}, ws);
    std::vector<float> all;
    for (const auto* buf : {&dx, &da, &db, &dg}) {
      const auto h = buf->download();
      all.insert(all.end(), h.begin(), h.end());
    }
    runs.push_back(all);
  }
  ASSERT_EQ(runs[0].size(), runs[1].size());
  EXPECT_EQ(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)), 0);
}

}  // namespace
