// How a kernel's result is judged against the double-precision reference:
// the NaN-safe element-wise test, the headroom report, and the tolerance
// derived from the kernel's storage type and the length of the sums behind
// each output. One implementation for cuda_check (cuda/check/) and for
// Python's scaleref.testing.assert_close (python/); host code, no CUDA, no Eigen.
//
// An entry passes when |got - want| <= atol + rtol |want|, and fails outright
// when one side is finite and the other is not (a NaN never passes by
// comparing false; two NaNs or two equal infinities agree). The report keeps
// what a reader needs to judge the margin: max abs and rel error, the worst
// entry (index, both values), the mismatch count and the share of the
// tolerance used at the worst entry (1 = exactly at the limit).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/spec/common.hpp>
#include <span>
#include <string>

namespace scaleref::oracle {

// The type a kernel stores its inputs and outputs in. fp32, bf16 and fp16
// kernels accumulate in fp32; fp64 kernels in fp64.
enum class Storage { fp64, fp32, bf16, fp16 };
inline constexpr spec::NameTable<Storage, 4> kStorageNames{{{Storage::fp64, "fp64"},
                                                            {Storage::fp32, "fp32"},
                                                            {Storage::bf16, "bf16"},
                                                            {Storage::fp16, "fp16"}}};

struct Tolerance {
  double atol = 0, rtol = 0;
  std::string why;  // where the numbers come from
};

struct Comparison {
  std::size_t count = 0, mismatches = 0;
  double max_abs = 0, max_rel = 0;
  std::size_t worst = 0;  // entry with the largest share of its tolerance
  double worst_got = 0, worst_want = 0;
  // max over entries of |got - want| / (atol + rtol |want|); inf for a non-finite mismatch
  double used = 0;
  bool pass() const { return mismatches == 0; }
};

// What a compared output is, for the tolerance:
//   elementwise  one rounding chain per entry (DyT's y, a rescaled matrix)
//   reduced      each entry depends on a sum of `terms` products (a norm's
//                y and dx through the row statistic, a parameter gradient
//                over rows, a GEMM output over its inner dimension)
enum class Kind { elementwise, reduced };
inline constexpr spec::NameTable<Kind, 2> kKindNames{
    {{Kind::elementwise, "elementwise"}, {Kind::reduced, "reduced"}}};

inline Comparison compare(std::span<const double> got, std::span<const double> want,
                          const Tolerance& tol) {
  require(got.size() == want.size(), "oracle::compare", "expected ", want.size(), " values, got ",
          got.size());
  Comparison c;
  c.count = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], r = want[i];
    double used;
    if (std::isfinite(a) && std::isfinite(r)) {
      const double err = std::abs(a - r);
      c.max_abs = std::max(c.max_abs, err);
      if (r != 0) c.max_rel = std::max(c.max_rel, err / std::abs(r));
      const double limit = tol.atol + tol.rtol * std::abs(r);
      used = limit > 0 ? err / limit : (err == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    } else {
      const bool agree = (std::isnan(a) && std::isnan(r)) || a == r;  // NaN/NaN, +inf/+inf
      used = agree ? 0.0 : std::numeric_limits<double>::infinity();
    }
    if (!(used <= 1)) ++c.mismatches;
    if (i == 0 || used > c.used) {  // the first entry with the largest share
      c.used = used;
      c.worst = i;
      c.worst_got = a;
      c.worst_want = r;
    }
  }
  return c;
}

// The tolerance for an output of storage type `t` whose entries come out of
// sums of at most `terms` terms, with `scale` the largest |reference| entry
// of that output (or of the terms it sums, where they cancel: cancellation in
// a sum makes errors relative to the terms' size, not to the entry's):
//
//   u        unit roundoff of the accumulator: 2^-53 (fp64), 2^-24 (fp32, bf16, fp16)
//   chain    = 16 roundings per entry on top of the sum (the statistic's sqrt and
//              division, the parameters' products, an activation's ~4 ulps)
//   rtol     = (chain + terms) u  + the storage roundings of the result
//              (bf16: 2^-8, one half-ulp of its 8-bit significand; fp16: 2^-11)
//   atol     = rtol * scale  (reduced outputs: the error a sum's cancellation
//              leaves is bounded by the terms' size, not by the sum's)
//
// terms u is the worst-case bound of a recursive sum of `terms` entries
// (Higham, Accuracy and Stability, eq. 4.4: |error| <= (n-1) u sum|x_i|); tree
// sums are well inside it, so the report's "used" column shows real headroom.
//
// `roundings` counts the storage roundings a result passes through: 1 for a
// kernel that reads its inputs and rounds once on output, 2 where an
// intermediate is stored in the storage type too (SDD's z = x V^T, the
// scale-vector placements' GEMM inputs).
inline Tolerance tolerance(Storage t, Kind kind, std::int64_t terms, double scale,
                           int roundings = 1) {
  require(terms >= 1, "oracle::tolerance", "expected terms >= 1, got ", terms);
  require(roundings >= 1, "oracle::tolerance", "expected roundings >= 1, got ", roundings);
  require(std::isfinite(scale) && scale >= 0, "oracle::tolerance",
          "expected a finite scale >= 0, got ", scale);
  const double u = t == Storage::fp64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  const int half_ulp_exp = t == Storage::bf16 ? -8 : (t == Storage::fp16 ? -11 : 0);
  const double storage = half_ulp_exp != 0 ? roundings * std::ldexp(1.0, half_ulp_exp) : 0.0;
  constexpr double chain = 16;
  const long long n = kind == Kind::reduced ? static_cast<long long>(terms) : 1;
  Tolerance tol;
  tol.rtol = (chain + static_cast<double>(n)) * u + storage;
  tol.atol = kind == Kind::reduced ? tol.rtol * scale : 0.0;
  char buf[200];
  if (half_ulp_exp != 0)
    std::snprintf(buf, sizeof buf, "(16 + %lld) u_fp32 + %d x 2^%d (%s roundings)%s", n, roundings,
                  half_ulp_exp, spec::name_of(kStorageNames, t),
                  kind == Kind::reduced ? ", atol = rtol * max|ref|" : "");
  else
    std::snprintf(buf, sizeof buf, "(16 + %lld) u_%s%s", n, spec::name_of(kStorageNames, t),
                  kind == Kind::reduced ? ", atol = rtol * max|ref|" : "");
  tol.why = buf;
  return tol;
}

// One line of the report: "PASS/FAIL label max_abs ... used ... worst [i] got ... want ...".
inline std::string report_line(const std::string& label, const Comparison& c,
                               const Tolerance& tol) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%-4s %-52s max_abs %.2e max_rel %.2e used %6.3f worst [%zu] got %.9g want %.9g "
                "(%zu/%zu off; atol %.1e rtol %.1e)",
                c.pass() ? "PASS" : "FAIL", label.c_str(), c.max_abs, c.max_rel, c.used, c.worst,
                c.worst_got, c.worst_want, c.mismatches, c.count, tol.atol, tol.rtol);
  return buf;
}

}  // namespace scaleref::oracle
