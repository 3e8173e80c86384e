// How cuda_check judges a GPU result against the double-precision reference
// (host code, no CUDA): a NaN-safe element-wise test, the headroom report,
// and the per-dtype tolerance table with the reason for each entry.
//
// An entry passes when |got - want| <= atol + rtol |want|, and fails outright
// when one side is finite and the other is not (a NaN never passes by
// comparing false; two NaNs or two equal infinities agree). The report keeps
// what a reader needs to judge the margin: max abs and rel error, the worst
// entry (index, both values), the mismatch count and the share of the
// tolerance used at the worst entry (1 = exactly at the limit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <scaleref/cuda/types.hpp>
#include <span>
#include <string>

namespace scaleref::cuda::check {

struct Tolerance {
  double atol = 0, rtol = 0;
  std::string why;  // where the numbers come from
};

struct Comparison {
  std::size_t count = 0, mismatches = 0;
  double max_abs = 0, max_rel = 0;
  std::size_t worst = 0;  // entry with the largest share of its tolerance
  double worst_got = 0, worst_want = 0;
  double used =
      0;  // max over entries of |got - want| / (atol + rtol |want|); inf if non-finite mismatch
  bool pass() const { return mismatches == 0; }
};

Comparison compare(std::span<const double> got, std::span<const double> want, const Tolerance& tol);

// What a compared output is, for the tolerance table:
//   elementwise  one rounding chain per entry (DyT's y, a rescaled matrix)
//   reduced      each entry depends on a sum of `terms` products (a norm's
//                y and dx through the row statistic, a parameter gradient
//                over rows, a GEMM output over its inner dimension)
enum class Kind { elementwise, reduced };

// The tolerance for an output of storage type `t` whose entries come out of
// sums of at most `terms` terms, with `scale` the largest |reference| entry
// of that output (cancellation in a sum makes errors relative to the terms'
// size, not to the entry's):
//
//   u        unit roundoff of the accumulator: 2^-53 (fp64), 2^-24 (fp32, bf16)
//   chain    = 16 roundings per entry on top of the sum (the statistic's sqrt and
//              division, the parameters' products, an activation's ~4 ulps)
//   rtol     = (chain + terms) u  + the storage rounding of the result
//              (2^-8 for bf16: one half-ulp of its 8-bit significand)
//   atol     = rtol * scale  (reduced outputs: the error a sum's cancellation
//              leaves is bounded by the terms' size, not by the sum's)
//
// terms u is the worst-case bound of a recursive sum of `terms` entries
// (Higham, Accuracy and Stability, eq. 4.4: |error| <= (n-1) u sum|x_i|); the
// kernels' tree sums are well inside it, so the report's "used" column shows
// real headroom.
//
// `roundings` counts the storage roundings a result passes through: 1 for a
// kernel that reads its inputs and rounds once on output, 2 where an
// intermediate is stored in T too (SDD's z = x V^T, the placements' GEMM inputs).
Tolerance tolerance(DType t, Kind kind, std::int64_t terms, double scale, int roundings = 1);

// One line of the report: "kernel dtype shape output: PASS/FAIL ...".
std::string report_line(const std::string& label, const Comparison& c, const Tolerance& tol);

}  // namespace scaleref::cuda::check
