// Weight rescaling (rescale Sec. 2.4): UWR (eq. 17), ZWR (eq. 19-20), TVR
// (eq. 21), the authors' thresholded TVR, and the every-k schedule.
//
// Post-conditions are measured exactly: a double result is cast to Real50 and
// its mean, std and z-scores computed there (to about 1e-48), so a check sees
// only the rounding of the code under test.
//
// The tolerances of ZWR and TVR. Notation: u = 2^-53 (double's unit roundoff),
// n entries, mu, sigma, z_i the input's exact mean, std (of the kind under test)
// and z-scores, A = mean_i |w_i|, Z = max_i |z_i|, sigma_t the target, B =
// max_i |w'_i| of the result. The code computes mu^ = sum(w) / n, d_i = w_i - mu^,
// sigma^ from the d_i, then w'_i = (d_i / sigma^) sigma_t + mu^.
//
// mean: |mu^ - mu| <= e := n u A (n - 1 additions and a division). The exact
//   mean of W' is mu^ + (sigma_t / sigma^)(mu - mu^) plus per-entry roundings:
//   three in (d_i / sigma^) sigma_t (<= 3 u sigma_t |z_i|, averaging to at most
//   3 u sigma_t) and one in + mu^ (<= u B). So
//     tol_mean = 2 [(1 + sigma_t / sigma) e + 3 u sigma_t + u B].
// std: sigma^ / sigma = 1 +- ((n / 2 + 4.5) u + (e / sigma)^2) (n squares summed,
//   a root; the shift e of the d_i enters only squared); the three per-entry
//   roundings move the std by at most 4.3 u (1 + e / sigma) relative (a factor
//   sqrt(2) for the unbiased std included), the last one by at most
//   sqrt(2) u B. So
//     tol_std = 2 [sigma_t ((n / 2 + 9) u + 5 u e / sigma + (e / sigma)^2) + 1.5 u B].
// z-scores: a common shift and a common factor cancel in (w'_i - mean) / std,
//   so the error of sigma^ and e drop out to first order; left are the per-entry
//   roundings, 3 u (|z_i| + 1 + 2 e / sigma), the std's relative 3 u +
//   1.5 u B / sigma_t times |z_i|, and the last rounding over the std,
//   2 u B / sigma_t. So, for every entry,
//     tol_z = 2 u [6 Z + 3 + 6 e / sigma + (2 + 2 Z) B / sigma_t].
// These are worst-case bounds with a factor 2 of safety: a sum of n terms carries
// n roundings, although the typical error grows like sqrt(n), and the term u B
// dominates when |mean| >> sigma_t (a std of sigma_t cannot be held to better
// than about u |mean| by doubles around that mean). Over 100000 cases drawn like
// the properties' the worst used 28% (mean), 43% (std) and 12% (z) of them; where
// |mean| < sigma_t and sigma_t >= sigma, the std's error stayed under
// 1.7 u sqrt(n) sigma_t.
//
// In 50 digits the same bounds are checked with u = 1e-40: 10^10 times the
// 50-digit roundoff, which covers measuring in that same precision, while any
// step taken through double would miss by 24 orders.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <scaleref/init/rescale.hpp>
#include <scaleref/verify/compare.hpp>
#include <scaleref/verify/generators.hpp>
#include <string>
#include <vector>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using rescale::StdKind;
using scaleref::test::error_of;
using scaleref::test::mentions;
using M = Mat<double>;
using R = Real50;
using MR = Mat<R>;

constexpr double kU = 0x1p-53;  // unit roundoff of double
constexpr double kU50 = 1e-40;  // the 50-digit checks' stand-in for u (see the header)

const char* kind_name(StdKind k) { return k == StdKind::population ? "population" : "unbiased"; }

// Mean, std (of `kind`) and z-scores of w, straight from the definitions in Real50.
struct Exact {
  R mean, std;
  MR z;
};

Exact exact(const MR& w, StdKind kind) {
  const long n = w.size();
  R sum = 0;
  for (long i = 0; i < n; ++i) sum += w.data()[i];
  Exact e;
  e.mean = sum / n;
  R ss = 0;
  for (long i = 0; i < n; ++i) ss += (w.data()[i] - e.mean) * (w.data()[i] - e.mean);
  e.std = sqrt(ss / (kind == StdKind::population ? n : n - 1));
  e.z = MR(w.rows(), w.cols());
  for (long i = 0; i < n; ++i) e.z.data()[i] = (w.data()[i] - e.mean) / e.std;
  return e;
}

double mean_abs(const MR& m) { return static_cast<double>(m.cwiseAbs().sum() / R(m.size())); }

// The bounds of the header comment, for input `in` (exact statistics `x`), target
// sigma_t, result with max |w'| = b, at unit roundoff u.
struct Bounds {
  double mean, std, z;
};

Bounds bounds(const MR& in, const Exact& x, double sigma_t, double b, double u) {
  const double n = static_cast<double>(in.size()), sigma = static_cast<double>(x.std);
  const double e = n * u * mean_abs(in), big_z = max_abs(x.z);
  return {2 * ((1 + sigma_t / sigma) * e + 3 * u * sigma_t + u * b),
          2 * (sigma_t * ((n / 2 + 9) * u + 5 * u * e / sigma + (e / sigma) * (e / sigma)) +
               1.5 * u * b),
          2 * u * (6 * big_z + 3 + 6 * e / sigma + (2 + 2 * big_z) * b / sigma_t)};
}

// Checks a ZWR / TVR result `out` of `in` against the three post-conditions:
// mean kept, std (of `kind`) = sigma_t, every z-score kept. Logs what a failure needs.
enum Post { kMean = 1, kStd = 2, kZ = 4 };

void check_post_conditions(const MR& in, const MR& out, StdKind kind, double sigma_t, double u,
                           int which) {
  const Exact x = exact(in, kind), y = exact(out, kind);
  const Bounds tol = bounds(in, x, sigma_t, max_abs(out), u);
  const double err_mean = static_cast<double>(abs(y.mean - x.mean));
  const double err_std = static_cast<double>(abs(y.std - R(sigma_t)));
  const double err_z = max_abs(MR(y.z - x.z));
  RC_LOG() << "W = " << verify::matrix_text(in) << "\nstd kind " << kind_name(kind)
           << ", sigma_t = " << verify::full_precision(sigma_t) << ", mean " << x.mean << ", std "
           << x.std << "\nmean err " << err_mean << " tol " << tol.mean << "; std err " << err_std
           << " tol " << tol.std << "; z err " << err_z << " tol " << tol.z << '\n';
  if (which & kMean) RC_ASSERT(err_mean <= tol.mean);
  if (which & kStd) RC_ASSERT(err_std <= tol.std);
  if (which & kZ) RC_ASSERT(err_z <= tol.z);
}

// ---- generators -----------------------------------------------------------------

// An integer uniform in [lo, hi), whatever the current size (rc::gen::inRange
// narrows its range at small sizes; these draws are exponents and ratios whose
// whole range matters from the first case).
int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }

// A weight matrix: 1 x N, N x 1 and odd shapes up to 33 x 33, at a common scale
// 10^s, s in [-100, 100] (entries within a decade of it, either sign), and half
// the time shifted by +-10^t rms(W), t in [-2, 6], so that its mean is far from 0
// (up to a million times its spread). At least two entries, not all equal.
M weights() {
  const long rows = *verify::gen::extent(33), cols = *verify::gen::extent(33);
  RC_PRE(rows * cols >= 2);
  M w = *verify::gen::matrix(rows, cols, verify::gen::decades(-100, 100, 1));
  if (*rc::gen::arbitrary<bool>()) {
    const double t = uniform(-200, 601) / 100.0;
    const double rms = std::sqrt(w.squaredNorm() / static_cast<double>(w.size()));
    w.array() += (*rc::gen::arbitrary<bool>() ? 1 : -1) * std::pow(10.0, t) * rms;
    RC_CLASSIFY(t > 3, "|mean| > 1e3 spread");
  }
  RC_PRE(w.maxCoeff() > w.minCoeff());
  RC_CLASSIFY(rows == 1 || cols == 1, "1 x N or N x 1");
  return w;
}

// A target 10^t times W's std, t in [-3, 3]: shrinking and growing alike.
double target_for(const M& w, StdKind kind) {
  const double t = uniform(-300, 301) / 100.0;
  return static_cast<double>(exact(cast<R>(w), kind).std) * std::pow(10.0, t);
}

StdKind any_kind() { return *rc::gen::element(StdKind::population, StdKind::unbiased); }

// ZWR or TVR (the same formula, eq. 20 / 21) on w with the given kind and target.
template <class S>
Mat<S> zwr_or_tvr(bool zwr, const Mat<S>& w, double target, StdKind kind) {
  return zwr ? rescale::zwr(w, target, kind) : rescale::tvr(w, target, kind);
}

// ---- ZWR and TVR (eq. 19-21) ------------------------------------------------------

// "+ mu(W^l)" in eq. 20 and 21: the mean is kept.
RC_GTEST_PROP(ZWRAndTVR, KeepTheMean, ()) {
  const M w = weights();
  const StdKind kind = any_kind();
  const double target = target_for(w, kind);
  const bool zwr = *rc::gen::arbitrary<bool>();
  check_post_conditions(cast<R>(w), cast<R>(zwr_or_tvr(zwr, w, target, kind)), kind, target, kU,
                        kMean);
}

// z^l sigma_target: the std (of the kind the z-scores were taken with) becomes the target.
RC_GTEST_PROP(ZWRAndTVR, SetTheStdToTheTarget, ()) {
  const M w = weights();
  const StdKind kind = any_kind();
  const double target = target_for(w, kind);
  const bool zwr = *rc::gen::arbitrary<bool>();
  check_post_conditions(cast<R>(w), cast<R>(zwr_or_tvr(zwr, w, target, kind)), kind, target, kU,
                        kStd);
}

// Eq. 19 then 21: (w'_i - mean(W')) / std(W') = (w_i - mu(W)) / sigma(W) for every entry.
RC_GTEST_PROP(ZWRAndTVR, KeepEveryZScore, ()) {
  const M w = weights();
  const StdKind kind = any_kind();
  const double target = target_for(w, kind);
  const bool zwr = *rc::gen::arbitrary<bool>();
  check_post_conditions(cast<R>(w), cast<R>(zwr_or_tvr(zwr, w, target, kind)), kind, target, kU,
                        kZ);
}

// The same three post-conditions with the arithmetic in 50 digits, to 1e-40.
RC_GTEST_PROP(ZWRAndTVR, PostConditionsHoldTo1e40In50Digits, ()) {
  const MR w = cast<R>(weights());
  const StdKind kind = any_kind();
  const double target = target_for(cast<double>(w), kind);
  const bool zwr = *rc::gen::arbitrary<bool>();
  check_post_conditions(w, zwr_or_tvr(zwr, w, target, kind), kind, target, kU50, kMean | kStd | kZ);
}

// Eq. 20 and 21 are one formula: ZWR is TVR with sigma_init as the target, bit for bit.
RC_GTEST_PROP(ZWR, IsTVRWithSigmaInitAsTheTarget, ()) {
  const M w = weights();
  const StdKind kind = any_kind();
  const double sigma_init = target_for(w, kind);
  RC_ASSERT(rescale::zwr(w, sigma_init, kind) == rescale::tvr(w, sigma_init, kind));
}

// Eq. 19: the z-scores have mean 0 and std 1 (the TVR bounds with sigma_t = 1,
// mu = 0 and no "+ mu" rounding, B = 0).
RC_GTEST_PROP(ZWR, StandardizedWeightsHaveMeanZeroAndStdOne, ()) {
  const M w = weights();
  const StdKind kind = any_kind();
  const MR in = cast<R>(w), z = cast<R>(rescale::standardize(w, kind));
  const Exact x = exact(in, kind), y = exact(z, kind);
  const Bounds tol = bounds(in, x, 1.0, 0.0, kU);
  RC_LOG() << "W = " << verify::matrix_text(in) << "\nmean(z) = " << y.mean
           << ", std(z) = " << y.std << ", tol " << tol.mean << ", " << tol.std << '\n';
  RC_ASSERT(static_cast<double>(abs(y.mean)) <= tol.mean);
  RC_ASSERT(static_cast<double>(abs(y.std - 1)) <= tol.std);
}

// ---- TVR as the authors' code runs it ---------------------------------------------

double any_threshold() { return *rc::gen::element(1.0, 1.2, 1.5, 2.0, 10.0); }

// std / sigma_target <= threshold (here by at least 0.1%): W comes back bit for bit,
// from the function and from the schedule on a due step.
RC_GTEST_PROP(TVRAuthorsCode, LeavesMatricesAtOrUnderTheThresholdBitwiseUntouched, ()) {
  const M w = weights();
  const double threshold = any_threshold();
  const double t = uniform(1, 3001) / 1000.0;  // ratio = threshold / 10^t
  const double target =
      static_cast<double>(exact(cast<R>(w), StdKind::unbiased).std) * std::pow(10.0, t) / threshold;
  RC_ASSERT(rescale::tvr_authors_code(w, target, threshold) == w);
  const auto s = rescale::Schedule::tvr_authors_code(target, 7, threshold);
  const rescale::Outcome<double> o = rescale::on_step(s, 14, 1, w);
  RC_ASSERT(o.due && !o.rescaled);
  RC_ASSERT(o.W == w);
}

// std / sigma_target > threshold (by at least 0.1%): the unbiased std becomes
// sigma_target, smaller than before; the mean and every z-score are kept.
RC_GTEST_PROP(TVRAuthorsCode, ShrinksMatricesAboveTheThresholdToSigmaTarget, ()) {
  const M w = weights();
  const double threshold = any_threshold();
  const double t = uniform(1, 3001) / 1000.0;  // ratio = threshold * 10^t
  const R std_before = exact(cast<R>(w), StdKind::unbiased).std;
  const double target = static_cast<double>(std_before) / std::pow(10.0, t) / threshold;
  const M out = rescale::tvr_authors_code(w, target, threshold);
  check_post_conditions(cast<R>(w), cast<R>(out), StdKind::unbiased, target, kU, kMean | kStd | kZ);
  RC_ASSERT(exact(cast<R>(out), StdKind::unbiased).std < std_before);
}

TEST(TVRAuthorsCode, ComparesTheUnbiasedStdStrictlyAndLeavesConstantMatricesAlone) {
  M w(1, 3);
  w << 0, 2, 4;  // mean 2, unbiased std exactly 2, population std sqrt(8/3) = 1.633
  M shrunk(1, 3);
  shrunk << 1, 2, 3;                                         // z = -1, 0, 1 times sigma_target 1
  EXPECT_TRUE(rescale::tvr_authors_code(w, 1.0, 2.0) == w);  // ratio 2 does not exceed 2
  EXPECT_TRUE(rescale::tvr_authors_code(w, 1.0, 1.7) == shrunk);  // unbiased 2 > 1.7 > 1.633
  EXPECT_TRUE(rescale::tvr(w, 1.0, StdKind::unbiased) == shrunk);
  const M constant = M::Constant(2, 3, 5.0);  // std 0: under any threshold
  EXPECT_TRUE(rescale::tvr_authors_code(constant, 1e-3, 1.0) == constant);
  EXPECT_FALSE(
      rescale::on_step(rescale::Schedule::tvr_authors_code(1e-3, 1), 1, 1, constant).rescaled);
}

// ---- UWR (eq. 17) -----------------------------------------------------------------

// ||W'||_F = 1: the norm's n squares and root, relative (n / 2 + 3.5) u, and one
// quotient per entry, u: tol 2 (n / 2 + 5) u.
RC_GTEST_PROP(UWR, GivesUnitFrobeniusNorm, ()) {
  const M w = weights();
  const R norm = cast<R>(rescale::uwr(w)).norm();
  const double tol = 2 * (static_cast<double>(w.size()) / 2 + 5) * kU;
  RC_LOG() << "W = " << verify::matrix_text(w) << "\n||W'|| - 1 = " << R(norm - 1) << '\n';
  RC_ASSERT(static_cast<double>(abs(norm - 1)) <= tol);
}

// W' = c W with one c > 0: each entry is one correctly rounded quotient by the same
// computed norm, so w'_i / w_i = c (1 + d_i), |d_i| <= u, and the ratios spread by at
// most (1 + u) / (1 - u) - 1 = 2 u + O(u^2) (tol 2.001 u). Signs, ratios between
// entries and the z-scores (the shape of the distribution) are therefore kept.
RC_GTEST_PROP(UWR, ScalesEveryEntryByOnePositiveFactor, ()) {
  const M w = weights();
  const MR ratio = cast<R>(rescale::uwr(w)).cwiseQuotient(cast<R>(w));
  const R lo = ratio.minCoeff(), hi = ratio.maxCoeff();
  RC_LOG() << "W = " << verify::matrix_text(w) << "\nratios in [" << lo << ", " << hi << "]\n";
  RC_ASSERT(lo > 0);
  RC_ASSERT(static_cast<double>(hi / lo - 1) <= 2.001 * kU);
}

// The same two bounds in 50 digits, with u = 1e-40.
RC_GTEST_PROP(UWR, PostConditionsHoldTo1e40In50Digits, ()) {
  const MR w = cast<R>(weights());
  const MR out = rescale::uwr(w);
  const MR ratio = out.cwiseQuotient(w);
  const double tol_norm = 2 * (static_cast<double>(w.size()) / 2 + 5) * kU50;
  RC_LOG() << "W = " << verify::matrix_text(w) << '\n';
  RC_ASSERT(static_cast<double>(abs(R(out.norm() - 1))) <= tol_norm);
  RC_ASSERT(ratio.minCoeff() > 0);
  RC_ASSERT(static_cast<double>(ratio.maxCoeff() / ratio.minCoeff() - 1) <= 2.001 * kU50);
}

// ---- the schedule -----------------------------------------------------------------

rescale::Schedule any_schedule(long k, double target) {
  switch (uniform(0, 4)) {
    case 0:
      return rescale::Schedule::uwr(k);
    case 1:
      return rescale::Schedule::zwr(target, k);
    case 2:
      return rescale::Schedule::tvr(target, k);
    default:
      return rescale::Schedule::tvr_authors_code(target, k);
  }
}

// The rule runs after steps k, 2k, 3k, ... and no others (steps count from 1, as
// the authors' callback reads Lightning's global_step); off those steps W comes back
// bit for bit. The target sits below W's std / 1.2, so every due step rescales, for
// every method.
RC_GTEST_PROP(Schedule, FiresExactlyAtMultiplesOfK, ()) {
  const long k = *rc::gen::inRange<long>(1, 61);
  const M w = weights();
  const double target = static_cast<double>(exact(cast<R>(w), StdKind::unbiased).std) / 10;
  const rescale::Schedule s = any_schedule(k, target);
  const int layer = uniform(1, 33);
  std::vector<long> fired;
  for (long step = 1; step <= 4 * k + 3; ++step) {
    const rescale::Outcome<double> o = rescale::on_step(s, step, layer, w);
    RC_ASSERT(o.due == rescale::is_due(s, step));
    RC_ASSERT(o.rescaled == o.due);
    if (!o.due) RC_ASSERT(o.W == w);
    if (o.rescaled) fired.push_back(step);
  }
  std::vector<long> multiples;
  for (long m = k; m <= 4 * k + 3; m += k) multiples.push_back(m);
  RC_ASSERT(fired == multiples);
}

// depth_scaled: the target at layer l is sigma_target / sqrt(l) (two roundings in
// double: within 2 u of the exact value; exact in 50 digits for l a perfect square),
// and a due step leaves that std; without it every layer gets sigma_target.
RC_GTEST_PROP(Schedule, DepthScalingDividesTheTargetBySqrtL, ()) {
  const int layer = uniform(1, 129);
  const M w = weights();
  const double sigma = target_for(w, StdKind::population);
  const bool authors = *rc::gen::arbitrary<bool>();
  const StdKind kind = authors ? StdKind::unbiased : StdKind::population;
  const rescale::Schedule flat = authors ? rescale::Schedule::tvr_authors_code(sigma, 1, 1.0)
                                         : rescale::Schedule::tvr(sigma, 1);
  rescale::Schedule deep = flat;
  deep.depth_scaled = true;
  const R exact_target = R(sigma) / sqrt(R(layer));
  const double target = rescale::target_at<double>(deep, layer);
  RC_ASSERT(static_cast<double>(abs(R(target) - exact_target) / exact_target) <= 2 * kU);
  RC_ASSERT(rescale::target_at<double>(flat, layer) == sigma);
  const int root = static_cast<int>(std::lround(std::sqrt(layer)));
  if (root * root == layer) RC_ASSERT(rescale::target_at<R>(deep, layer) == R(sigma) / root);
  const rescale::Outcome<double> o = rescale::on_step(deep, 1, layer, w);
  RC_ASSERT(o.target == target);
  if (o.rescaled) check_post_conditions(cast<R>(w), cast<R>(o.W), kind, target, kU, kStd);
  RC_ASSERT(o.rescaled || authors);  // only the authors' form may decline
}

// A trainer loop: a weight matrix whose spread grows 4% per step (std 0.0071 at
// first), the authors' TVR every 10 steps with sigma_target 0.01, threshold 1.2.
// Rescales happen on due steps only, exactly when the ratio exceeds 1.2, and leave
// std = sigma_target (tol_std of the header with n = 20, B < 3 is under 2e-15; 1e-14
// is checked); no due step grows the std.
TEST(Schedule, AuthorsTVRKeepsAGrowingMatrixWithinItsThreshold) {
  M w(4, 5);
  for (long i = 0; i < w.size(); ++i) w.data()[i] = 0.01 * std::sin(1.7 * i + 0.3) + 1e-3;
  const auto s = rescale::Schedule::tvr_authors_code(0.01, 10, 1.2);
  std::vector<long> fired;
  for (long step = 1; step <= 200; ++step) {
    w *= 1.04;  // the optimizer's update
    const double before = static_cast<double>(exact(cast<R>(w), StdKind::unbiased).std);
    const rescale::Outcome<double> o = rescale::on_step(s, step, 3, w);
    ASSERT_EQ(o.due, step % 10 == 0) << "step " << step;
    ASSERT_EQ(o.rescaled, o.due && before / 0.01 > 1.2) << "step " << step;
    const double after = static_cast<double>(exact(cast<R>(o.W), StdKind::unbiased).std);
    if (o.rescaled) {
      EXPECT_NEAR(after, 0.01, 1e-14) << "step " << step;
      fired.push_back(step);
    } else {
      EXPECT_TRUE(o.W == w) << "step " << step;
    }
    if (o.due) {
      EXPECT_LE(after / 0.01, 1.2) << "step " << step;
    }
    EXPECT_LE(after, before) << "step " << step;
    w = o.W;
  }
  // Step 10 finds ratio 0.71 x 1.04^10 = 1.05 (kept), step 20 finds 1.55 (shrunk to 1);
  // from then on 10 steps grow it by 1.04^10 = 1.48 > 1.2, so every check rescales.
  std::vector<long> expected;
  for (long step = 20; step <= 200; step += 10) expected.push_back(step);
  EXPECT_EQ(fired, expected);
}

// ---- range, and bad input ---------------------------------------------------------

// Sums of squares are scaled by the largest entry: at 1e-300 the plain squares would
// underflow to 0 (std 0, an error), at 1e300 overflow to inf.
TEST(Rescale, StatisticsSurviveTheEdgesOfTheDoubleRange) {
  M base(2, 3);
  base << 1, -2, 3, -4, 5, -6;
  for (double scale : {1e-300, 1e300}) {
    const M w = scale * base;
    // The target is 2 scale, so that the result's std is not lost against its mean
    // (-scale / 2): the relative error is then the header's tol_std / sigma_t, < 1e-14.
    const M t = rescale::tvr(w, 2 * scale);
    const Exact y = exact(cast<R>(t), StdKind::population);
    EXPECT_NEAR(static_cast<double>(y.std / (2 * scale)), 1.0, 1e-14) << "scale " << scale;
    const R norm = cast<R>(rescale::uwr(w)).norm();
    EXPECT_NEAR(static_cast<double>(norm), 1.0, 1e-14) << "scale " << scale;
  }
}

// The statistics work on W 2^-e (metrics/common.hpp): a mean near the largest
// double does not overflow, and a constant matrix has std exactly 0.
TEST(Rescale, MomentsNearTheLargestDoubleDoNotOverflow) {
  const auto m = rescale::moments((M(1, 2) << 1.5e308, 1.5e308).finished());
  EXPECT_EQ(m.mean, 1.5e308);
  EXPECT_EQ(m.std, 0.0);
}

TEST(Rescale, BadInputIsRejectedWithAClearError) {
  auto has = [](const std::function<void()>& f, const std::string& fragment) {
    const std::string msg = error_of(f);
    return msg.find(fragment) != std::string::npos ? ::testing::AssertionSuccess()
                                                   : ::testing::AssertionFailure() << msg;
  };
  const M w = (M(2, 3) << 1, -2, 3, -4, 5, -6).finished();
  EXPECT_TRUE(has([&] { rescale::tvr(w, 0.0); }, "rescale::tvr: expected sigma_target > 0"));
  EXPECT_TRUE(has([&] { rescale::tvr(w, -0.02); }, "got -0.02"));
  EXPECT_TRUE(has([&] { rescale::tvr(w, HUGE_VAL); }, "sigma_target > 0 and finite"));
  EXPECT_TRUE(has([&] { rescale::zwr(w, 0.0); }, "rescale::zwr: expected sigma_init > 0"));
  EXPECT_TRUE(has([&] { rescale::tvr_authors_code(w, -1.0); }, "expected sigma_target > 0"));
  EXPECT_TRUE(
      has([&] { rescale::tvr(M(0, 3), 0.02); }, "expected a non-empty matrix W, got W [0x3]"));
  EXPECT_TRUE(has([&] { rescale::uwr(M(3, 0)); }, "rescale::uwr: expected a non-empty"));
  M nan = w;
  nan(1, 2) = std::nan("");
  EXPECT_TRUE(has([&] { rescale::tvr(nan, 0.02); }, "expected a finite W, got nan at (1, 2)"));
  M inf = w;
  inf(0, 1) = -HUGE_VAL;
  EXPECT_TRUE(has([&] { rescale::uwr(inf); }, "at (0, 1)"));
  EXPECT_TRUE(has([&] { rescale::standardize(inf); }, "rescale::standardize: expected a finite W"));
  const M constant = M::Constant(2, 2, 0.5);
  EXPECT_TRUE(has([&] { rescale::tvr(constant, 0.02); }, "nonzero standard deviation"));
  EXPECT_TRUE(has([&] { rescale::zwr(constant, 0.02); }, "all 4 entries of W [2x2] equal to 0.5"));
  EXPECT_TRUE(
      has([&] { rescale::tvr(M(M::Constant(1, 1, 3.0)), 0.02); }, "nonzero standard deviation"));
  EXPECT_TRUE(has([&] { rescale::tvr(M(M::Constant(1, 1, 3.0)), 0.02, StdKind::unbiased); },
                  "at least 2 entries for the unbiased std"));
  EXPECT_TRUE(has([&] { rescale::tvr_authors_code(M(M::Constant(1, 1, 3.0)), 0.02); },
                  "at least 2 entries"));
  EXPECT_TRUE(has([&] { rescale::uwr(M(M::Zero(2, 2))); }, "expected W != 0"));
  EXPECT_TRUE(has([&] { rescale::tvr_authors_code(w, 0.02, 0.9); }, "expected threshold >= 1"));
  EXPECT_TRUE(has([&] { rescale::tvr_authors_code(w, 0.02, std::nan("")); }, "threshold >= 1"));
  EXPECT_TRUE(has([&] { rescale::tvr(w, 1.5e308); }, "rescale::tvr: the rescaled entry at"));

  using rescale::Schedule;
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule::tvr(0.02, 0), 1, 1, w); },
                  "rescale::on_step: expected every_k_steps (k) >= 1, got 0"));
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule{}, 1, 1, w); }, "every_k_steps (k) >= 1"));
  EXPECT_TRUE(has([&] { rescale::is_due(Schedule::uwr(-3), 1); }, "got -3"));
  EXPECT_TRUE(
      has([&] { rescale::on_step(Schedule::tvr(0.02, 5), 0, 1, w); }, "expected step >= 1"));
  EXPECT_TRUE(has([&] { rescale::is_due(Schedule::tvr(0.02, 5), -1); }, "expected step >= 1"));
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule::tvr(0.02, 5, true), 5, 0, w); },
                  "expected layer >= 1 (decoder layers count from l = 1"));
  EXPECT_TRUE(has([&] { rescale::target_at<double>(Schedule::zwr(0.02, 5), 0); },
                  "rescale::target_at: expected layer >= 1"));
  EXPECT_TRUE(
      has([&] { rescale::on_step(Schedule::zwr(0.0, 5), 5, 1, w); }, "expected sigma_init > 0"));
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule::tvr_authors_code(0.02, 5, 0.5), 5, 1, w); },
                  "expected threshold >= 1"));
  Schedule uwr_authors = Schedule::uwr(5);
  uwr_authors.form = rescale::Form::authors_code;
  EXPECT_TRUE(has([&] { rescale::on_step(uwr_authors, 5, 1, w); }, "expected Form::paper for UWR"));
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule::tvr(0.02, 5), 3, 1, nan); },
                  "rescale::on_step: expected a finite W"));  // checked on any step
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule::tvr(0.02, 5), 5, 1, constant); },
                  "rescale::on_step: expected W with a nonzero standard deviation"));
  EXPECT_TRUE(has([&] { rescale::on_step(Schedule::uwr(5), 5, 1, M(M::Zero(2, 2))); },
                  "rescale::on_step: expected W != 0"));
}

// ---- matrices without spread (issue: a constant 0.3 was z-scored to +1) ------------

// Values whose sum in storage order rounds (0.3, 0.1, 0.7 leave the mean an ulp
// off) and values it does not (0.5, 1, 0), over sizes from 2 entries to 33 153.
const std::vector<double> kConstants = {0.3, 0.1, 0.7, -0.3, 0.5, 1.0, 0.0, 1e-300, -7.3e299};
const std::vector<std::pair<int, int>> kShapes = {{1, 2}, {2, 2},   {4, 4},
                                                  {3, 7}, {64, 65}, {257, 129}};

TEST(RescaleSpread, AConstantMatrixHasMeanItsValueAndStdExactlyZero) {
  for (const double c : kConstants)
    for (const auto& [r, k] : kShapes)
      for (const StdKind kind : {StdKind::population, StdKind::unbiased}) {
        const auto m = metrics::mean_std(M(M::Constant(r, k, c)), kind);
        EXPECT_EQ(m.mean, c) << c << " in " << r << " x " << k;
        EXPECT_EQ(m.std, 0.0) << c << " in " << r << " x " << k;
      }
  const auto m50 = metrics::mean_std(MR(MR::Constant(4, 4, R("0.3"))));
  EXPECT_EQ(m50.mean, R("0.3"));
  EXPECT_EQ(m50.std, R(0));
}

TEST(RescaleSpread, AConstantMatrixIsNeverRescaledByZScores) {
  for (const double c : kConstants)
    for (const auto& [r, k] : kShapes) {
      const M w = M::Constant(r, k, c);
      EXPECT_TRUE(mentions(error_of([&] { rescale::zwr(w, 0.01); }), "nonzero standard deviation"))
          << c << " in " << r << " x " << k;
      EXPECT_TRUE(mentions(error_of([&] { rescale::tvr(w, 0.01, StdKind::unbiased); }),
                           "nonzero standard deviation"));
      EXPECT_TRUE(mentions(error_of([&] { rescale::standardize(w); }), "nonzero standard"));
      EXPECT_TRUE(
          mentions(error_of([&] { rescale::on_step(rescale::Schedule::tvr(0.01, 1), 1, 1, w); }),
                   "nonzero standard deviation"));
      // The authors' rule leaves it alone, even against a target far below any
      // rounding-level std (1e-300), which a std of 5e-17 for 0.3 would exceed.
      const M kept = rescale::tvr_authors_code(w, 1e-300);
      EXPECT_EQ(std::memcmp(kept.data(), w.data(), sizeof(double) * w.size()), 0);
      const auto o = rescale::on_step(rescale::Schedule::tvr_authors_code(1e-300, 1), 1, 1, w);
      EXPECT_FALSE(o.rescaled);
      EXPECT_EQ(std::memcmp(o.W.data(), w.data(), sizeof(double) * w.size()), 0);
    }
}

// Entries an ulp or two apart: a spread at rounding level, which z-scores would
// blow up to +-1 (or more); refused like a constant. A spread just above the
// bound n u max|W| is rescaled.
TEST(RescaleSpread, ASpreadAtRoundingLevelIsNoSpread) {
  for (const double c : {0.3, 1.0, -2.5e-8})
    for (const auto& [r, k] : kShapes) {
      M w = M::Constant(r, k, c);
      w(0, 0) = std::nextafter(c, HUGE_VAL);
      w(r - 1, k - 1) = std::nextafter(std::nextafter(c, -HUGE_VAL), -HUGE_VAL);
      const std::string e = error_of([&] { rescale::zwr(w, 0.01); });
      EXPECT_TRUE(mentions(e, "spread at rounding level")) << e;
      EXPECT_FALSE(
          rescale::on_step(rescale::Schedule::tvr_authors_code(1e-300, 1), 1, 1, w).rescaled);
      // Half the entries c (1 + 4 (n + 4) u): std 2 (n + 4) u |c|, twice the bound.
      const double n = static_cast<double>(w.size());
      M spread = M::Constant(r, k, c);
      for (long i = 0; i < spread.size(); i += 2)
        spread.data()[i] = c * (1 + 4 * (n + 4) * 0x1p-53);
      const auto m = rescale::moments(spread);
      EXPECT_NO_THROW(rescale::zwr(spread, 0.01))
          << c << " " << r << " x " << k << " std " << m.std;
    }
}

}  // namespace
