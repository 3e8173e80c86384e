// The scalar helpers every module shares (scaleref/types.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <scaleref/types.hpp>
#include <vector>

using namespace scaleref;

namespace {

// The definition all_finite must agree with: a test per entry.
template <class S>
bool finite_by_entry(const Mat<S>& m) {
  using std::isfinite;
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (!isfinite(m.data()[i])) return false;
  return true;
}

// Plants each special value at every position of matrices of several shapes
// (lengths around the vector widths, so the vectorized sum's tail is covered).
template <class S>
void check_all_finite() {
  const S inf = std::numeric_limits<S>::infinity();
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const S big = std::numeric_limits<S>::max();
  const S tiny = std::numeric_limits<S>::denorm_min();
  const std::vector<S> bad = {nan, -nan, inf, -inf};
  const std::vector<S> good = {S(0), S(-0.0), big, -big, tiny, S(1)};
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{
           {1, 1}, {1, 3}, {2, 4}, {3, 5}, {1, 8}, {4, 17}, {64, 65}}) {
    Mat<S> m(rows, cols);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = good[i % good.size()];
    ASSERT_TRUE(all_finite(m)) << rows << " x " << cols;
    for (const S b : bad)
      for (Eigen::Index i = 0; i < m.size(); ++i) {
        Mat<S> p = m;
        p.data()[i] = b;
        ASSERT_FALSE(all_finite(p)) << b << " at " << i << " of " << rows << " x " << cols;
        ASSERT_EQ(all_finite(p), finite_by_entry(p));
      }
  }
  EXPECT_TRUE(all_finite(Mat<S>(0, 0)));  // nothing to fail, as the loop says
  EXPECT_TRUE(all_finite(Mat<S>(3, 0)));
}

TEST(AllFinite, DoubleAgreesWithAPerEntryTestForEverySpecialValueAtEveryPosition) {
  check_all_finite<double>();
}

TEST(AllFinite, FloatAgreesWithAPerEntryTestForEverySpecialValueAtEveryPosition) {
  check_all_finite<float>();
}

TEST(AllFinite, Real50FindsANonFiniteEntry) {
  Mat<Real50> m = Mat<Real50>::Constant(3, 4, Real50(2));
  EXPECT_TRUE(all_finite(m));
  m(2, 3) = std::numeric_limits<Real50>::infinity();
  EXPECT_FALSE(all_finite(m));
  m(2, 3) = std::numeric_limits<Real50>::quiet_NaN();
  EXPECT_FALSE(all_finite(m));
}

}  // namespace
