// Row-wise building blocks of the tiny LM (lm/model.hpp), each with its backward:
//
//   sigmoid(x) = 1 / (1 + exp(-x))
//   center_rows:           z_hat = (z - mean z) / sqrt(var(z) + eps), no affine
//     backward:            dz = r (g - mean(g) - z_hat mean(g (.) z_hat))
//                          (norm::layernorm's dx with gamma = 1)
// and, shared with the layers and used here by their short names:
//   scale_cols(m, v), col_sum_product(a, b)                        (rows.hpp)
//   rms_blocks, rms_blocks_backward: RMS normalization of column blocks
//                                                                  (norm/common.hpp)
//
// Every loop is row-parallel (for_each_row) and every row reduction runs in a
// fixed order, so the bits do not depend on the thread count.
#pragma once

#include <cmath>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/rescale.hpp>
#include <scaleref/types.hpp>

namespace scaleref::lm::detail {

using norm::rms_blocks;
using norm::rms_blocks_backward;
using scaleref::col_sum_product;
using scaleref::scale_cols;

template <class S>
S sigmoid(const S& x) {
  using std::exp;
  return S(S(1) / S(S(1) + exp(S(-x))));
}

// m (.) v in place, v [1, m.cols()].
template <class S>
void scale_cols_inplace(Mat<S>& m, const Mat<S>& v) {
  for_each_row(m.rows(), m.cols(), [&](Eigen::Index i) { m.row(i).array() *= v.row(0).array(); });
}

// a += b, row-parallel.
template <class S>
void add_inplace(Mat<S>& a, const Mat<S>& b) {
  for_each_row(a.rows(), a.cols(), [&](Eigen::Index i) { a.row(i) += b.row(i); });
}

// z_hat, r = LayerNorm without affine of every row of z.
template <class S>
void center_rows(const char* where, const Mat<S>& z, double eps, Mat<S>& z_hat, Mat<S>& r) {
  using std::sqrt;
  const Eigen::Index n = z.rows(), d = z.cols();
  const S inv_d = S(1) / S(static_cast<long>(d));
  z_hat.resize(n, d);
  r.resize(n, 1);
  for_each_row(n, d, [&](Eigen::Index i) {
    const S mu = z.row(i).sum() * inv_d;
    z_hat.row(i) = z.row(i).array() - mu;
    r(i, 0) = z_hat.row(i).squaredNorm() * inv_d + S(eps);
  });
  for (Eigen::Index i = 0; i < n; ++i) {
    require(r(i, 0) > 0, where, "row ", i,
            " has variance + eps = 0 (a constant row, with eps = 0): it cannot be normalized");
    if (eps == 0)  // a constant row's variance is its mean's rounding error: LayerNorm's rule
      require(metrics::has_spread(S(z.row(i).minCoeff()), S(z.row(i).maxCoeff()), S(sqrt(r(i, 0))),
                                  static_cast<double>(d), S(std::numeric_limits<S>::epsilon() / 2)),
              where, "row ", i,
              " has no spread (its entries all equal, or a variance at rounding level) and "
              "eps = 0: it cannot be normalized");
  }
  for_each_row(n, d, [&](Eigen::Index i) {
    r(i, 0) = S(1) / sqrt(r(i, 0));
    z_hat.row(i) *= r(i, 0);
  });
}

// dz from g = dL/dz_hat, into dz (resized; dz may be g itself).
template <class S>
void center_rows_backward(const Mat<S>& r, const Mat<S>& z_hat, const Mat<S>& g, Mat<S>& dz) {
  const Eigen::Index n = g.rows(), d = g.cols();
  const S inv_d = S(1) / S(static_cast<long>(d));
  dz.resize(n, d);
  for_each_row(n, d, [&](Eigen::Index i) {
    const S mean_g = g.row(i).sum() * inv_d;
    const S proj = g.row(i).dot(z_hat.row(i)) * inv_d;
    dz.row(i) = r(i, 0) * ((g.row(i).array() - mean_g).matrix() - proj * z_hat.row(i));
  });
}

}  // namespace scaleref::lm::detail
