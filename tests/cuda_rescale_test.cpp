// TVR, ZWR and UWR on the GPU (scaleref/cuda/rescale.hpp) against the
// reference (scaleref/init/rescale.hpp) in double on the same T-rounded W.
//
// Tolerance, for a W of n entries: the GPU's statistics are double sums in
// another order than the reference's, so they differ by at most about n 2^-53
// of the terms' size (Higham's bound for a recursive sum; 16 more roundings for
// the chain after it), and the result is rounded once to T:
//   |got - want| <= (16 + n) 2^-53 max(max |W|, max |want|) + r_T |want|,
//   r_T = 0 (fp64), 2^-24 (fp32), 2^-8 + 2^-24 (bf16 through float).
//
// The CudaRescaleInput cases need no device (every input check comes before
// any CUDA call), so they run everywhere; the CudaRescale cases skip without
// one, saying why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <scaleref/cuda/buffer.hpp>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/rescale.hpp>
#include <scaleref/init/rescale.hpp>
#include <scaleref/random/philox.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "error_support.hpp"

namespace {

using namespace scaleref;
using cuda::bf16;
using cuda::Rows;
using cuda::Workspace;
using cuda::rescale::StdKind;
using scaleref::test::error_of;
using scaleref::test::mentions;
using M = Mat<double>;
using i64 = std::int64_t;

namespace gpu = scaleref::cuda::rescale;

// ---- helpers ------------------------------------------------------------------

// rows x cols uniform in [lo, hi), rounded to T.
template <class T>
M draw(std::uint32_t tensor, i64 rows, i64 cols, double lo = -0.05, double hi = 0.15) {
  M m(rows, cols);
  for (i64 k = 0; k < m.size(); ++k)
    m.data()[k] = cuda::to_double(
        cuda::from_double<T>(lo + (hi - lo) * random::uniform(7, tensor, std::uint64_t(k))));
  return m;
}

// A matrix in device memory, `stride` entries per row, padding holding NaN.
template <class T>
struct DeviceMatrix {
  cuda::DeviceBuffer<T> buffer;
  i64 rows, cols, stride;
  DeviceMatrix(const M& m, i64 stride_) : rows(m.rows()), cols(m.cols()), stride(stride_) {
    std::vector<T> host(std::size_t(rows * stride),
                        cuda::from_double<T>(std::numeric_limits<double>::quiet_NaN()));
    for (i64 i = 0; i < rows; ++i)
      for (i64 j = 0; j < cols; ++j) host[i * stride + j] = cuda::from_double<T>(m(i, j));
    buffer = cuda::DeviceBuffer<T>(host);
  }
  Rows<T> view() { return {buffer.data(), rows, cols, stride}; }
  Rows<const T> cview() { return {buffer.data(), rows, cols, stride}; }
  M values() const {
    const std::vector<T> host = buffer.download();
    M m(rows, cols);
    for (i64 i = 0; i < rows; ++i)
      for (i64 j = 0; j < cols; ++j) m(i, j) = cuda::to_double(host[i * stride + j]);
    return m;
  }
  bool padding_intact() const {
    const std::vector<T> host = buffer.download();
    for (i64 i = 0; i < rows; ++i)
      for (i64 j = cols; j < stride; ++j)
        if (!std::isnan(cuda::to_double(host[i * stride + j]))) return false;
    return true;
  }
  std::vector<unsigned char> bytes() const {
    const std::vector<T> host = buffer.download();
    std::vector<unsigned char> b(host.size() * sizeof(T));
    std::memcpy(b.data(), host.data(), b.size());
    return b;
  }
};

template <class T>
double storage_rounding() {
  if constexpr (std::is_same_v<T, double>) return 0;
  if constexpr (std::is_same_v<T, float>) return 0x1p-24;
  return 0x1p-8 + 0x1p-24;
}

// got within the header's tolerance of want (w: the input, for the terms' size).
template <class T>
::testing::AssertionResult near(const M& got, const M& want, const M& w) {
  const double n = static_cast<double>(w.size());
  const double atol = (16 + n) * 0x1p-53 * std::max(max_abs(w), max_abs(want));
  for (i64 k = 0; k < want.size(); ++k) {
    const double g = got.data()[k], r = want.data()[k];
    if (!(std::abs(g - r) <= atol + storage_rounding<T>() * std::abs(r)))
      return ::testing::AssertionFailure()
             << "entry " << k << ": GPU " << g << ", reference " << r << ", atol " << atol;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult near_statistic(double got, double want, double n, double scale) {
  if (std::abs(got - want) <= (16 + n) * 0x1p-53 * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "GPU " << got << ", reference " << want;
}

// ---- input checks: no device needed -----------------------------------------------

// Views of host memory: every call below must throw before reading them.
struct HostViews {
  std::vector<float> data = std::vector<float>(64, 0.5f);
  Rows<const float> w() const { return {data.data(), 4, 4, 4}; }
  Rows<float> out() { return {data.data() + 32, 4, 4, 4}; }
};

TEST(CudaRescaleInput, RejectsAnEmptyW) {
  HostViews h;
  Workspace ws;
  const Rows<const float> empty{h.data.data(), 0, 4, 4};
  const std::string e = error_of([&] { gpu::uwr<float>(empty, h.out(), ws); });
  EXPECT_TRUE(mentions(e, "cuda::rescale::uwr") && mentions(e, "non-empty W")) << e;
}

TEST(CudaRescaleInput, RejectsATargetStdThatIsNotPositiveAndFinite) {
  HostViews h;
  Workspace ws;
  for (double bad : {0.0, -0.02, std::nan(""), std::numeric_limits<double>::infinity()}) {
    const std::string z =
        error_of([&] { gpu::zwr<float>(h.w(), h.out(), bad, StdKind::population, ws); });
    EXPECT_TRUE(mentions(z, "cuda::rescale::zwr") && mentions(z, "sigma_init > 0")) << z;
    const std::string t =
        error_of([&] { gpu::tvr<float>(h.w(), h.out(), bad, StdKind::population, ws); });
    EXPECT_TRUE(mentions(t, "cuda::rescale::tvr") && mentions(t, "sigma_target > 0")) << t;
    const std::string a =
        error_of([&] { gpu::tvr_authors_code<float>(h.w(), h.out(), {bad}, ws); });
    EXPECT_TRUE(mentions(a, "tvr_authors_code") && mentions(a, "sigma_target > 0")) << a;
  }
}

TEST(CudaRescaleInput, RejectsAThresholdBelowOneOrNotFinite) {
  HostViews h;
  Workspace ws;
  for (double bad : {0.99, 0.0, std::nan("")}) {
    const std::string e = error_of([&] {
      gpu::tvr_authors_code<float>(h.w(), h.out(), {0.02, bad}, ws);
    });
    EXPECT_TRUE(mentions(e, "threshold >= 1")) << e;
  }
}

TEST(CudaRescaleInput, RejectsALayerBelowOneWhenDepthScaled) {
  HostViews h;
  Workspace ws;
  const std::string e = error_of([&] {
    gpu::tvr_authors_code<float>(h.w(), h.out(), {0.02, 1.2, true, 0}, ws);
  });
  EXPECT_TRUE(mentions(e, "layer >= 1")) << e;
}

TEST(CudaRescaleInput, RejectsTheUnbiasedStdOfASingleEntry) {
  HostViews h;
  Workspace ws;
  const Rows<const float> one{h.data.data(), 1, 1, 1};
  const Rows<float> out{h.data.data() + 32, 1, 1, 1};
  EXPECT_TRUE(mentions(error_of([&] { gpu::tvr<float>(one, out, 0.02, StdKind::unbiased, ws); }),
                       "at least 2 entries"));
  EXPECT_TRUE(mentions(error_of([&] { gpu::tvr_authors_code<float>(one, out, {0.02}, ws); }),
                       "at least 2 entries"));
  EXPECT_TRUE(mentions(error_of([&] { gpu::moments<float>(one, StdKind::unbiased, ws); }),
                       "at least 2 entries"));
}

TEST(CudaRescaleInput, RejectsAnOutputOfAnotherShape) {
  HostViews h;
  Workspace ws;
  const Rows<float> other{h.data.data() + 32, 4, 3, 4};
  const std::string e = error_of([&] { gpu::uwr<float>(h.w(), other, ws); });
  EXPECT_TRUE(mentions(e, "expected out [4x4]")) << e;
}

TEST(CudaRescaleInput, RejectsAnOutputThatPartlyOverlapsW) {
  HostViews h;
  Workspace ws;
  const Rows<float> shifted{h.data.data() + 2, 4, 4, 4};  // W's entries moved by 2
  const Rows<float> restrided{h.data.data(), 4, 4, 5};    // W's start, another stride
  for (Rows<float> out : {shifted, restrided}) {
    const std::string e = error_of([&] { gpu::uwr<float>(h.w(), out, ws); });
    EXPECT_TRUE(mentions(e, "W itself") && mentions(e, "not to overlap")) << e;
  }
}

TEST(CudaRescaleInput, RejectsAStrideBelowTheWidth) {
  HostViews h;
  Workspace ws;
  const Rows<const float> w{h.data.data(), 4, 4, 3};
  const std::string e = error_of([&] { gpu::frobenius_norm<float>(w, ws); });
  EXPECT_TRUE(mentions(e, "row stride >= its 4 columns")) << e;
}

// ---- on the device --------------------------------------------------------------

class CudaRescale : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto info = cuda::query_device();
    if (!info.available) GTEST_SKIP() << info.reason;
  }
};

TEST_F(CudaRescale, UwrMatchesTheReference) {
  const M w = draw<double>(1, 37, 53);
  DeviceMatrix<double> W(w, 56), out(M::Zero(37, 53), 56);
  Workspace ws;
  const auto o = gpu::uwr<double>(W.cview(), out.view(), ws);
  EXPECT_TRUE(near<double>(out.values(), rescale::uwr(w), w));
  const double norm = rescale::frobenius_norm(w);
  EXPECT_TRUE(near_statistic(o.before, norm, w.size(), norm));
  EXPECT_TRUE(o.rescaled);
}

TEST_F(CudaRescale, ZwrMatchesTheReferenceForBothStds) {
  for (StdKind kind : {StdKind::population, StdKind::unbiased}) {
    const M w = draw<float>(2, 29, 71);
    DeviceMatrix<float> W(w, 72), out(M::Zero(29, 71), 72);
    Workspace ws;
    const auto o = gpu::zwr<float>(W.cview(), out.view(), 0.1, kind, ws);
    EXPECT_TRUE(near<float>(out.values(), rescale::zwr(w, 0.1, kind), w));
    const auto m = rescale::moments(w, kind);
    EXPECT_TRUE(near_statistic(o.mean, m.mean, w.size(), max_abs(w)));
    EXPECT_TRUE(near_statistic(o.before, m.std, w.size(), max_abs(w)));
    EXPECT_EQ(o.target, 0.1);
  }
}

TEST_F(CudaRescale, TvrMatchesTheReferenceInPlace) {
  const M w = draw<bf16>(3, 64, 40);
  DeviceMatrix<bf16> W(w, 48);
  Workspace ws;
  const auto o = gpu::tvr<bf16>(W.cview(), W.view(), 0.02, StdKind::population, ws);
  EXPECT_TRUE(near<bf16>(W.values(), rescale::tvr(w, 0.02), w));
  EXPECT_TRUE(o.rescaled);
  EXPECT_TRUE(W.padding_intact());
}

TEST_F(CudaRescale, AuthorsTvrRescalesAboveItsThresholdWithTheDepthScaledTarget) {
  const M w = draw<double>(4, 50, 50);  // unbiased std 0.058
  const auto schedule = rescale::Schedule::tvr_authors_code(0.02, 50, 1.2, true);
  const auto want = rescale::on_step(schedule, 50, 4, w);  // target 0.02 / sqrt(4) = 0.01
  DeviceMatrix<double> W(w, 50), out(M::Zero(50, 50), 50);
  Workspace ws;
  const auto o = gpu::tvr_authors_code<double>(W.cview(), out.view(), {0.02, 1.2, true, 4}, ws);
  ASSERT_TRUE(want.rescaled);
  EXPECT_TRUE(o.rescaled);
  EXPECT_EQ(o.target, want.target);
  EXPECT_TRUE(near<double>(out.values(), want.W, w));
  EXPECT_TRUE(near_statistic(o.before, want.before, w.size(), max_abs(w)));
}

TEST_F(CudaRescale, AuthorsTvrCopiesWBitForBitAtOrUnderItsThreshold) {
  const M w = draw<float>(5, 20, 30);  // unbiased std 0.058 <= 1.2 x 0.1
  DeviceMatrix<float> W(w, 33), out(M::Zero(20, 30), 33);
  Workspace ws;
  const auto o = gpu::tvr_authors_code<float>(W.cview(), out.view(), {0.1}, ws);
  EXPECT_FALSE(o.rescaled);
  EXPECT_EQ(out.bytes(), W.bytes());           // values and NaN padding alike
  const M constant = M::Constant(6, 6, 0.25);  // std 0: under any threshold, left alone
  DeviceMatrix<float> C(constant, 6), c_out(M::Zero(6, 6), 6);
  EXPECT_FALSE(gpu::tvr_authors_code<float>(C.cview(), c_out.view(), {0.01}, ws).rescaled);
  EXPECT_EQ(c_out.bytes(), C.bytes());
}

TEST_F(CudaRescale, StatisticsMatchTheReference) {
  const M w = draw<double>(6, 513, 257, -3, 5);
  DeviceMatrix<double> W(w, 260);
  Workspace ws;
  for (StdKind kind : {StdKind::population, StdKind::unbiased}) {
    const auto got = gpu::moments<double>(W.cview(), kind, ws);
    const auto want = rescale::moments(w, kind);
    EXPECT_TRUE(near_statistic(got.mean, want.mean, w.size(), max_abs(w)));
    EXPECT_TRUE(near_statistic(got.std, want.std, w.size(), max_abs(w)));
  }
  const double norm = rescale::frobenius_norm(w);
  EXPECT_TRUE(near_statistic(gpu::frobenius_norm<double>(W.cview(), ws), norm, w.size(), norm));
}

// Entries near double's limits: the statistics are taken on W 2^-e, as the reference's.
TEST_F(CudaRescale, StatisticsNeitherOverflowNorUnderflow) {
  for (double scale : {1e300, 1e-300}) {
    const M w = draw<double>(7, 30, 30, -1, 3) * scale;
    DeviceMatrix<double> W(w, 30);
    Workspace ws;
    const auto got = gpu::moments<double>(W.cview(), StdKind::population, ws);
    const auto want = rescale::moments(w);
    EXPECT_TRUE(near_statistic(got.std, want.std, w.size(), max_abs(w))) << scale;
    const double norm = rescale::frobenius_norm(w);
    EXPECT_TRUE(near_statistic(gpu::frobenius_norm<double>(W.cview(), ws), norm, w.size(), norm))
        << scale;
  }
}

// The sums' order depends on the shape alone: a second run gives the same bits.
TEST_F(CudaRescale, TwoRunsGiveTheSameBits) {
  const M w = draw<float>(8, 700, 900);  // 630000 entries: 39 blocks
  DeviceMatrix<float> W(w, 904), a(M::Zero(700, 900), 904), b(M::Zero(700, 900), 904);
  Workspace ws;
  const auto oa = gpu::tvr<float>(W.cview(), a.view(), 0.02, StdKind::unbiased, ws);
  const auto ob = gpu::tvr<float>(W.cview(), b.view(), 0.02, StdKind::unbiased, ws);
  EXPECT_EQ(a.bytes(), b.bytes());
  EXPECT_EQ(std::memcmp(&oa.mean, &ob.mean, sizeof oa.mean), 0);
  EXPECT_EQ(std::memcmp(&oa.before, &ob.before, sizeof oa.before), 0);
}

TEST_F(CudaRescale, PaddingIsNeverWritten) {
  const M w = draw<bf16>(9, 17, 100);
  DeviceMatrix<bf16> W(w, 131), out(M::Zero(17, 100), 131);
  Workspace ws;
  gpu::uwr<bf16>(W.cview(), out.view(), ws);
  EXPECT_TRUE(out.padding_intact());
  gpu::zwr<bf16>(W.cview(), out.view(), 0.1, StdKind::population, ws);
  EXPECT_TRUE(out.padding_intact());
  EXPECT_TRUE(W.padding_intact());
}

TEST_F(CudaRescale, RejectsANonFiniteW) {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    M w = draw<float>(10, 8, 8);
    w(5, 3) = bad;
    DeviceMatrix<float> W(w, 8), out(M::Zero(8, 8), 8);
    Workspace ws;
    for (const std::string& e :
         {error_of([&] { gpu::uwr<float>(W.cview(), out.view(), ws); }),
          error_of([&] { gpu::tvr<float>(W.cview(), out.view(), 0.02, StdKind::population, ws); }),
          error_of([&] { gpu::tvr_authors_code<float>(W.cview(), out.view(), {0.02}, ws); })})
      EXPECT_TRUE(mentions(e, "expected a finite W")) << e;
    EXPECT_TRUE((out.values().array() == 0).all()) << "nothing is written";
  }
}

TEST_F(CudaRescale, RejectsAWWithoutSpreadOrNorm) {
  DeviceMatrix<double> C(M::Constant(5, 7, 0.5), 7), Z(M::Zero(5, 7), 7), out(M::Zero(5, 7), 7);
  Workspace ws;
  const std::string zwr =
      error_of([&] { gpu::zwr<double>(C.cview(), out.view(), 0.1, StdKind::population, ws); });
  EXPECT_TRUE(mentions(zwr, "nonzero standard deviation")) << zwr;
  const std::string tvr =
      error_of([&] { gpu::tvr<double>(C.cview(), out.view(), 0.02, StdKind::unbiased, ws); });
  EXPECT_TRUE(mentions(tvr, "nonzero standard deviation")) << tvr;
  const std::string uwr = error_of([&] { gpu::uwr<double>(Z.cview(), out.view(), ws); });
  EXPECT_TRUE(mentions(uwr, "all-zero W")) << uwr;
}

// The CPU's rule (metrics::has_spread): a constant W, whose blocked sum may
// leave the mean an ulp off (0.3, 0.1, 0.7), has mean its value and std exactly
// 0 and is refused by ZWR and TVR and left alone by the authors' TVR, however
// small its target; entries an ulp apart are a spread at rounding level.
TEST_F(CudaRescale, AConstantOrRoundingLevelWHasNoSpreadAsOnTheCpu) {
  Workspace ws;
  for (const double c : {0.3, 0.1, 0.7, -0.3, 0.5, 1.0, 1e-300})
    for (const auto& [r, k] :
         std::vector<std::pair<int, int>>{{1, 2}, {4, 4}, {3, 7}, {130, 129}}) {
      const M constant = M::Constant(r, k, c);
      DeviceMatrix<double> C(constant, k + 1), out(M::Zero(r, k), k + 1);
      for (StdKind kind : {StdKind::population, StdKind::unbiased}) {
        const auto m = gpu::moments<double>(C.cview(), kind, ws);
        EXPECT_EQ(m.mean, c) << c << " in " << r << " x " << k;
        EXPECT_EQ(m.std, 0.0) << c << " in " << r << " x " << k;
      }
      const std::string e =
          error_of([&] { gpu::zwr<double>(C.cview(), out.view(), 0.01, StdKind::population, ws); });
      EXPECT_TRUE(mentions(e, "nonzero standard deviation")) << e;
      const auto o = gpu::tvr_authors_code<double>(C.cview(), out.view(), {1e-300}, ws);
      EXPECT_FALSE(o.rescaled);
      EXPECT_EQ(out.values(), constant);

      M near = constant;
      near(0, 0) = std::nextafter(c, HUGE_VAL);
      near(r - 1, k - 1) = std::nextafter(std::nextafter(c, -HUGE_VAL), -HUGE_VAL);
      DeviceMatrix<double> N(near, k + 1);
      const std::string en =
          error_of([&] { gpu::tvr<double>(N.cview(), out.view(), 0.01, StdKind::population, ws); });
      EXPECT_TRUE(mentions(en, "spread at rounding level")) << en;
      EXPECT_EQ(mentions(en, "spread at rounding level"),
                mentions(error_of([&] { rescale::tvr(near, 0.01); }), "spread at rounding level"));
      EXPECT_FALSE(gpu::tvr_authors_code<double>(N.cview(), out.view(), {1e-300}, ws).rescaled);
    }
}

// An fp32 result beyond float's range is found before anything is written.
TEST_F(CudaRescale, RejectsAResultThatOverflowsTheStorageType) {
  const M w = draw<float>(11, 10, 10);
  DeviceMatrix<float> W(w, 10), out(M::Zero(10, 10), 10);
  Workspace ws;
  const std::string e =
      error_of([&] { gpu::zwr<float>(W.cview(), out.view(), 1e39, StdKind::population, ws); });
  EXPECT_TRUE(mentions(e, "overflows fp32")) << e;
  EXPECT_TRUE((out.values().array() == 0).all()) << "nothing is written";
}

}  // namespace
