// The logarithm and cosine of the normal draw (philox.hpp's Box-Muller), written
// so that host and device compute the same bits.
//
// Why. The platform's log and cos are not the same function on the host (glibc,
// correctly rounded or nearly) and on CUDA (documented to within 1-2 ulps), so a
// normal drawn on the GPU could differ from the CPU's by an ulp or more. These
// two functions use only IEEE basic operations (+, -, *, / and sqrt, correctly
// rounded everywhere), exact bit manipulation and exact integer conversions, in
// one fixed order, so every platform that rounds to nearest in double without
// excess precision gives the same results.
//
//   log(x), x > 0 finite:  x = 2^e m with m in [sqrt(1/2), sqrt(2)] (exact), f = m - 1
//     (exact, Sterbenz), s = f / (2 + f), so that
//       ln m = 2 atanh(s) = 2 s + s R(s^2),  R(z) = sum_{k=1..10} 2 z^k / (2k + 1)
//     (|s| <= 0.1716, z <= 0.0295: the first omitted term, 2 z^11 / 23, is under
//     2^-60 of the result), and with 2 s = f - s f, f s = hfsq (1 - s), hfsq = f^2 / 2:
//       ln x = e ln2_hi + (f - (hfsq - (s (hfsq + R) + e ln2_lo)))
//     where ln2_hi is ln 2 cut to 42 significant bits (so e ln2_hi is exact for
//     any exponent) and ln2_lo the rest. The leading f is exact; the correction
//     is smaller than the result, so its rounding errors count for little.
//   cos_2pi(u) = cos(2 pi u), u in [0, 1]:  t = 4 u (exact), t = q + r with q an
//     integer and r in [-1/2, 1/2] (exact), so 2 pi u = q pi/2 + (pi/2) r and
//       cos(2 pi u) = C(r), -S(r), -C(r), S(r)  for q mod 4 = 0, 1, 2, 3,
//     S(r) = sin(pi r / 2) and C(r) = cos(pi r / 2) as Taylor polynomials in r
//     itself (through r^17 and r^18: the tails are under 2^-60 for |r| <= 1/2), so
//     the argument pi r / 2 is never rounded; S's leading coefficient pi / 2 is
//     split hi + lo. Quadrant boundaries are exact: cos_2pi(1/4) = -0, (1/2) = -1.
//
// Accuracy (tests/random_portable_math_test.cpp measures it against long double
// over dense sweeps): within 1 ulp of the exact value for log over the draw's
// uniforms [2^-54, 1] and for cos_2pi over [0, 1]; log(1) = 0 and cos_2pi(0) =
// cos_2pi(1) = 1 exactly. The coefficients are the series' exact values rounded
// to double (computed in 300-bit arithmetic), written as hexadecimal literals.
//
// No fused multiply-add. A compiler may fuse a * b + c into one FMA (nvcc does
// by default; GCC with -ffp-contract=fast, its default for C++, on a CPU with
// FMA), which changes the bits. Every product is therefore written through
// mul(): on the device __dmul_rn, which CUDA never fuses; on the host a product
// followed by an empty asm statement that takes the rounded product as its
// operand, so no later addition can be fused with it (the technique of glibc's
// math_opt_barrier; a volatile round trip on compilers without GNU asm). Sums,
// quotients and roots go through add(), sub(), div() and sqrt() (__dadd_rn,
// __dsub_rn, __ddiv_rn, __dsqrt_rn on the device). -ffast-math (or nvcc's
// -use_fast_math, which does not touch double) would void all of this; the host
// needs FLT_EVAL_METHOD == 0 (SSE2 on x86, every 64-bit target), checked below.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <scaleref/host_device.hpp>

#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error \
    "scaleref/random/portable_math.hpp needs double arithmetic without excess precision (FLT_EVAL_METHOD == 0)"
#endif

namespace scaleref::random::portable {

// ---- the basic operations, rounded once each, never fused ----------------------

#if !defined(__CUDA_ARCH__)
// Makes v opaque to the optimizer: it must be materialized here, rounded.
inline void keep_rounded(double& v) {
#if defined(__GNUC__) && (defined(__x86_64__) || (defined(__i386__) && defined(__SSE2_MATH__)))
  __asm__("" : "+x"(v));
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(v));
#else
  volatile double t = v;
  v = t;
#endif
}
#endif

SCALEREF_HOST_DEVICE inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  double p = a * b;
  keep_rounded(p);
  return p;
#endif
}

SCALEREF_HOST_DEVICE inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

SCALEREF_HOST_DEVICE inline double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

SCALEREF_HOST_DEVICE inline double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}

SCALEREF_HOST_DEVICE inline double sqrt(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

SCALEREF_HOST_DEVICE inline std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}

SCALEREF_HOST_DEVICE inline double from_bits(std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}

// hi + lo, exactly, for the error-free transformations below.
struct Pair {
  double hi, lo;
};

// Veltkamp's split: a = hi + lo exactly, each half with at most 26 significant bits.
SCALEREF_HOST_DEVICE inline Pair split(double a) {
  const double c = mul(a, 134217729.0);  // (2^27 + 1) a
  const double hi = sub(c, sub(c, a));
  return {hi, sub(a, hi)};
}

// Dekker's product: a b = hi + lo exactly, hi = a b rounded (no overflow or underflow).
SCALEREF_HOST_DEVICE inline Pair two_product(double a, double b) {
  const double p = mul(a, b);
  const Pair x = split(a), y = split(b);
  const double e =
      add(add(add(sub(mul(x.hi, y.hi), p), mul(x.hi, y.lo)), mul(x.lo, y.hi)), mul(x.lo, y.lo));
  return {p, e};
}

// Dekker's Fast2Sum: a + b = hi + lo exactly, hi = a + b rounded, for |a| >= |b|.
SCALEREF_HOST_DEVICE inline Pair fast_two_sum(double a, double b) {
  const double s = add(a, b);
  return {s, sub(b, sub(s, a))};
}

// ---- the natural logarithm -------------------------------------------------------

namespace log_detail {

inline constexpr double kLn2Hi = 0x1.62e42fefa38p-1;    // ln 2 cut to 42 bits
inline constexpr double kLn2Lo = 0x1.ef35793c7673p-45;  // ln 2 - kLn2Hi, rounded
inline constexpr double kSqrt2 = 0x1.6a09e667f3bcdp+0;  // sqrt(2), rounded
inline constexpr double kTwoTo54 = 0x1p54;              // lifts a subnormal x
inline constexpr double kSmallestNormal = 0x1p-1022;

}  // namespace log_detail

// ln x for finite x > 0 (header comment); anything else gives an unspecified value.
SCALEREF_HOST_DEVICE inline double log(double x) {
  using namespace log_detail;
  int e = 0;
  if (x < kSmallestNormal) {  // a subnormal: scale into the normal range first (exact)
    x = mul(x, kTwoTo54);
    e = -54;
  }
  // x = 2^e m: the exponent field, and the significand with the exponent of 1.
  const std::uint64_t b = bits_of(x);
  e += static_cast<int>((b >> 52) & 0x7ffu) - 1023;
  double m = from_bits((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // in [1, 2)
  if (m > kSqrt2) {
    m = mul(m, 0.5);  // exact
    e += 1;
  }
  const double f = sub(m, 1.0);  // exact: m in [sqrt(1/2), sqrt(2)]
  // 2 / (2k + 1), k = 1 .. 10: the atanh series of ln m beyond its leading 2 s.
  constexpr double kL[10] = {0x1.5555555555555p-1, 0x1.999999999999ap-2, 0x1.2492492492492p-2,
                             0x1.c71c71c71c71cp-3, 0x1.745d1745d1746p-3, 0x1.3b13b13b13b14p-3,
                             0x1.1111111111111p-3, 0x1.e1e1e1e1e1e1ep-4, 0x1.af286bca1af28p-4,
                             0x1.8618618618618p-4};
  const double s = div(f, add(2.0, f));
  const double z = mul(s, s);
  double poly = kL[9];
  for (int k = 8; k >= 0; --k) poly = add(kL[k], mul(z, poly));
  const double r = mul(z, poly);  // R(z)
  const double hfsq = mul(mul(0.5, f), f);
  const double de = static_cast<double>(e);  // exact
  const double correction = sub(hfsq, add(mul(s, add(hfsq, r)), mul(de, kLn2Lo)));
  return add(mul(de, kLn2Hi), sub(f, correction));
}

// ---- the cosine of a full turn's fraction -----------------------------------------

namespace cos_detail {

// pi / 2 = kHalfPiHi + kHalfPiLo and -pi^2 / 8 = kC1Hi + kC1Lo (rounded value and rest).
inline constexpr double kHalfPiHi = 0x1.921fb54442d18p+0;
inline constexpr double kHalfPiLo = 0x1.1a62633145c07p-54;
inline constexpr double kC1Hi = -0x1.3bd3cc9be45dep+0;
inline constexpr double kC1Lo = -0x1.692b71366cc04p-54;

// sin(pi r / 2) for |r| <= 1/2: sum_k kS[k] r^(2k+1), kS[k] = (-1)^k (pi/2)^(2k+1) / (2k+1)!.
// The leading term r pi / 2 is carried exactly (two_product, and the rest of pi / 2), so
// only the final addition and the small tail's roundings remain.
SCALEREF_HOST_DEVICE inline double sin_half_pi(double r) {
  constexpr double kS[9] = {0x1.921fb54442d18p+0,  -0x1.4abbce625be53p-1,  0x1.466bc6775aae2p-4,
                            -0x1.32d2cce62bd86p-8, 0x1.50783487ee782p-13,  -0x1.e3074fde8871fp-19,
                            0x1.e8f434d018d63p-25, -0x1.6fadb9f155744p-31, 0x1.aaec32af93359p-38};
  const double z = mul(r, r);
  double poly = kS[8];
  for (int k = 7; k >= 1; --k) poly = add(kS[k], mul(z, poly));  // sum_{k>=1} kS[k] z^(k-1)
  const Pair lead = two_product(r, kHalfPiHi);
  const double tail = add(add(lead.lo, mul(r, kHalfPiLo)), mul(mul(r, z), poly));
  return add(lead.hi, tail);
}

// cos(pi r / 2) for |r| <= 1/2: sum_k kC[k] r^(2k), kC[k] = (-1)^k (pi/2)^(2k) / (2k)!.
// 1 + kC[1] r^2 is carried exactly (r^2, its product with -pi^2 / 8 and the sum with 1
// as error-free pairs), so only the final addition and the small tail's roundings remain.
SCALEREF_HOST_DEVICE inline double cos_half_pi(double r) {
  constexpr double kC[10] = {0x1p+0,
                             -0x1.3bd3cc9be45dep+0,
                             0x1.03c1f081b5ac4p-2,
                             -0x1.55d3c7e3cbffap-6,
                             0x1.e1f506891babbp-11,
                             -0x1.a6d1f2a204a8cp-16,
                             0x1.f9d38a3763cc3p-22,
                             -0x1.b6e24f44b128fp-28,
                             0x1.20c62c2f2d7f5p-34,
                             -0x1.2a0c591af8314p-41};
  const Pair z = two_product(r, r);
  double poly = kC[9];
  for (int k = 8; k >= 2; --k) poly = add(kC[k], mul(z.hi, poly));  // sum_{k>=2} kC[k] z^(k-2)
  const Pair lead = two_product(kC1Hi, z.hi);
  const double tail =
      add(add(add(lead.lo, mul(kC1Hi, z.lo)), mul(kC1Lo, z.hi)), mul(mul(z.hi, z.hi), poly));
  const Pair one = fast_two_sum(1.0, lead.hi);
  return add(one.hi, add(one.lo, tail));
}

}  // namespace cos_detail

// cos(2 pi u) for u in [0, 1] (header comment); other u give an unspecified value.
SCALEREF_HOST_DEVICE inline double cos_2pi(double u) {
  using namespace cos_detail;
  const double t = mul(4.0, u);  // exact
  int q = static_cast<int>(t);   // t = q + r, exactly
  double r = sub(t, static_cast<double>(q));
  if (r > 0.5) {
    r = sub(r, 1.0);  // exact: r in (1/2, 1)
    q += 1;
  }
  switch (q & 3) {
    case 0:
      return cos_half_pi(r);
    case 1:
      return -sin_half_pi(r);
    case 2:
      return -cos_half_pi(r);
    default:
      return sin_half_pi(r);
  }
}

}  // namespace scaleref::random::portable
