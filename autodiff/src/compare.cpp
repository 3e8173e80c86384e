#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/verify/compare.hpp>
#include <sstream>

namespace scaleref::verify {

template <class S>
std::string full_precision(const S& v) {
  std::ostringstream os;
  os.precision(std::numeric_limits<S>::max_digits10);
  os << v;
  return os.str();
}

template <class S>
std::string matrix_text(const Mat<S>& m) {
  std::ostringstream os;
  os << shape_str(m) << '\n';
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    for (Eigen::Index j = 0; j < m.cols(); ++j) os << (j ? " " : "  ") << full_precision(m(i, j));
    os << '\n';
  }
  return os.str();
}

template <class S>
Comparison compare(std::string what, const Mat<S>& actual, const Mat<S>& expected,
                   const Tolerance& tol, const Mat<double>& extra_atol) {
  require(actual.rows() == expected.rows() && actual.cols() == expected.cols(), "verify::compare",
          "expected equal shapes for '", what, "', got actual ", shape_str(actual),
          " and expected ", shape_str(expected));
  require(extra_atol.size() == 0 ||
              (extra_atol.rows() == actual.rows() && extra_atol.cols() == actual.cols()),
          "verify::compare", "expected extra_atol shaped ", shape_str(actual), ", got ",
          shape_str(extra_atol));
  Comparison c;
  c.what = std::move(what);
  c.tol = tol;
  c.count = actual.size();
  const double inf = std::numeric_limits<double>::infinity();
  for (Eigen::Index i = 0; i < actual.rows(); ++i) {
    for (Eigen::Index j = 0; j < actual.cols(); ++j) {
      const S& a = actual(i, j);
      const S& r = expected(i, j);
      using std::abs;
      using std::isfinite;
      using std::isnan;
      double share;  // fraction of the tolerance this entry uses
      if (isnan(a) || isnan(r)) {
        share = inf;
      } else if (!isfinite(a) || !isfinite(r)) {
        share = (a == r) ? 0.0 : inf;
      } else {
        const double err = static_cast<double>(S(abs(a - r)));
        const double mag = static_cast<double>(S(std::max(abs(a), abs(r))));
        const double allowed = tol.atol + (extra_atol.size() ? extra_atol(i, j) : 0.0) +
                               tol.rtol * 0.5 * static_cast<double>(S(abs(a) + abs(r)));
        c.max_abs_err = std::max(c.max_abs_err, err);
        if (mag > 0) c.max_rel_err = std::max(c.max_rel_err, err / mag);
        share = err == 0 ? 0.0 : (allowed > 0 ? err / allowed : inf);
      }
      if (share > 1) ++c.mismatches;
      if (c.worst_row < 0 || share > c.worst_share) {
        c.worst_share = share;
        c.worst_row = i;
        c.worst_col = j;
      }
    }
  }
  if (c.worst_row >= 0) {
    c.worst_actual = full_precision(actual(c.worst_row, c.worst_col));
    c.worst_expected = full_precision(expected(c.worst_row, c.worst_col));
  }
  return c;
}

std::string Comparison::str() const {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s %s: %td/%td mismatches, max abs %.3g, max rel %.3g, %.3g of tolerance used",
                ok() ? "PASS" : "FAIL", what.c_str(), mismatches, count, max_abs_err, max_rel_err,
                worst_share);
  std::ostringstream os;
  os << buf;
  if (worst_row >= 0)
    os << "; worst [" << worst_row << "," << worst_col << "] actual " << worst_actual
       << " expected " << worst_expected;
  os << "; tolerance atol " << tol.atol << " rtol " << tol.rtol;
  if (!tol.why.empty()) os << " (" << tol.why << ")";
  return os.str();
}

template std::string full_precision<double>(const double&);
template std::string full_precision<Real50>(const Real50&);
template std::string matrix_text<double>(const Mat<double>&);
template std::string matrix_text<Real50>(const Mat<Real50>&);
template Comparison compare<double>(std::string, const Mat<double>&, const Mat<double>&,
                                    const Tolerance&, const Mat<double>&);
template Comparison compare<Real50>(std::string, const Mat<Real50>&, const Mat<Real50>&,
                                    const Tolerance&, const Mat<double>&);

}  // namespace scaleref::verify
