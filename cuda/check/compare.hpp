// How cuda_check judges a GPU result against the double-precision reference:
// the rule, the report and the tolerance formula are the oracle's
// (scaleref/oracle/tolerance.hpp), shared with Python's
// scaleref.testing.assert_close; this header names them for cuda_check and
// maps a kernel's DType to its storage type.
#pragma once

#include <cstdint>
#include <scaleref/cuda/types.hpp>
#include <scaleref/oracle/tolerance.hpp>

namespace scaleref::cuda::check {

using oracle::compare;
using oracle::Comparison;
using oracle::Kind;
using oracle::report_line;
using oracle::Tolerance;

constexpr oracle::Storage storage_of(DType t) {
  switch (t) {
    case DType::f64:
      return oracle::Storage::fp64;
    case DType::f32:
      return oracle::Storage::fp32;
    case DType::bf16:
      break;
  }
  return oracle::Storage::bf16;
}

// oracle::tolerance for a kernel's dtype.
inline Tolerance tolerance(DType t, Kind kind, std::int64_t terms, double scale,
                           int roundings = 1) {
  return oracle::tolerance(storage_of(t), kind, terms, scale, roundings);
}

}  // namespace scaleref::cuda::check
