// What the diagnostic metrics share: input checks with messages that name the
// function and the argument, and norms that neither overflow nor underflow.
//
// Scaling by a power of two. A metric that squares entries (a norm, a
// variance, W^T W) overflows in double for |x| > 1.3e154, loses digits to the
// subnormals for |x| < 1.5e-154 and underflows to 0 for |x| < 1.5e-162. Every
// metric here that squares first multiplies its matrix by 2^-e, where 2^e is
// the power of two just above max |x| (so the scaled entries lie in (-1, 1)
// and the largest is at least 1/2), and scales the result back. A power of two
// multiplies exactly (unless an entry falls below 2^-1022 times the largest,
// into the subnormals, where it contributes nothing a norm can see), so norms,
// means and standard deviations scale exactly under x -> 2^k x, and the
// scale-free metrics (stable rank, cosines, the residual-flow ratio) are
// bitwise invariant under it.
//
// Reductions run in a fixed order (row-major, or scaleref's row loops of
// rows.hpp), so results are bitwise reproducible for any thread count.
#pragma once

#include <cmath>
#include <scaleref/error.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

namespace scaleref::metrics {

using scaleref::all_finite;

// m is a non-empty, finite matrix; `name` is the argument's name in messages.
template <class S>
void check_matrix(const char* where, const char* name, const Mat<S>& m) {
  require(m.rows() > 0 && m.cols() > 0, where, "expected a non-empty ", name, ", got ", name, " ",
          shape_str(m));
  require(all_finite(m), where, "expected a finite ", name, ", got a non-finite entry in ", name,
          " ", shape_str(m));
}

template <class S>
void check_same_shape(const char* where, const char* name_a, const Mat<S>& a, const char* name_b,
                      const Mat<S>& b) {
  require(a.rows() == b.rows() && a.cols() == b.cols(), where, "expected ", name_a, " and ", name_b,
          " of the same shape, got ", name_a, " ", shape_str(a), " and ", name_b, " ",
          shape_str(b));
}

// The exponent e with max |m| / 2^e in [1/2, 1), or 0 when m is all zero.
template <class Derived>
int pow2_exponent(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  using std::abs;
  using std::frexp;
  S largest = S(0);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      if (abs(m(i, j)) > largest) largest = abs(m(i, j));
  if (largest == S(0)) return 0;
  int e = 0;
  frexp(largest, &e);
  return e;
}

// m 2^-e, exactly (see the header comment).
template <class Derived>
Mat<typename Derived::Scalar> scaled(const Eigen::MatrixBase<Derived>& m, int e) {
  using S = typename Derived::Scalar;
  using std::ldexp;
  Mat<S> out(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) out(i, j) = S(ldexp(m(i, j), -e));
  return out;
}

// sum of squares, row-major order.
template <class Derived>
typename Derived::Scalar sum_of_squares(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  S sum = S(0);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) sum += m(i, j) * m(i, j);
  return sum;
}

// ||m||_F = 2^e sqrt(sum (m_ij 2^-e)^2): the Frobenius norm (the 2-norm of a
// row or column), without overflow or underflow.
template <class Derived>
typename Derived::Scalar frobenius_norm(const Eigen::MatrixBase<Derived>& m) {
  using S = typename Derived::Scalar;
  using std::ldexp;
  using std::sqrt;
  const int e = pow2_exponent(m);
  const auto scaled_m = m.unaryExpr([e](const S& x) { return S(ldexp(x, -e)); });  // not copied
  return S(ldexp(S(sqrt(sum_of_squares(scaled_m))), e));
}

// Each row of m divided by its 2-norm. A zero row has no direction: Error
// naming it.
template <class S>
Mat<S> unit_rows(const char* where, const char* name, const Mat<S>& m) {
  Mat<S> u(m.rows(), m.cols());
  for_each_row(m.rows(), m.cols(), [&](Eigen::Index i) {
    const Mat<S> row = scaled(m.row(i), pow2_exponent(m.row(i)));
    const S norm = frobenius_norm(row);
    u.row(i) = norm > S(0) ? Mat<S>(row / norm) : Mat<S>::Zero(1, m.cols());
  });
  for (Eigen::Index i = 0; i < m.rows(); ++i)  // errors are thrown outside the parallel loop
    require(m.row(i).cwiseAbs().maxCoeff() > S(0), where, "row ", i, " of ", name,
            " is zero: its cosine similarity with any row is 0/0, undefined (drop that row)");
  return u;
}

// <a, b> summed in index order, for two 1 x n rows.
template <class A, class B>
typename A::Scalar dot(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  using S = typename A::Scalar;
  S sum = S(0);
  for (Eigen::Index j = 0; j < a.cols(); ++j) sum += a(0, j) * b(0, j);
  return sum;
}

// A list of matrices is non-empty and each is non-empty and finite; messages
// name the entry as name[k].
template <class S>
void check_list(const char* where, const char* name, const std::vector<Mat<S>>& list) {
  require(!list.empty(), where, "expected a non-empty list ", name, ", got an empty list");
  for (std::size_t k = 0; k < list.size(); ++k) {
    const std::string entry = std::string(name) + "[" + std::to_string(k) + "]";
    check_matrix(where, entry.c_str(), list[k]);
  }
}

}  // namespace scaleref::metrics
