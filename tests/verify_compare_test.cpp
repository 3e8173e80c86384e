// The NaN-safe comparison: what passes, what fails, and what it reports.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/verify/compare.hpp>

namespace {

using scaleref::Mat;
using scaleref::Real50;
using scaleref::verify::compare;
using scaleref::verify::Tolerance;
using M = Mat<double>;

M row(std::initializer_list<double> v) {
  M m(1, static_cast<long>(v.size()));
  long i = 0;
  for (double x : v) m(0, i++) = x;
  return m;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Compare, IdenticalValuesUseNoTolerance) {
  const auto c = compare<double>("same", row({1, -2, 0}), row({1, -2, 0}), Tolerance{0, 0, ""});
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.worst_share, 0.0);
  EXPECT_EQ(c.count, 3);
}

TEST(Compare, ToleranceIsAtolPlusRtolTimesMeanMagnitude) {
  // |a - r| = 0.01, allowed = 0.001 + 0.01 * (1 + 1.01) / 2 = 0.01105
  EXPECT_TRUE(compare<double>("in", row({1.0}), row({1.01}), Tolerance{1e-3, 1e-2, ""}).ok());
  // allowed = 0.001 + 0.005 * 1.005 = 0.006025 < 0.01
  const auto c = compare<double>("out", row({1.0}), row({1.01}), Tolerance{1e-3, 5e-3, ""});
  EXPECT_FALSE(c.ok());
  EXPECT_NEAR(c.worst_share, 0.01 / 0.006025, 1e-9);
}

TEST(Compare, ReportsTheWorstEntryWithFullPrecisionValues) {
  M a = M::Zero(2, 3), r = M::Zero(2, 3);
  a(1, 2) = 0.1;
  r(1, 2) = 0.30000000000000004;
  a(0, 1) = 1e-5;  // 10 times atol: a mismatch, but a smaller one
  const auto c = compare<double>("grad", a, r, Tolerance{1e-6, 0, "test"});
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_EQ(c.worst_row, 1);
  EXPECT_EQ(c.worst_col, 2);
  EXPECT_EQ(c.worst_actual, "0.10000000000000001");
  EXPECT_EQ(c.worst_expected, "0.30000000000000004");
  EXPECT_NE(c.str().find("FAIL grad: 2/6 mismatches"), std::string::npos) << c.str();
}

TEST(Compare, NaNOnEitherSideNeverMatches) {
  const Tolerance loose{1e300, 1, ""};
  EXPECT_FALSE(compare<double>("nan actual", row({kNaN}), row({1}), loose).ok());
  EXPECT_FALSE(compare<double>("nan expected", row({1}), row({kNaN}), loose).ok());
  EXPECT_FALSE(compare<double>("both nan", row({kNaN}), row({kNaN}), loose).ok());
}

TEST(Compare, InfinityMatchesOnlyTheSameInfinity) {
  const Tolerance loose{1e300, 1, ""};
  EXPECT_TRUE(compare<double>("inf", row({kInf, -kInf}), row({kInf, -kInf}), loose).ok());
  EXPECT_FALSE(compare<double>("sign", row({kInf}), row({-kInf}), loose).ok());
  EXPECT_FALSE(compare<double>("finite vs inf", row({1e308}), row({kInf}), loose).ok());
}

TEST(Compare, PerEntryAllowanceAdds) {
  const M extra = row({0.0, 0.5});
  const auto c = compare<double>("extra", row({1, 1}), row({1, 1.4}), Tolerance{0, 0, ""}, extra);
  EXPECT_TRUE(c.ok());
  EXPECT_NEAR(c.worst_share, 0.8, 1e-12);
}

TEST(Compare, WorksIn50Digits) {
  Mat<Real50> a(1, 1), r(1, 1);
  a << Real50(1);
  r << Real50(1) + Real50("1e-40");
  EXPECT_FALSE(compare<Real50>("tight", a, r, Tolerance{0, 1e-45, ""}).ok());
  EXPECT_TRUE(compare<Real50>("loose", a, r, Tolerance{0, 1e-35, ""}).ok());
}

TEST(Compare, ShapeMismatchThrows) {
  EXPECT_THROW(compare<double>("shapes", M::Zero(2, 2), M::Zero(2, 3), Tolerance{}),
               scaleref::Error);
  EXPECT_THROW(compare<double>("extra", M::Zero(2, 2), M::Zero(2, 2), Tolerance{}, M::Zero(1, 1)),
               scaleref::Error);
}

}  // namespace
