// The normal draw's own ln and cos (scaleref/random/portable_math.hpp): within
// 1 ulp of the exact value over the inputs the draw feeds them, exact where the
// math is exact, and a normal that is still the textbook Box-Muller value.
//
// The references are long double (64-bit significand on x86-64, 113 on
// aarch64): logl and cosl/sinl are accurate to about 2^-63 relative, 2^-10 of
// a double ulp, so a measured error of 1 ulp is the function's, not the
// reference's. cos(2 pi u) is referred to sinl/cosl of (pi/2) r after the same
// exact quadrant split u = (q + r) / 4 the function makes (exact arithmetic, not
// an approximation): cosl(2 pi u) itself would lose all relative accuracy near
// the zeros at u = 1/4 and 3/4, where the true value is as small as 2 pi 2^-54.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <scaleref/random/philox.hpp>
#include <scaleref/random/portable_math.hpp>
#include <vector>

namespace {

using namespace scaleref::random;
using LD = long double;

static_assert(std::numeric_limits<LD>::digits >= 64,
              "the reference values need a long double wider than double");

// The spacing of doubles at |x| (the subnormal spacing below 2^-1022).
double ulp_at(double x) {
  int e = 0;
  std::frexp(std::abs(x), &e);
  return std::ldexp(1.0, std::max(e - 53, -1074));
}

// |got - exact| in ulps of the exact value rounded to double.
double ulps(double got, LD exact) {
  return static_cast<double>(std::abs(static_cast<LD>(got) - exact) /
                             ulp_at(static_cast<double>(exact)));
}

// cos(2 pi u) for u in [0, 1], through the exact split u = (q + r) / 4, |r| <= 1/2.
LD exact_cos_2pi(double u) {
  const double t = 4 * u;
  int q = static_cast<int>(t);
  double r = t - q;
  if (r > 0.5) {
    r -= 1;
    ++q;
  }
  const LD x = 1.570796326794896619231321691639751442L * r;
  switch (q & 3) {
    case 0:
      return std::cos(x);
    case 1:
      return -std::sin(x);
    case 2:
      return -std::cos(x);
    default:
      return std::sin(x);
  }
}

// The inputs the draw feeds both functions, and the places where they are
// hardest: the smallest uniform and the small binades, values near 1, both sides
// of ln's range split at sqrt(1/2) and its halvings, and both sides of every
// quadrant boundary of cos (u = k/8).
std::vector<double> sweep() {
  std::vector<double> u;
  for (std::uint64_t i = 0; i < 1000000; ++i) {  // the draws themselves
    const Block b = block(20261122, 7, i);
    u.push_back(open01(b.w[0], b.w[1]));
    u.push_back(open01(b.w[2], b.w[3]));
  }
  for (int e = 1; e <= 54; ++e)  // every binade down to the smallest uniform, 2^-54
    for (int k = 0; k < 2000; ++k) u.push_back(std::ldexp(1.0 + k * 0x1p-11 + k * 0x1p-40, -e));
  for (int k = 1; k <= 100000; ++k) {
    u.push_back(1 - k * 0x1p-53);  // just below 1
    u.push_back(1 - k * 0x1p-33);
    u.push_back(k * 0x1p-54);  // just above 0
  }
  for (double c : {0.70710678118654752, 0.35355339059327376, 0.17677669529663688, 0.125, 0.25,
                   0.375, 0.5, 0.625, 0.75, 0.875})
    for (int k = -50000; k <= 50000; ++k) u.push_back(c + k * 0x1p-54);
  return u;
}

TEST(PortableLog, IsWithinOneUlpOfExactOverTheUniforms) {
  double worst = 0, at = 0;
  for (double u : sweep()) {
    const double e = ulps(portable::log(u), std::log(static_cast<LD>(u)));
    if (e > worst) {
      worst = e;
      at = u;
    }
  }
  std::printf("  [measured] worst error %.3f ulp (bound 1.0)\n", worst);
  EXPECT_LE(worst, 1.0) << "at u = " << std::hexfloat << at;
}

TEST(PortableLog, IsWithinOneUlpFromSubnormalsToTheLargestDouble) {
  double worst = 0, at = 0;
  for (int e = -1074; e <= 1023; ++e)
    for (double m : {1.0, 1.1, 1.41421356237309, 1.41421356237310, 1.5, 1.9999999999999998}) {
      const double x = std::ldexp(m, e);
      if (x == 0 || !std::isfinite(x)) continue;
      const double err = ulps(portable::log(x), std::log(static_cast<LD>(x)));
      if (err > worst) {
        worst = err;
        at = x;
      }
    }
  std::printf("  [measured] worst error %.3f ulp (bound 1.0)\n", worst);
  EXPECT_LE(worst, 1.0) << "at x = " << std::hexfloat << at;
}

TEST(PortableLog, IsExactAtOne) {
  EXPECT_EQ(portable::log(1.0), 0.0);
  EXPECT_FALSE(std::signbit(portable::log(1.0)));
}

TEST(PortableCos2Pi, IsWithinOneUlpOfExactOverTheUnitInterval) {
  double worst = 0, at = 0;
  for (double u : sweep()) {
    const double e = ulps(portable::cos_2pi(u), exact_cos_2pi(u));
    if (e > worst) {
      worst = e;
      at = u;
    }
  }
  std::printf("  [measured] worst error %.3f ulp (bound 1.0)\n", worst);
  EXPECT_LE(worst, 1.0) << "at u = " << std::hexfloat << at;
}

TEST(PortableCos2Pi, IsExactAtTheQuadrantBoundaries) {
  EXPECT_EQ(portable::cos_2pi(0.0), 1.0);
  EXPECT_EQ(portable::cos_2pi(0.25), 0.0);
  EXPECT_EQ(portable::cos_2pi(0.5), -1.0);
  EXPECT_EQ(portable::cos_2pi(0.75), 0.0);
  EXPECT_EQ(portable::cos_2pi(1.0), 1.0);
}

// The uniforms nearest a zero of cos(2 pi u): the value is about 2 pi times the
// distance, to within 1 ulp, not a rounding residue of pi / 2.
TEST(PortableCos2Pi, KeepsFullRelativeAccuracyNextToItsZeros) {
  for (double c : {0.25, 0.75})
    for (double d : {0x1p-54, -0x1p-54, 0x1p-53, 3 * 0x1p-54}) {
      const double u = c + d;
      EXPECT_LE(ulps(portable::cos_2pi(u), exact_cos_2pi(u)), 1.0) << std::hexfloat << u;
      EXPECT_NEAR(std::abs(portable::cos_2pi(u)), 6.283185307179586 * std::abs(u - c),
                  1e-15 * std::abs(u - c));
    }
}

// normal() = fl(fl(sqrt(fl(-2 ln u1))) cos(2 pi u2)): ln within 1 ulp (relative
// 2^-52) is halved by the root, the root and the product round once each (2^-53),
// cos within 1 ulp (2^-52): relative error at most 5 2^-53, at most 5 ulps.
TEST(PortableNormal, IsTheTextbookBoxMullerToFiveUlps) {
  double worst = 0;
  std::uint64_t at = 0;
  for (std::uint64_t i = 0; i < 1000000; ++i) {
    const Block b = block(3, 9, i);
    const double u1 = open01(b.w[0], b.w[1]), u2 = open01(b.w[2], b.w[3]);
    const LD exact = std::sqrt(-2 * std::log(static_cast<LD>(u1))) * exact_cos_2pi(u2);
    const double z = normal(3, 9, i);
    if (exact == 0) {
      EXPECT_EQ(z, 0.0) << "index " << i;
      continue;
    }
    const double e = ulps(z, exact);
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  std::printf("  [measured] worst error %.3f ulp (bound 5.0)\n", worst);
  EXPECT_LE(worst, 5.0) << "at index " << at;
}

// Standard errors for n draws: mean 1/sqrt(n), E z^2 sqrt(2/n), E z^4 sqrt(96/n)
// (bounds of 5 standard errors, as random_philox_test's).
TEST(PortableNormal, KeepsTheStandardMoments) {
  constexpr long n = 400000;
  double s1 = 0, s2 = 0, s4 = 0;
  for (long i = 0; i < n; ++i) {
    const double z = normal(17, 1, static_cast<std::uint64_t>(i));
    s1 += z;
    s2 += z * z;
    s4 += z * z * z * z;
  }
  EXPECT_NEAR(s1 / n, 0.0, 5 / std::sqrt(double(n)));
  EXPECT_NEAR(s2 / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(s4 / n, 3.0, 5 * std::sqrt(96.0 / n));
}

// The first normals of one stream, bit for bit, and a hash (FNV-1a over the
// bits) of its first 100000. They came out the same under g++ -O0, -O2
// -ffp-contract=off, -O3 -march=native -ffp-contract=fast and clang++ -O3
// -march=native; with the product barrier removed, GCC's FMA contraction
// changes the hash. So a build that fused a product behind the source's back
// (the bits nvcc's device code must match) fails here.
TEST(PortableNormal, GivesThePinnedBitsUnderEveryCompilerSetting) {
  const double pinned[] = {-0x1.a7d4d42746e88p-2, -0x1.c327de4fc7ee7p-1, -0x1.88f378d304e03p-2,
                           0x1.d9c208d159231p-2};
  for (std::uint64_t i = 0; i < 4; ++i)
    EXPECT_EQ(normal(1, 0, i), pinned[i])
        << "index " << i << ": " << std::hexfloat << normal(1, 0, i);
  std::uint64_t hash = 14695981039346656037ull;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const double z = normal(1, 0, i);
    std::uint64_t bits;
    std::memcpy(&bits, &z, sizeof bits);
    hash = (hash ^ bits) * 1099511628211ull;
  }
  EXPECT_EQ(hash, 0x2e774fcfef518c40ull);
}

}  // namespace
