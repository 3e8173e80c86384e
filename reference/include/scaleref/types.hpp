// The scalar and matrix types shared by every part of scaleref.
//
// Matrices are row-major: one row per token, one column per feature, like a
// PyTorch [N, D] tensor. Vectors (scale vectors, biases) are 1 x D matrices.
// Everything numeric is templated on the scalar S and instantiated for
// double and Real50 (50 decimal digits, Boost.Multiprecision).
//
// Storage that is reused. A computation that runs many times with the same
// shapes (a training step, a layer's forward and backward) writes its results
// into matrices its caller keeps (an output argument, a Cache, a Grads struct)
// and sizes them with resize() or setZero(rows, cols), which keep the storage
// when the shape is unchanged; its temporaries live in those caller-kept
// structs too. So only the first call allocates. The forms that return a new
// matrix are wrappers for one-off use. reference/bench/lm_bench.cpp counts
// the heap allocations of a training step.
#pragma once

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstdlib>
#include <scaleref/eigen.hpp>
#include <sstream>
#include <string>
#include <type_traits>

namespace scaleref {

using Real50 = boost::multiprecision::cpp_bin_float_50;

template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A double or Real50 value as the nearest double: for reports, tolerances and fits.
template <class S>
double to_double(const S& v) {
  return static_cast<double>(v);
}

// "[3x4]", the way error messages and reports print a shape.
template <class Derived>
std::string shape_str(const Eigen::EigenBase<Derived>& m) {
  std::ostringstream os;
  os << '[' << m.rows() << 'x' << m.cols() << ']';
  return os.str();
}

// A decimal constant, exact to the precision of S: parsed from its decimal
// text rather than rounded through a double first (0.044715 in 50 digits).
template <class S>
S from_decimal(const char* text) {
  if constexpr (std::is_floating_point_v<S>) {
    return static_cast<S>(std::strtold(text, nullptr));
  } else {
    return S(text);
  }
}

// True when every entry is finite (no NaN, no infinity).
template <class S>
bool all_finite(const Mat<S>& m) {
  if constexpr (std::is_floating_point_v<S>) {
    // x * 0 is 0 for a finite x and NaN otherwise, and a NaN survives the sum:
    // one vectorized pass in storage order instead of a test and branch per entry.
    const Eigen::Map<const Eigen::Array<S, Eigen::Dynamic, 1>> v(m.data(), m.size());
    return !std::isnan((v * S(0)).sum());
  } else {
    using std::isfinite;
    for (Eigen::Index i = 0; i < m.size(); ++i)
      if (!isfinite(m.data()[i])) return false;
    return true;
  }
}

// max_i |m_i| as a double, 0 for an empty matrix (NaN entries are skipped):
// the scale of a matrix in reports and tolerances.
template <class S>
double max_abs(const Mat<S>& m) {
  using std::abs;
  double best = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) best = std::max(best, to_double(S(abs(m.data()[i]))));
  return best;
}

// Converts between scalar types element by element (double <-> Real50).
template <class To, class From>
Mat<To> cast(const Mat<From>& m) {
  Mat<To> out(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.size(); ++i) out.data()[i] = static_cast<To>(m.data()[i]);
  return out;
}

}  // namespace scaleref
