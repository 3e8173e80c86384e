// The initializers of rescale Sec. 2.3 and smallinit Sec. 4.2
// (scaleref/init/initializers.hpp), and SDD's V drawn from a Philox stream.
//
// The statistical checks and their power. For n independent entries of a law
// with std sigma and kurtosis k, the sample mean has standard error
// sigma / sqrt(n) and the unbiased sample variance s^2 has
//   Var(s^2) = sigma^4 (k / n - (n - 3) / (n (n - 1))),
// i.e. a relative standard error rse = sqrt(2 / (n - 1)) for a normal (k = 3)
// and about sqrt(0.8 / n) for a uniform (k = 9/5). A check passes when the
// statistic is within kBound = 5 standard errors. A std off by a factor
// sqrt(2) puts the variance at 2 or 1/2 of the target, 0.5 / rse standard
// errors away or more: every sample below has n >= 16384, so rse <= 0.0111
// (normal) and the wrong factor sits >= 45 standard errors out, where the
// bound is 5. Each check also shows it on the sample it drew: the same
// statistic against the variance times 2 and times 1/2 must exceed kPower = 20
// standard errors. The samples come from fixed seeds, so the run is
// deterministic; with fresh seeds a right initializer would fail a 5-sigma
// check with probability about 6e-7 per statistic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <scaleref/init/initializers.hpp>
#include <scaleref/sdd/init.hpp>
#include <string>
#include <vector>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using scaleref::test::error_of;
using M = Mat<double>;
using init::Role;
using init::Shape;

constexpr double kBound = 5;   // standard errors a right statistic may be off
constexpr double kPower = 20;  // standard errors a wrong factor sqrt(2) must be off, at least

struct Moments {
  double n, mean, var;  // var: unbiased
};

// Two passes in a fixed order.
Moments moments(const M& w) {
  const double n = static_cast<double>(w.size());
  double sum = 0;
  for (long i = 0; i < w.size(); ++i) sum += w.data()[i];
  const double mean = sum / n;
  double ss = 0;
  for (long i = 0; i < w.size(); ++i) ss += (w.data()[i] - mean) * (w.data()[i] - mean);
  return {n, mean, ss / (n - 1)};
}

// The relative standard error of the unbiased sample variance of n draws of kurtosis k.
double variance_rse(double n, double kurtosis) {
  return std::sqrt(kurtosis / n - (n - 3) / (n * (n - 1)));
}

// How many standard errors the sample variance lies from var.
double variance_z(const Moments& m, double var, double kurtosis) {
  return (m.var - var) / (var * variance_rse(m.n, kurtosis));
}

double kurtosis(init::Family f) { return f == init::Family::normal ? 3.0 : 9.0 / 5.0; }

// W's entries follow `law`: mean 0 and variance std^2 within kBound standard
// errors, the wrong factors sqrt(2) beyond kPower; a uniform law's entries lie
// strictly inside (-b, b) (|w| = b needs u = 1, probability 2^-53 per entry,
// absent from these fixed draws) and reach within 20 / n of b
// (P(max |w| < b (1 - t)) = (1 - t)^n, e^-20 at t = 20 / n).
void expect_law(const char* what, const M& W, const init::Law& law) {
  const Moments m = moments(W);
  const double k = kurtosis(law.family), var = law.std * law.std;
  const double z_mean = m.mean / (law.std / std::sqrt(m.n));
  const double z = variance_z(m, var, k), z_high = variance_z(m, 2 * var, k),
               z_low = variance_z(m, var / 2, k);
  std::printf(
      "  [measured] %-34s n = %6.0f  std %.6g (target %.6g)  z(mean) %+.2f  z(var) %+.2f"
      "  z if std*sqrt2 %+.1f  z if std/sqrt2 %+.1f\n",
      what, m.n, std::sqrt(m.var), law.std, z_mean, z, z_high, z_low);
  EXPECT_LE(std::abs(z_mean), kBound) << what;
  EXPECT_LE(std::abs(z), kBound) << what;
  EXPECT_GE(std::abs(z_high), kPower) << what;
  EXPECT_GE(std::abs(z_low), kPower) << what;
  if (law.family == init::Family::uniform) {
    const double max_abs = W.cwiseAbs().maxCoeff();
    EXPECT_LT(max_abs, law.bound) << what;
    EXPECT_GT(max_abs, law.bound * (1 - 20 / m.n)) << what;
  }
}

// The papers' laws, written here from the equations, independently of the header.
init::Law paper_normal(double std) {
  return {init::Family::normal, std, std::numeric_limits<double>::infinity()};
}
init::Law paper_uniform(double b) { return {init::Family::uniform, b / std::sqrt(3.0), b}; }

// law() states the paper's law, and the matrix drawn under c follows it.
void check_method(const char* what, const Shape& s, int layer, const init::Config& c,
                  random::Stream rng, const init::Law& paper) {
  const init::Law stated = init::law(s, layer, c);
  EXPECT_EQ(stated.family, paper.family) << what;
  EXPECT_DOUBLE_EQ(stated.std, paper.std) << what;
  EXPECT_DOUBLE_EQ(stated.bound, paper.bound) << what;
  expect_law(what, init::draw<double>(s, layer, c, rng), paper);
}

// ---- the formulas ------------------------------------------------------------------

// A rectangular matrix, so that n_in and n_out cannot be swapped unnoticed.
const Shape kRect{96, 256, Role::up};

TEST(InitFormulas, XavierAndKaimingAreEquations8To11) {
  const double n_in = 256, n_out = 96;
  EXPECT_DOUBLE_EQ(init::target_std(kRect, 1, init::XavierNormal{}),
                   std::sqrt(2 / (n_in + n_out)));  // eq. 9
  EXPECT_DOUBLE_EQ(init::target_std(kRect, 1, init::KaimingNormal{}), std::sqrt(2 / n_in));  // 10
  const init::Law xu = init::law(kRect, 1, init::XavierUniform{});
  EXPECT_EQ(xu.family, init::Family::uniform);
  EXPECT_DOUBLE_EQ(xu.bound, std::sqrt(6 / (n_in + n_out)));  // eq. 8
  const init::Law ku = init::law(kRect, 1, init::KaimingUniform{});
  EXPECT_DOUBLE_EQ(ku.bound, std::sqrt(6 / n_in));  // eq. 11
  // U(-b, b) has variance b^2 / 3: the uniform and normal forms target the same std.
  EXPECT_DOUBLE_EQ(xu.std, init::target_std(kRect, 1, init::XavierNormal{}));
  EXPECT_DOUBLE_EQ(ku.std, init::target_std(kRect, 1, init::KaimingNormal{}));
}

TEST(InitFormulas, GaussianDefaultsToSigma002) {
  EXPECT_EQ(init::target_std(kRect, 3, init::Gaussian{}), 0.02);
  const init::Law law = init::law(kRect, 3, init::Gaussian{0.006});
  EXPECT_EQ(law.family, init::Family::normal);
  EXPECT_EQ(law.std, 0.006);
  EXPECT_EQ(law.bound, std::numeric_limits<double>::infinity());
}

TEST(InitFormulas, SIRScalesOnlyTheResidualOutputProjections) {
  const init::SIR sir{0.02, 12};  // eq. 12: sigma^2 / (2N) on the two output projections
  for (Role r : {Role::attention_output, Role::ffn_output})
    EXPECT_DOUBLE_EQ(init::target_std({64, 64, r}, 5, sir), 0.02 / std::sqrt(24.0))
        << init::role_name(r);
  for (Role r :
       {Role::embedding, Role::query, Role::key, Role::value, Role::gate, Role::up, Role::head})
    EXPECT_EQ(init::target_std({64, 64, r}, 5, sir), 0.02) << init::role_name(r);
}

TEST(InitFormulas, LIRDividesByRootLInsideLayersAndKeepsEmbeddingAndHead) {
  for (int l = 1; l <= 8; ++l)
    for (Role r : {Role::query, Role::key, Role::value, Role::attention_output, Role::gate,
                   Role::up, Role::ffn_output})
      EXPECT_DOUBLE_EQ(init::target_std({64, 32, r}, l, init::LIR{0.02}), 0.02 / std::sqrt(l));
  // The embedding and the head keep the base std, whatever layer index is passed.
  for (int l : {0, 1, 7}) {
    EXPECT_EQ(init::target_std({1000, 64, Role::embedding}, l, init::LIR{0.02}), 0.02);
    EXPECT_EQ(init::target_std({1000, 64, Role::head}, l, init::LIR{0.02}), 0.02);
  }
}

TEST(InitFormulas, DSInitIsXavierUniformTimesAlphaOverRootL) {
  const double beta = std::sqrt(6.0 / (256 + 96));  // eq. 15
  for (int l = 1; l <= 6; ++l)
    EXPECT_DOUBLE_EQ(init::law(kRect, l, init::DSInit{0.5}).bound,
                     beta * 0.5 / std::sqrt(l));  // eq. 14
  // Outside the layers: eq. 13, U(-beta, beta) (the project's reading).
  EXPECT_DOUBLE_EQ(init::law({96, 256, Role::head}, 0, init::DSInit{0.5}).bound, beta);
  // alpha = 1: eq. 14 at l = 1 is Xavier uniform (eq. 8).
  EXPECT_EQ(init::law(kRect, 1, init::DSInit{1.0}).bound,
            init::law(kRect, 1, init::XavierUniform{}).bound);
}

TEST(InitFormulas, GammaInitIsDinToTheMinusGamma) {
  // smallinit Sec. 4.2: sigma = d_in^(-gamma), d_in the columns of [d_out, d_in].
  EXPECT_DOUBLE_EQ(init::target_std(kRect, 1, init::GammaInit{1.0}), 1.0 / 256);
  EXPECT_DOUBLE_EQ(init::target_std(kRect, 1, init::GammaInit{0.5}), 1.0 / 16);  // "standard"
  EXPECT_EQ(init::target_std(kRect, 1, init::GammaInit{0.0}), 1.0);
  // The embedding [vocab, d]: N(0, d^(-2 gamma)) with d its width (Appendix A).
  EXPECT_DOUBLE_EQ(init::target_std({50000, 2048, Role::embedding}, 0, init::GammaInit{1.0}),
                   1.0 / 2048);
  // gamma = 1/2 equals Xavier only for a square matrix (the paper's "Xavier-like").
  EXPECT_DOUBLE_EQ(init::target_std({64, 64, Role::query}, 1, init::GammaInit{0.5}),
                   init::target_std({64, 64, Role::query}, 1, init::XavierNormal{}));
}

TEST(InitFormulas, MethodsAreNamedAsThePapersNameThem) {
  EXPECT_STREQ(init::method_name(init::Gaussian{}), "Gaussian");
  EXPECT_STREQ(init::method_name(init::XavierNormal{}), "XavierNormal");
  EXPECT_STREQ(init::method_name(init::XavierUniform{}), "XavierUniform");
  EXPECT_STREQ(init::method_name(init::KaimingNormal{}), "KaimingNormal");
  EXPECT_STREQ(init::method_name(init::KaimingUniform{}), "KaimingUniform");
  EXPECT_STREQ(init::method_name(init::SIR{}), "SIR");
  EXPECT_STREQ(init::method_name(init::DSInit{}), "DSInit");
  EXPECT_STREQ(init::method_name(init::LIR{}), "LIR");
  EXPECT_STREQ(init::method_name(init::GammaInit{}), "GammaInit");
}

// ---- the drawn matrices follow the formulas ---------------------------------------

TEST(InitStatistics, GaussianDrawsItsSigma) {
  check_method("Gaussian 0.02 [128x256]", {128, 256, Role::query}, 1, init::Gaussian{}, {1, 1},
               paper_normal(0.02));
}

TEST(InitStatistics, XavierNormalDrawsEquation9) {
  check_method("XavierNormal [384x96]", {384, 96, Role::up}, 2, init::XavierNormal{}, {1, 2},
               paper_normal(std::sqrt(2.0 / (96 + 384))));
}

TEST(InitStatistics, XavierUniformDrawsEquation8) {
  check_method("XavierUniform [96x256]", {96, 256, Role::key}, 2, init::XavierUniform{}, {1, 3},
               paper_uniform(std::sqrt(6.0 / (256 + 96))));
}

TEST(InitStatistics, KaimingNormalDrawsEquation10WithTheFanIn) {
  // d_in = 256, d_out = 96: the fan-out would give a variance 256 / 96 times larger.
  check_method("KaimingNormal [96x256]", {96, 256, Role::value}, 3, init::KaimingNormal{}, {1, 4},
               paper_normal(std::sqrt(2.0 / 256)));
}

TEST(InitStatistics, KaimingUniformDrawsEquation11WithTheFanIn) {
  check_method("KaimingUniform [256x96]", {256, 96, Role::gate}, 3, init::KaimingUniform{}, {1, 5},
               paper_uniform(std::sqrt(6.0 / 96)));
}

TEST(InitStatistics, SIRDrawsSigmaOverRoot2NOnOutputProjectionsOnly) {
  const init::SIR sir{0.02, 12};
  const init::Law scaled = paper_normal(0.02 / std::sqrt(2.0 * 12));  // eq. 12, N = 12
  check_method("SIR attention_output [128x256]", {128, 256, Role::attention_output}, 5, sir, {1, 6},
               scaled);
  check_method("SIR ffn_output [128x512]", {128, 512, Role::ffn_output}, 12, sir, {1, 7}, scaled);
  check_method("SIR query (unscaled) [128x256]", {128, 256, Role::query}, 5, sir, {1, 8},
               paper_normal(0.02));
}

TEST(InitStatistics, DSInitDrawsEquation14) {
  // beta alpha / sqrt(l), beta = sqrt(6 / (n_in + n_out)) (eq. 15), alpha = 0.5, l = 3.
  check_method("DSInit a=0.5 l=3 [128x256]", {128, 256, Role::attention_output}, 3,
               init::DSInit{0.5}, {1, 9},
               paper_uniform(std::sqrt(6.0 / (256 + 128)) * 0.5 / std::sqrt(3.0)));
}

TEST(InitStatistics, GammaInitDrawsDinToTheMinusGamma) {
  // d_in = 512, d_out = 64: d_out^(-gamma) would be 8 times larger.
  check_method("GammaInit g=1 [64x512]", {64, 512, Role::ffn_output}, 1, init::GammaInit{1.0},
               {1, 10}, paper_normal(1.0 / 512));
  // The embedding [vocab, d]: sigma = d^(-gamma) with d = 128 its width.
  check_method("GammaInit g=0.75 embedding [1000x128]", {1000, 128, Role::embedding}, 0,
               init::GammaInit{0.75}, {1, 11}, paper_normal(std::pow(128.0, -0.75)));
}

// LIR across layers 1..8, one [128 x 128] matrix each (n = 16384). The sample
// std's log has standard error 1 / sqrt(2 n) for a normal, so log(s_l / s_1)
// has 1 / sqrt(n) = 0.0078: the bound is 5 of those (0.039). A wrong rule
// shows far outside it: 1 / l instead of 1 / sqrt(l) is off by log(l) / 2 =
// 0.35 at l = 2 (44 SE); the 0-based sqrt(l + 1) gives ratios off by
// log(2 l / (l + 1)) / 2 = 0.29 at l = 8 (37 SE). The slope of log s_l on
// log l (least squares over l = 1..8, sum of (log l - mean)^2 = 3.46) has
// standard error sqrt(1 / (2 n) / 3.46) = 0.003; it must be -1/2 within 5.
TEST(InitStatistics, LIRStdRatioAcrossLayersIsOneOverRootL) {
  const Shape s{128, 128, Role::query};
  const init::LIR lir{0.02};
  const double n = 128.0 * 128.0;
  std::vector<double> log_l, log_s;
  double s1 = 0;
  for (int l = 1; l <= 8; ++l) {
    const M W = init::draw<double>(s, l, lir, {2, static_cast<std::uint32_t>(100 + l)});
    const double sd = std::sqrt(moments(W).var);
    if (l == 1) s1 = sd;
    const double err = std::log(sd / s1) - std::log(1 / std::sqrt(double(l)));
    std::printf(
        "  [measured] LIR l = %d  std %.6g (target %.6g)  ratio s_l/s_1 %.5f (target %.5f)"
        "  log error %+.4f = %+.2f SE\n",
        l, sd, 0.02 / std::sqrt(l), sd / s1, 1 / std::sqrt(double(l)), err, err * std::sqrt(n));
    EXPECT_LE(std::abs(err), kBound / std::sqrt(n)) << "l = " << l;
    char label[32];
    std::snprintf(label, sizeof label, "LIR l = %d [128x128]", l);
    expect_law(label, W, paper_normal(0.02 / std::sqrt(double(l))));
    log_l.push_back(std::log(double(l)));
    log_s.push_back(std::log(sd));
  }
  double ml = 0, ms = 0;
  for (std::size_t k = 0; k < log_l.size(); ++k) ml += log_l[k] / 8, ms += log_s[k] / 8;
  double sxy = 0, sxx = 0;
  for (std::size_t k = 0; k < log_l.size(); ++k) {
    sxy += (log_l[k] - ml) * (log_s[k] - ms);
    sxx += (log_l[k] - ml) * (log_l[k] - ml);
  }
  const double slope = sxy / sxx, slope_se = std::sqrt(1 / (2 * n) / sxx);
  std::printf("  [measured] LIR slope of log std on log l: %.5f (target -0.5, SE %.4f)\n", slope,
              slope_se);
  EXPECT_NEAR(slope, -0.5, kBound * slope_se);
}

// ---- reproducibility and independence ----------------------------------------------

TEST(InitStreams, SameSeedAndTensorGiveTheSameMatrixBitwise) {
  for (const init::Config& c :
       std::vector<init::Config>{init::Gaussian{}, init::XavierUniform{}, init::GammaInit{1.0}}) {
    const M a = init::draw<double>(kRect, 4, c, {9, 3}),
            b = init::draw<double>(kRect, 4, c, {9, 3});
    EXPECT_TRUE(a == b) << init::method_name(c);
  }
}

TEST(InitStreams, EntryIJIsDrawnAtIndexIJTimesDinPlusJ) {
  const random::Stream rng{5, 17};
  const Shape s{7, 13, Role::value};
  const M g = init::draw<double>(s, 1, init::Gaussian{0.02}, rng);
  const M u = init::draw<double>(s, 1, init::KaimingUniform{}, rng);
  const double b = std::sqrt(6.0 / 13);
  for (long i = 0; i < 7; ++i)
    for (long j = 0; j < 13; ++j) {
      const auto idx = static_cast<std::uint64_t>(i * 13 + j);
      EXPECT_EQ(g(i, j), 0.02 * random::normal(5, 17, idx));
      EXPECT_EQ(u(i, j), b * (2 * random::uniform(5, 17, idx) - 1));
    }
  // Rows depend only on d_in: a taller matrix starts with the same rows.
  const M tall = init::draw<double>({11, 13, Role::value}, 1, init::Gaussian{0.02}, rng);
  EXPECT_TRUE(tall.topRows(7) == g);
}

TEST(InitStreams, Real50HoldsTheSameWeightsAsDouble) {
  const Shape s{8, 12, Role::ffn_output};
  for (const init::Config& c : std::vector<init::Config>{init::LIR{0.02}, init::DSInit{0.7}}) {
    const Mat<Real50> w50 = init::draw<Real50>(s, 3, c, {4, 4});
    EXPECT_TRUE(w50 == cast<Real50>(init::draw<double>(s, 3, c, {4, 4}))) << init::method_name(c);
  }
}

// Sample correlation of two matrices' entries, paired by position.
double correlation(const M& a, const M& b) {
  const Moments ma = moments(a), mb = moments(b);
  double sab = 0;
  for (long i = 0; i < a.size(); ++i) sab += (a.data()[i] - ma.mean) * (b.data()[i] - mb.mean);
  return sab / (ma.n - 1) / std::sqrt(ma.var * mb.var);
}

// The number of values that occur in both (exact bit patterns).
long shared_values(const M& a, const M& b) {
  std::vector<double> x(a.data(), a.data() + a.size()), y(b.data(), b.data() + b.size());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  std::vector<double> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  return static_cast<long>(both.size());
}

// For independent entries the sample correlation over n pairs has standard
// error 1 / sqrt(n) = 0.0039 at n = 65536: the bound is 5 of those (0.0195),
// so a dependence of |rho| >= 0.04 would show at >= 10 SE. Overlapping
// streams (tensor t + 1 a shifted copy of tensor t) would not show in a
// correlation paired by position, so the check also asks that no value of one
// matrix occurs in the other: with values of 53 random bits, n^2 / 2^53 = 5e-7
// coincidences are expected.
TEST(InitStreams, DifferentTensorIdsOrSeedsGiveIndependentMatrices) {
  const Shape s{256, 256, Role::key};
  const init::Gaussian g{1.0};
  const M a = init::draw<double>(s, 1, g, {42, 7});
  const double n = static_cast<double>(a.size());
  for (const random::Stream other : {random::Stream{42, 8}, random::Stream{43, 7}}) {
    const M b = init::draw<double>(s, 1, g, other);
    const double r = correlation(a, b);
    std::printf(
        "  [measured] seed 42 tensor 7 vs seed %llu tensor %u: correlation %+.5f = %+.2f SE,"
        " %ld shared values\n",
        static_cast<unsigned long long>(other.seed), other.tensor, r, r * std::sqrt(n),
        shared_values(a, b));
    EXPECT_FALSE(a == b);
    EXPECT_LE(std::abs(r), kBound / std::sqrt(n));
    EXPECT_EQ(shared_values(a, b), 0);
  }
}

// Neighbouring entries (index k and k + 1 of one stream) are uncorrelated:
// the lag-1 sample correlation over n - 1 pairs, within 5 / sqrt(n).
TEST(InitStreams, NeighbouringEntriesAreUncorrelated) {
  const M a = init::draw<double>({256, 256, Role::key}, 1, init::Gaussian{1.0}, {42, 7});
  const long n = a.size();
  const M x = Eigen::Map<const M>(a.data(), 1, n - 1),
          y = Eigen::Map<const M>(a.data() + 1, 1, n - 1);
  const double r = correlation(x, y);
  std::printf("  [measured] lag-1 correlation %+.5f = %+.2f SE\n", r, r * std::sqrt(double(n)));
  EXPECT_LE(std::abs(r), kBound / std::sqrt(double(n - 1)));
}

// ---- bad input ---------------------------------------------------------------------

bool mentions(const std::function<void()>& f, const std::string& fragment) {
  const std::string msg = error_of(f);
  if (msg.find(fragment) == std::string::npos) {
    ADD_FAILURE() << "expected an Error mentioning \"" << fragment << "\", got \"" << msg << "\"";
    return false;
  }
  return true;
}

TEST(InitErrors, EmptyShapeIsAnError) {
  for (const Shape& s :
       {Shape{0, 4, Role::query}, Shape{4, 0, Role::query}, Shape{-1, 4, Role::embedding}}) {
    EXPECT_TRUE(mentions(
        [&] {
          init::draw<double>(s, 1, init::Gaussian{}, {1, 1});
        },
        "init::draw: expected a non-empty shape"));
    EXPECT_TRUE(mentions([&] { init::target_std(s, 1, init::XavierNormal{}); },
                         "init::target_std: expected a non-empty shape"));
  }
}

TEST(InitErrors, LayerIndexStartsAtOneInsideDecoderLayers) {
  const std::vector<init::Config> all{
      init::Gaussian{},       init::XavierNormal{}, init::XavierUniform{}, init::KaimingNormal{},
      init::KaimingUniform{}, init::SIR{0.02, 4},   init::DSInit{},        init::LIR{},
      init::GammaInit{}};
  for (const init::Config& c : all) {
    EXPECT_TRUE(mentions(
        [&] {
          init::draw<double>({4, 4, Role::up}, 0, c, {1, 1});
        },
        "expected a layer index l >= 1 (l starts at 1) for the up map"))
        << init::method_name(c);
    EXPECT_TRUE(mentions([&] { init::law({4, 4, Role::ffn_output}, -3, c); }, "got -3"));
    // The embedding and the head sit outside the layers: their l is not read.
    EXPECT_NO_THROW(init::law({4, 4, Role::embedding}, 0, c)) << init::method_name(c);
    EXPECT_NO_THROW(init::law({4, 4, Role::head}, 0, c)) << init::method_name(c);
  }
}

TEST(InitErrors, LIRAndSIRTogetherIsAnError) {
  init::RescaleSwitches both;
  both.layer_index_rescaling = both.special_residual = true;
  both.n_layers = 4;
  EXPECT_TRUE(mentions([&] { init::from_switches(both); }, "LIR and SIR are exclusive"));
  init::RescaleSwitches lir{0.01, true, false, 0}, sir{0.01, false, true, 4}, none{0.01};
  EXPECT_EQ(std::get<init::LIR>(init::from_switches(lir)).sigma, 0.01);
  EXPECT_EQ(std::get<init::SIR>(init::from_switches(sir)).n_layers, 4);
  EXPECT_EQ(std::get<init::Gaussian>(init::from_switches(none)).sigma, 0.01);
}

TEST(InitErrors, SIRNeedsItsLayerCountAndALayerWithinIt) {
  const Shape o{8, 8, Role::attention_output};
  EXPECT_TRUE(mentions(
      [&] {
        init::law(o, 1, init::SIR{0.02, 0});
      },
      "SIR: expected n_layers >= 1"));
  EXPECT_TRUE(mentions(
      [&] {
        init::law(o, 5, init::SIR{0.02, 4});
      },
      "SIR: expected a layer index l <= n_layers = 4, got 5"));
  EXPECT_NO_THROW(init::law(o, 4, init::SIR{0.02, 4}));
}

TEST(InitErrors, SigmaMustBeFiniteAndPositive) {
  const Shape s{8, 8, Role::query};
  for (double sigma : {0.0, -0.02, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_TRUE(mentions([&] { init::law(s, 1, init::Gaussian{sigma}); },
                         "Gaussian: expected a finite sigma > 0"));
    EXPECT_TRUE(mentions(
        [&] {
          init::law(s, 1, init::SIR{sigma, 2});
        },
        "SIR: expected a finite sigma > 0"));
    EXPECT_TRUE(
        mentions([&] { init::law(s, 1, init::LIR{sigma}); }, "LIR: expected a finite sigma > 0"));
  }
}

TEST(InitErrors, GammaMustBeNonNegativeAndItsSigmaRepresentable) {
  const Shape s{8, 1 << 20, Role::query};
  for (double gamma : {-0.5, std::nan("")})
    EXPECT_TRUE(mentions([&] { init::law(s, 1, init::GammaInit{gamma}); },
                         "GammaInit: expected a finite gamma >= 0"));
  EXPECT_TRUE(mentions([&] { init::law(s, 1, init::GammaInit{60.0}); },
                       "GammaInit: sigma = d_in^(-gamma) underflows to 0"));  // 2^-1200
  EXPECT_EQ(init::target_std(s, 1, init::GammaInit{0.0}), 1.0);
}

TEST(InitErrors, DSInitAlphaMustBeInZeroOne) {
  for (double alpha : {0.0, -0.5, 1.5, std::nan("")})
    EXPECT_TRUE(mentions([&] { init::law(kRect, 1, init::DSInit{alpha}); },
                         "DSInit: expected alpha in (0, 1]"));
  EXPECT_NO_THROW(init::law(kRect, 1, init::DSInit{1.0}));
}

// ---- SDD's V from a Philox stream ---------------------------------------------------

// Two independent sample stds of n normal draws each differ by a standard
// error sigma sqrt(1/(2n) + 1/(2n)) = sigma / sqrt(n) = 0.0028 sigma at
// n = 131072 (less for the truncated normal, whose kurtosis is below 3): the
// bound is 5 of those. A factor sqrt(2) in either overload's std would put the
// two 0.41 sigma apart, about 150 standard errors.
TEST(SDDInitPhilox, DrawsTheSameStdAsTheURBGOverload) {
  for (const sdd::VInit v : {sdd::VInit{1024, sdd::VReading::std, false},
                             sdd::VInit{1024, sdd::VReading::variance, true}}) {
    std::mt19937_64 gen(7);
    random::Stream stream{7, 1};
    const M a = sdd::init_V<double>(256, 512, v, gen);
    const M b = sdd::init_V<double>(256, 512, v, stream);
    const double sigma = sdd::v_std(v.d_model, v.reading), n = static_cast<double>(a.size());
    const double sa = std::sqrt(moments(a).var), sb = std::sqrt(moments(b).var);
    std::printf("  [measured] SDD V (%s%s): std URBG %.6g, Philox %.6g, difference %.2f SE\n",
                v.reading == sdd::VReading::std ? "std reading" : "variance reading",
                v.truncate_3_sigma ? ", truncated" : "", sa, sb,
                (sb - sa) / (sigma / std::sqrt(n)));
    EXPECT_NEAR(sb, sa, kBound * sigma / std::sqrt(n));
    EXPECT_GE(std::abs(std::sqrt(2.0) * sb - sa), kPower * sigma / std::sqrt(n));
  }
}

TEST(SDDInitPhilox, EntryIJIsDrawnAtIndexIJTimesDinPlusJ) {
  const random::Stream stream{3, 9};
  const sdd::VInit plain{64, sdd::VReading::std, false}, cut{64, sdd::VReading::std, true};
  const M V = sdd::init_V<double>(5, 7, plain, stream), T = sdd::init_V<double>(5, 7, cut, stream);
  const double sigma = sdd::v_std(64);
  for (long i = 0; i < 5; ++i)
    for (long j = 0; j < 7; ++j) {
      const auto idx = static_cast<std::uint64_t>(i * 7 + j);
      EXPECT_EQ(V(i, j), sigma * random::normal(3, 9, idx));
      EXPECT_EQ(T(i, j), sigma * random::truncated_normal(3, 9, idx, 3.0));
      EXPECT_LE(std::abs(T(i, j)), 3 * sigma);
    }
  EXPECT_TRUE(V == sdd::init_V<double>(5, 7, plain, random::Stream{3, 9}));  // a temporary stream
  EXPECT_TRUE(mentions([&] { sdd::init_V<double>(0, 7, plain, stream); }, "non-empty shape"));
}

}  // namespace
