// cuda_check's judgement, host side (cuda/check/compare.hpp over the
// oracle's scaleref/oracle/tolerance.hpp, which Python's assert_close shares): the NaN-safe
// rule, the headroom report and the tolerance table; and the host bf16
// conversion the checks round inputs with. Runs without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <scaleref/cuda/types.hpp>
#include <vector>

#include "../cuda/check/compare.hpp"

namespace {

using namespace scaleref::cuda;
using check::compare;
using check::Kind;
using check::Tolerance;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tolerance tol(double atol, double rtol) { return {atol, rtol, "test"}; }

TEST(CudaCompare, PassesWithinAtolPlusRtolTimesTheReference) {
  const std::vector<double> want{1.0, -2.0, 100.0}, got{1.0 + 1e-3, -2.0 - 2e-3, 100.0 + 0.1};
  const auto c = compare(got, want, tol(0.0, 1e-3));
  EXPECT_TRUE(c.pass());
  EXPECT_NEAR(c.used, 1.0, 1e-9);  // every entry sits at its limit
  EXPECT_FALSE(compare(got, want, tol(0.0, 0.9e-3)).pass());
}

TEST(CudaCompare, ANaNAgainstAFiniteValueFails) {
  const std::vector<double> want{1.0, 2.0}, got{1.0, kNaN};
  const auto c = compare(got, want, tol(1e300, 1.0));  // no tolerance admits it
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.worst, 1u);
  EXPECT_TRUE(std::isinf(c.used));
  EXPECT_FALSE(compare(want, got, tol(1e300, 1.0)).pass());  // either side
}

TEST(CudaCompare, MatchingNonFiniteValuesAgree) {
  const std::vector<double> v{kNaN, kInf, -kInf};
  EXPECT_TRUE(compare(v, v, tol(0, 0)).pass());
  const std::vector<double> flipped{kNaN, -kInf, kInf};
  EXPECT_EQ(compare(flipped, v, tol(0, 0)).mismatches, 2u);
}

TEST(CudaCompare, ReportsTheWorstEntryWithBothValues) {
  const std::vector<double> want{1.0, 1.0, 1.0, 1.0}, got{1.0, 1.1, 1.3, 1.2};
  const auto c = compare(got, want, tol(0.0, 0.5));
  EXPECT_EQ(c.worst, 2u);
  EXPECT_DOUBLE_EQ(c.worst_got, 1.3);
  EXPECT_DOUBLE_EQ(c.worst_want, 1.0);
  EXPECT_NEAR(c.max_abs, 0.3, 1e-15);
  EXPECT_NEAR(c.used, 0.6, 1e-12);
  EXPECT_EQ(c.mismatches, 0u);
}

TEST(CudaCompare, ExactToleranceDemandsEqualValues) {
  const std::vector<double> want{0.0, 3.0}, got{0.0, std::nextafter(3.0, 4.0)};
  EXPECT_FALSE(compare(got, want, tol(0, 0)).pass());
  EXPECT_TRUE(compare(want, want, tol(0, 0)).pass());
}

TEST(CudaTolerance, FollowsTheStatedFormula) {
  const double u64 = std::ldexp(1.0, -53), u32 = std::ldexp(1.0, -24), b = std::ldexp(1.0, -8);
  const auto f64 = check::tolerance(DType::f64, Kind::reduced, 4096, 2.0);
  EXPECT_DOUBLE_EQ(f64.rtol, (16 + 4096) * u64);
  EXPECT_DOUBLE_EQ(f64.atol, f64.rtol * 2.0);
  const auto f32 = check::tolerance(DType::f32, Kind::elementwise, 4096, 2.0);
  EXPECT_DOUBLE_EQ(f32.rtol, 17 * u32);  // element-wise: the terms do not count
  EXPECT_DOUBLE_EQ(f32.atol, 0.0);
  const auto h = check::tolerance(DType::bf16, Kind::reduced, 100, 1.0, 2);
  EXPECT_DOUBLE_EQ(h.rtol, 116 * u32 + 2 * b);
  EXPECT_FALSE(h.why.empty());
}

TEST(OracleTolerance, Fp16AddsItsHalfUlpAndBadArgumentsAreErrors) {
  using scaleref::oracle::Storage;
  const double u32 = std::ldexp(1.0, -24);
  const auto h = scaleref::oracle::tolerance(Storage::fp16, Kind::reduced, 64, 3.0);
  EXPECT_DOUBLE_EQ(h.rtol, 80 * u32 + std::ldexp(1.0, -11));
  EXPECT_DOUBLE_EQ(h.atol, h.rtol * 3.0);
  EXPECT_NE(h.why.find("fp16"), std::string::npos);
  // cuda_check's DType maps onto the same storage types
  EXPECT_EQ(check::tolerance(DType::bf16, Kind::reduced, 100, 1.0, 2).rtol,
            scaleref::oracle::tolerance(Storage::bf16, Kind::reduced, 100, 1.0, 2).rtol);
  EXPECT_THROW(scaleref::oracle::tolerance(Storage::fp32, Kind::reduced, 0, 1.0), scaleref::Error);
  EXPECT_THROW(scaleref::oracle::tolerance(Storage::fp32, Kind::reduced, 4, kNaN), scaleref::Error);
  EXPECT_THROW(scaleref::oracle::tolerance(Storage::fp32, Kind::reduced, 4, 1.0, 0),
               scaleref::Error);
}

TEST(CudaBf16, RoundsToNearestEven) {
  EXPECT_EQ(to_bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_float(to_bf16(1.0f)), 1.0f);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even 1.
  EXPECT_EQ(to_float(to_bf16(1.0f + std::ldexp(1.0f, -8))), 1.0f);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: to the even 1 + 2^-6.
  EXPECT_EQ(to_float(to_bf16(1.0f + 3 * std::ldexp(1.0f, -8))), 1.0f + std::ldexp(1.0f, -6));
  EXPECT_EQ(to_float(to_bf16(-2.5f)), -2.5f);
  EXPECT_TRUE(std::isnan(to_float(to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isinf(to_float(to_bf16(std::numeric_limits<float>::infinity()))));
  // float's largest value lies past the halfway point above bf16's largest (0x7f7f): +inf
  EXPECT_EQ(to_float(to_bf16(std::numeric_limits<float>::max())),
            std::numeric_limits<float>::infinity());
}

TEST(CudaBf16, FromDoubleGoesThroughFloatLikeTheDevice) {
  const double v = 0.1;
  EXPECT_EQ(from_double<bf16>(v).bits, to_bf16(static_cast<float>(v)).bits);
  EXPECT_EQ(to_double(from_double<float>(v)), static_cast<double>(static_cast<float>(v)));
}

}  // namespace
