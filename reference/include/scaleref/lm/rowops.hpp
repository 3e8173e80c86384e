// Row-wise building blocks of the tiny LM (lm/model.hpp), each with its backward:
//
//   sigmoid(x) = 1 / (1 + exp(-x))
//   scale_cols(m, v):      m (.) v, v a [1, D] row broadcast over the rows of m
//   col_sum_product(a, b): sum over rows of a (.) b, [1, D], in a fixed order (rows.hpp)
//   rms_blocks:            every row cut into `blocks` equal column blocks z_b, each
//                          z_hat_b = z_b / sqrt(mean(z_b^2) + eps), r_b = 1 / sqrt(...)
//     backward:            dz_b = r_b (g_b - z_hat_b mean(g_b (.) z_hat_b))
//                          (norm::rms_normalize_backward, block by block)
//   center_rows:           z_hat = (z - mean z) / sqrt(var(z) + eps), no affine
//     backward:            dz = r (g - mean(g) - z_hat mean(g (.) z_hat))
//                          (norm::layernorm's dx with gamma = 1)
//
// Every loop is row-parallel (for_each_row) and every row reduction runs in a
// fixed order, so the bits do not depend on the thread count.
#pragma once

#include <cmath>
#include <scaleref/error.hpp>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/types.hpp>

namespace scaleref::lm::detail {

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

// out = m (.) v, v [1, m.cols()].
template <class S>
void scale_cols(const Mat<S>& m, const Mat<S>& v, Mat<S>& out) {
  out.resize(m.rows(), m.cols());
  for_each_row(m.rows(), m.cols(),
               [&](Eigen::Index i) { out.row(i) = m.row(i).cwiseProduct(v.row(0)); });
}

// out = sum over rows of a (.) b, [1, D].
template <class S>
void col_sum_product(const Mat<S>& a, const Mat<S>& b, Mat<S>& out) {
  sum_rows<S>(
      a.rows(), a.cols(),
      [&](Eigen::Index i, Mat<S>& acc) { acc += a.row(i).cwiseProduct(b.row(i)); }, out);
}

// a += b, row-parallel.
template <class S>
void add_inplace(Mat<S>& a, const Mat<S>& b) {
  for_each_row(a.rows(), a.cols(), [&](Eigen::Index i) { a.row(i) += b.row(i); });
}

// z_hat, r = the block-wise RMS normalization of z (see the header comment).
// A block whose mean square + eps is 0 has no RMS: Error naming `where`.
template <class S>
void rms_blocks(const char* where, const Mat<S>& z, Eigen::Index blocks, double eps, Mat<S>& z_hat,
                Mat<S>& r) {
  using std::sqrt;
  const Eigen::Index n = z.rows(), w = z.cols() / blocks;
  const S inv_w = S(1) / S(static_cast<long>(w));
  r.resize(n, blocks);
  for_each_row(n, z.cols(), [&](Eigen::Index i) {
    for (Eigen::Index b = 0; b < blocks; ++b)
      r(i, b) = z.row(i).segment(b * w, w).squaredNorm() * inv_w + S(eps);
  });
  for (Eigen::Index i = 0; i < n; ++i)  // errors are thrown outside the parallel loop
    for (Eigen::Index b = 0; b < blocks; ++b)
      require(r(i, b) > 0, where, "row ", i, ", block ", b,
              " has mean square + eps = 0 (all zero, with eps = 0): its RMS is 0");
  z_hat.resize(n, z.cols());
  for_each_row(n, z.cols(), [&](Eigen::Index i) {
    for (Eigen::Index b = 0; b < blocks; ++b) {
      r(i, b) = S(1) / sqrt(r(i, b));
      z_hat.row(i).segment(b * w, w) = z.row(i).segment(b * w, w) * r(i, b);
    }
  });
}

// dz from g = dL/dz_hat, block by block, into dz (resized; dz may be g itself).
template <class S>
void rms_blocks_backward(const Mat<S>& r, const Mat<S>& z_hat, const Mat<S>& g, Mat<S>& dz) {
  const Eigen::Index n = g.rows(), blocks = r.cols(), w = g.cols() / blocks;
  const S inv_w = S(1) / S(static_cast<long>(w));
  dz.resize(n, g.cols());
  for_each_row(n, g.cols(), [&](Eigen::Index i) {
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const S proj = g.row(i).segment(b * w, w).dot(z_hat.row(i).segment(b * w, w)) * inv_w;
      dz.row(i).segment(b * w, w) =
          r(i, b) * (g.row(i).segment(b * w, w) - proj * z_hat.row(i).segment(b * w, w));
    }
  });
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
  for (Eigen::Index i = 0; i < n; ++i)
    require(r(i, 0) > 0, where, "row ", i,
            " has variance + eps = 0 (a constant row, with eps = 0): it cannot be normalized");
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
