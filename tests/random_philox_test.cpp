// Philox 4x32-10: the published known answers, purity, independent streams,
// and the distributions of the stated transforms (bounds of 5 standard errors).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <scaleref/random/philox.hpp>
#include <scaleref/sampling.hpp>
#include <vector>

namespace {

using namespace scaleref::random;

// Random123's tests/kat_vectors for philox4x32 with 10 rounds.
TEST(Philox, MatchesTheRandom123KnownAnswers) {
  struct Kat {
    Block ctr;
    Key key;
    Block out;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       {{0xffffffff, 0xffffffff}},
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       {{0xa4093822, 0x299f31d0}},
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Kat& k : kats) {
    const Block b = philox4x32_10(k.ctr, k.key);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(b.w[i], k.out.w[i]) << "word " << i;
  }
}

TEST(Philox, CounterLayoutIsIndexThenTensorThenDraw) {
  const Block b = block(0x0123456789abcdefull, 7, 0xfedcba9876543210ull, 3);
  const Block direct =
      philox4x32_10(Block{{0x76543210u, 0xfedcba98u, 7u, 3u}}, Key{{0x89abcdefu, 0x01234567u}});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(b.w[i], direct.w[i]);
}

TEST(Philox, ValuesArePureFunctionsOfSeedTensorAndIndex) {
  std::vector<double> forward, backward(1000);
  for (std::uint64_t i = 0; i < 1000; ++i) forward.push_back(normal(42, 5, i));
  for (std::uint64_t i = 1000; i-- > 0;) backward[i] = normal(42, 5, i);
  EXPECT_EQ(forward, backward);  // the visiting order changes nothing, bit for bit
  EXPECT_NE(normal(42, 5, 0), normal(43, 5, 0));
  EXPECT_NE(normal(42, 5, 0), normal(42, 6, 0));
}

TEST(Philox, EngineWalksTheBlocksOfOneStream) {
  Engine e(9, 2);
  for (std::uint64_t i = 0; i < 3; ++i) {
    const Block b = block(9, 2, i);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(e(), b.w[w]);
  }
}

TEST(Philox, UniformEndsAreInsideTheOpenInterval) {
  EXPECT_EQ(open01(0, 0), 0x1.0p-54);
  EXPECT_EQ(open01(0xffffffffu, 0xffffffffu), 1 - 0x1.0p-54);
}

constexpr long kN = 200000;

// 100 equal bins, n = 2e5 draws: the chi-square statistic has mean 99 and
// standard deviation sqrt(198) = 14.1; the bound is 99 + 5 x 14.1 = 170.
TEST(Philox, UniformIsUniformByChiSquare) {
  std::vector<long> bins(100, 0);
  for (long i = 0; i < kN; ++i) ++bins[static_cast<std::size_t>(uniform(1, 0, i) * 100)];
  const double expected = kN / 100.0;
  double chi2 = 0;
  for (long c : bins) chi2 += (c - expected) * (c - expected) / expected;
  EXPECT_LT(chi2, 99 + 5 * std::sqrt(198.0));
}

// Standard errors for n draws: mean 1/sqrt(n), E z^2 sqrt(2/n), E z^4 sqrt(96/n).
TEST(Philox, NormalHasTheStandardMoments) {
  double s1 = 0, s2 = 0, s4 = 0;
  for (long i = 0; i < kN; ++i) {
    const double z = normal(2, 0, i);
    s1 += z;
    s2 += z * z;
    s4 += z * z * z * z;
  }
  EXPECT_NEAR(s1 / kN, 0.0, 5 / std::sqrt(double(kN)));
  EXPECT_NEAR(s2 / kN, 1.0, 5 * std::sqrt(2.0 / kN));
  EXPECT_NEAR(s4 / kN, 3.0, 5 * std::sqrt(96.0 / kN));
}

// Two tensors' streams: the sample correlation of n pairs has standard error 1/sqrt(n).
TEST(Philox, DistinctTensorsGiveUncorrelatedStreams) {
  double sab = 0, saa = 0, sbb = 0;
  for (long i = 0; i < kN; ++i) {
    const double a = normal(3, 1, i), b = normal(3, 2, i);
    sab += a * b;
    saa += a * a;
    sbb += b * b;
  }
  EXPECT_NEAR(sab / std::sqrt(saa * sbb), 0.0, 5 / std::sqrt(double(kN)));
}

// N(0,1) conditioned on [-b, b] has variance 1 - 2 b phi(b) / (2 Phi(b) - 1);
// the sample variance's standard error is about that variance times sqrt(2/n).
TEST(Philox, TruncatedNormalStaysInsideWithTheTruncatedVariance) {
  const double b = 2.0, phi = std::exp(-b * b / 2) / std::sqrt(2 * std::numbers::pi);
  const double var = 1 - 2 * b * phi / std::erf(b / std::sqrt(2.0));
  double s2 = 0, top = 0;
  for (long i = 0; i < kN; ++i) {
    const double z = truncated_normal(4, 0, i, b);
    s2 += z * z;
    top = std::max(top, std::abs(z));
  }
  EXPECT_LE(top, b);
  EXPECT_NEAR(s2 / kN, var, 5 * var * std::sqrt(2.0 / kN));
}

TEST(Philox, EngineServesTheStandardSamplers) {
  Engine e(5, 0);
  double s2 = 0;
  for (long i = 0; i < kN; ++i) {
    const double z = scaleref::standard_normal(e);
    s2 += z * z;
  }
  EXPECT_NEAR(s2 / kN, 1.0, 5 * std::sqrt(2.0 / kN));
}

}  // namespace
