// SDD's initialization (sdd Sec. 4.1) and the authors' variants, and the
// normal sampler it draws from.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <scaleref/sdd/init.hpp>
#include <scaleref/sdd/overhead.hpp>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using scaleref::test::error_of;
using M = Mat<double>;

TEST(SDDInit, AlphaIsOneOverSqrtLOnOutputProjectionsAndOneElsewhere) {
  for (auto role :
       {sdd::Role::query, sdd::Role::key, sdd::Role::value, sdd::Role::gate, sdd::Role::up}) {
    EXPECT_EQ(sdd::alpha_init(role, 16), 1.0);
    EXPECT_EQ(sdd::alpha_init(role, 16, sdd::AlphaRule::authors_code), 1.0);
  }
  for (auto role : {sdd::Role::attention_output, sdd::Role::ffn_output}) {
    EXPECT_DOUBLE_EQ(sdd::alpha_init(role, 16), 0.25);  // 1 / sqrt(16)
    EXPECT_DOUBLE_EQ(sdd::alpha_init(role, 16, sdd::AlphaRule::authors_code), 1 / std::sqrt(32.0));
  }
  const M a = sdd::init_alpha<double>(5, sdd::Role::ffn_output, 4);
  EXPECT_TRUE((a.array() == 0.5).all());
  EXPECT_NE(error_of([] { sdd::alpha_init(sdd::Role::query, 0); }).find("n_layers >= 1"),
            std::string::npos);
}

TEST(SDDInit, BothReadingsOfTheVDistribution) {
  // N(0, 1 / sqrt(2.5 d_model)): 1 / sqrt(2.5 * 2048) = 0.013975... as a std,
  // its square root 0.11822... as the std when it is read as a variance.
  EXPECT_DOUBLE_EQ(sdd::v_std(2048, sdd::VReading::std), 1 / std::sqrt(2.5 * 2048));
  EXPECT_DOUBLE_EQ(sdd::v_std(2048, sdd::VReading::variance), std::pow(2.5 * 2048, -0.25));
  EXPECT_NE(error_of([] { sdd::v_std(0); }).find("d_model >= 1"), std::string::npos);
}

// Sample std of n draws: its standard error is sigma / sqrt(2 n) for a normal
// (kurtosis 3); the checks allow 5 standard errors.
double sample_std(const M& v) {
  const double mean = v.mean();
  return std::sqrt((v.array() - mean).square().sum() / static_cast<double>(v.size() - 1));
}

TEST(SDDInit, DrawnVHasTheStatedStd) {
  std::mt19937_64 gen(7);
  const sdd::VInit v{1024, sdd::VReading::std, false};
  const M V = sdd::init_V<double>(256, 512, v, gen);
  const double sigma = sdd::v_std(1024), n = static_cast<double>(V.size());
  EXPECT_NEAR(sample_std(V), sigma, 5 * sigma / std::sqrt(2 * n));
  EXPECT_NEAR(V.mean(), 0.0, 5 * sigma / std::sqrt(n));
  EXPECT_GT(V.cwiseAbs().maxCoeff(), 3 * sigma);  // 131072 draws: beyond 3 sigma ~350 times
}

TEST(SDDInit, TruncationStopsAtThreeSigmaWithTheTruncatedStd) {
  std::mt19937_64 gen(11);
  const sdd::VInit v{1024, sdd::VReading::variance, true};
  const M V = sdd::init_V<double>(256, 512, v, gen);
  const double sigma = sdd::v_std(1024, sdd::VReading::variance), n = static_cast<double>(V.size());
  EXPECT_LE(V.cwiseAbs().maxCoeff(), 3 * sigma);
  // N(0, 1) conditioned on [-b, b] has variance 1 - 2 b phi(b) / (2 Phi(b) - 1).
  const double b = 3, phi = std::exp(-b * b / 2) / std::sqrt(2 * std::numbers::pi);
  const double mass = std::erf(b / std::sqrt(2.0));  // 2 Phi(b) - 1
  const double truncated = sigma * std::sqrt(1 - 2 * b * phi / mass);
  EXPECT_NEAR(sample_std(V), truncated, 5 * truncated / std::sqrt(2 * n));
  EXPECT_LT(truncated, 0.99 * sigma);  // the truncation is visible: 0.9866 sigma
}

TEST(SDDInit, SameGeneratorStateGivesTheSameV) {
  std::mt19937_64 a(3), b(3);
  const sdd::VInit v{64, sdd::VReading::std, true};
  EXPECT_TRUE(sdd::init_V<double>(7, 5, v, a) == sdd::init_V<double>(7, 5, v, b));
}

// sdd Sec. 2.2's numbers agree with each other only if V x is counted as
// B S H^2 multiply-adds: 6 B S H / (B S H^2) = 6 / H. (Counted as 2 B S H^2
// FLOPs, the share would be 3 / H; the paper audit reports which it is.)
TEST(SDDOverhead, PaperShareCountsTheMatmulAsMultiplyAdds) {
  for (double h : {512.0, 1024.0, 4096.0}) {
    const double b = 4, s = 2048;
    EXPECT_DOUBLE_EQ(sdd::paper_extra_flops(b, s, h) / (b * s * h * h),
                     sdd::paper_extra_flop_share(h));
  }
  EXPECT_EQ(sdd::paper_extra_params(2048), 2048);
}

// A generator that returns fixed words, to pin the uniform transform's ends.
struct Fixed64 {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type word;
  result_type operator()() { return word; }
};

TEST(Sampling, UniformIsStrictlyInsideTheUnitInterval) {
  Fixed64 zeros{0}, ones{~std::uint64_t{0}};
  EXPECT_EQ(uniform_open01(zeros), 0x1.0p-54);     // (0 + 0.5) / 2^53
  EXPECT_EQ(uniform_open01(ones), 1 - 0x1.0p-54);  // (2^53 - 1 + 0.5) / 2^53
  std::mt19937 gen32(5);                           // a 32-bit generator takes two words
  const double u = uniform_open01(gen32);
  EXPECT_GT(u, 0.0);
  EXPECT_LT(u, 1.0);
}

TEST(Sampling, StandardNormalMoments) {
  std::mt19937_64 gen(19);
  const long n = 200000;
  double s1 = 0, s2 = 0, s4 = 0;
  for (long i = 0; i < n; ++i) {
    const double z = standard_normal(gen);
    s1 += z;
    s2 += z * z;
    s4 += z * z * z * z;
  }
  // Standard errors: mean 1/sqrt(n), second moment sqrt(2/n), fourth sqrt(96/n); 5 of each.
  EXPECT_NEAR(s1 / n, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96.0 / n));
  EXPECT_NE(error_of([&] { truncated_standard_normal(gen, 0.0); }).find("bound > 0"),
            std::string::npos);
}

}  // namespace
