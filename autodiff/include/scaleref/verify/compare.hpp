// A NaN-safe elementwise comparison that reports headroom, not only pass/fail.
//
// Entry i matches when
//     |a_i - r_i| <= atol + atol_i + rtol * (|a_i| + |r_i|) / 2
// (atol_i an optional per-entry allowance, e.g. a finite difference's own
// error estimate). A NaN on either side never matches; an infinity matches
// only the same infinity; one side finite and the other not is a mismatch.
// (llm.c's validate_result lets a NaN through; this does not.)
//
// The result keeps: max absolute and relative error, the mismatch count, the
// worst entry (the one using the largest share of its tolerance) with both
// values printed to full precision, and that largest share.
#pragma once

#include <scaleref/eigen.hpp>
#include <scaleref/types.hpp>
#include <string>

namespace scaleref::verify {

struct Tolerance {
  double atol = 0;
  double rtol = 0;
  std::string why;  // where the numbers come from, printed with every report
};

struct Comparison {
  std::string what;
  Tolerance tol;
  Eigen::Index count = 0;       // entries compared
  Eigen::Index mismatches = 0;  // entries outside tolerance, non-finite disagreements included
  double max_abs_err = 0;
  double max_rel_err = 0;  // |a - r| / max(|a|, |r|), 0 where both are 0
  double worst_share = 0;  // max over entries of |a - r| / tolerance; > 1 fails
  Eigen::Index worst_row = -1, worst_col = -1;
  std::string worst_actual, worst_expected;  // full precision (%.17g for double)

  bool ok() const { return mismatches == 0; }
  std::string str() const;  // one line: what, verdict, errors, worst entry, tolerance
};

// Compares `actual` with `expected` (same shape, else scaleref::Error).
// `extra_atol`, when non-empty, must have their shape and adds per entry.
template <class S>
Comparison compare(std::string what, const Mat<S>& actual, const Mat<S>& expected,
                   const Tolerance& tol, const Mat<double>& extra_atol = {});

// Full-precision text of a value: 17 significant digits for double, 50 for Real50.
template <class S>
std::string full_precision(const S& v);

// A matrix printed with full_precision entries, rows on separate lines
// (for logging a failing input; rapidcheck's own printing keeps 6 digits).
template <class S>
std::string matrix_text(const Mat<S>& m);

}  // namespace scaleref::verify
