// What every normalization layer shares: input validation with messages that
// name the function and the per-row RMS statistic. (Each layer's settings and
// weight-decay data are in its spec header, scaleref/spec/.)
#pragma once

#include <cmath>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/types.hpp>
#include <string_view>

namespace scaleref::norm {

using scaleref::all_finite;

// x is a non-empty, finite [N, D] batch.
template <class S>
void check_input(const char* where, const Mat<S>& x) {
  require(x.rows() > 0 && x.cols() > 0, where, "expected a non-empty input [N x D], got ",
          shape_str(x));
  require(all_finite(x), where, "expected a finite input, got a non-finite entry in ",
          shape_str(x));
}

// p is a finite 1 x D parameter row (or absent, when `present` is false).
template <class S>
void check_row_param(const char* where, const char* name, const Mat<S>& p, Eigen::Index d) {
  require(p.rows() == 1 && p.cols() == d, where, "expected ", name, " [1x", d,
          "] to match the input's D = ", d, ", got ", name, " ", shape_str(p));
  require(all_finite(p), where, "expected a finite ", name, ", got a non-finite entry");
}

// A finite 1 x 1 parameter.
template <class S>
void check_scalar_param(const char* where, const char* name, const Mat<S>& p) {
  require(p.rows() == 1 && p.cols() == 1, where, "expected ", name, " [1x1], got ", name, " ",
          shape_str(p));
  require(all_finite(p), where, "expected a finite ", name, ", got a non-finite value");
}

inline void check_eps(const char* where, double eps) {
  require(std::isfinite(eps) && eps >= 0, where, "expected eps >= 0 and finite, got ", eps);
}

template <class S>
void check_grad_output(const char* where, const Mat<S>& dy, Eigen::Index n, Eigen::Index d) {
  require(dy.rows() == n && dy.cols() == d, where, "expected dy [", n, "x", d,
          "] like the forward's output, got dy ", shape_str(dy));
}

// 1 / sqrt(mean(v^2) + eps) for one row (or block) v, or 0 when mean(v^2) + eps
// is 0 (an all-zero v with eps = 0). Computed on v 2^-e and eps 2^-2e, 2^e just
// above max(max|v|, sqrt(eps)), and scaled back: every scaled square is below 1
// and the largest term at least 1/16, so nothing overflows (a row near 1e200
// had RMS = inf and y = 0) and nothing that matters is subnormal (a row near
// 1e-160 with eps = 0 lost most of its digits). A power of two scales exactly,
// so wherever the unscaled sum neither overflows nor underflows the result is
// bitwise the unscaled formula's, and at eps = 0 it is exactly 2^-k times that
// of 2^k v. A scalar without a binary exponent (the audit's operation counter,
// proofs_check's SDD FLOP claims) gets the unscaled formula, whose operations
// it counts.
template <class S, class V>
S inverse_rms_of(const V& v, double eps) {
  using std::sqrt;
  const S count = S(static_cast<long>(v.size()));
  if constexpr (std::numeric_limits<S>::is_specialized && std::numeric_limits<S>::radix == 2) {
    using std::frexp;
    using std::ldexp;
    const S largest = v.cwiseAbs().maxCoeff(), root_eps = sqrt(S(eps));
    int e = 0;
    frexp(largest > root_eps ? largest : root_eps, &e);  // e = 0 for 0
    const S t = (v * S(ldexp(S(1), -e))).squaredNorm() / count + S(ldexp(S(eps), -2 * e));
    return t > 0 ? S(ldexp(S(1) / sqrt(t), -e)) : S(0);
  } else {
    const S t = v.squaredNorm() / count + S(eps);
    return t > 0 ? S(S(1) / sqrt(t)) : S(0);
  }
}

// 1 / sqrt(mean(x_i^2) + eps) for each row i (inverse_rms_of), as an [N, 1]
// column, into r. A row whose mean square plus eps is 0 (an all-zero row with
// eps = 0) has no RMS: Error.
template <class S>
void inverse_rms(const char* where, const Mat<S>& x, double eps, Mat<S>& r) {
  r.resize(x.rows(), 1);
  for_each_row(x.rows(), x.cols(),
               [&](Eigen::Index i) { r(i, 0) = inverse_rms_of<S>(x.row(i), eps); });
  for (Eigen::Index i = 0; i < x.rows(); ++i)  // errors are thrown outside the parallel loop
    require(r(i, 0) > 0, where, "row ", i,
            " has mean square + eps = 0 (all zero, with eps = 0): its RMS is 0");
}

template <class S>
Mat<S> inverse_rms(const char* where, const Mat<S>& x, double eps) {
  Mat<S> r;
  inverse_rms(where, x, eps, r);
  return r;
}

// The backward of x_hat = x / RMS(x) for one row: given g = dL/dx_hat and
// r = 1 / RMS(x), dL/dx = r (g - x_hat mean_i(g_i x_hat_i)), from
// d x_hat_k / d x_l = r delta_kl - r x_hat_k x_hat_l / D (eps inside the root
// changes r only). Shared by RMSNorm, SeeDNorm and AdaSeeDNorm.
// Written into out (a row, or a block of one; it may be g itself).
template <class S, class G, class X, class O>
void rms_normalize_backward(const S& r, const G& g, const X& x_hat, O&& out) {
  const S proj = g.cwiseProduct(x_hat).sum() / S(static_cast<long>(g.size()));
  out = r * (g - proj * x_hat);
}

template <class S, class G, class X>
Mat<S> rms_normalize_backward(const S& r, const G& g, const X& x_hat) {
  Mat<S> out(g.rows(), g.cols());
  rms_normalize_backward(r, g, x_hat, out);
  return out;
}

// z_hat, r = the block-wise RMS normalization of z: every row cut into
// `blocks` equal column blocks z_b, each z_hat_b = z_b / sqrt(mean(z_b^2) + eps),
// r_b = 1 / sqrt(...) (r is [N, blocks]; blocks = 1 is inverse_rms and x_hat).
// A block whose mean square + eps is 0 has no RMS: Error naming `where`.
template <class S>
void rms_blocks(const char* where, const Mat<S>& z, Eigen::Index blocks, double eps, Mat<S>& z_hat,
                Mat<S>& r) {
  const Eigen::Index n = z.rows(), w = z.cols() / blocks;
  r.resize(n, blocks);
  for_each_row(n, z.cols(), [&](Eigen::Index i) {
    for (Eigen::Index b = 0; b < blocks; ++b)
      r(i, b) = inverse_rms_of<S>(z.row(i).segment(b * w, w), eps);
  });
  for (Eigen::Index i = 0; i < n; ++i)  // errors are thrown outside the parallel loop
    for (Eigen::Index b = 0; b < blocks; ++b)
      require(r(i, b) > 0, where, "row ", i, ", block ", b,
              " has mean square + eps = 0 (all zero, with eps = 0): its RMS is 0");
  z_hat.resize(n, z.cols());
  for_each_row(n, z.cols(), [&](Eigen::Index i) {
    for (Eigen::Index b = 0; b < blocks; ++b)
      z_hat.row(i).segment(b * w, w) = z.row(i).segment(b * w, w) * r(i, b);
  });
}

// dz from g = dL/dz_hat, block by block (rms_normalize_backward on each), into
// dz (resized; dz may be g itself).
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

}  // namespace scaleref::norm
