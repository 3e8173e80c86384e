// A projection P_r of the tiny LM (lm/config.hpp), r in q, k, v, o, gate, up, down,
// for a batch of rows x [N, d_in]:
//
//   plain:  z = x W_r^T                                        W_r [d_out, d_in]
//   SDD:    z = alpha_r (.) sdd_norm(x V_r^T)                  (sdd eq. 2-3)
//           sdd_norm = rmsnorm: m / sqrt(mean(m^2) + sdd_eps)
//                    | layernorm (no affine): (m - mean m) / sqrt(var(m) + sdd_eps)
//
// and, on the maps that read a Pre-Norm output (q, k, v, gate, up), the
// output-side scale vector a_r of the scale_vectors paper:
//
//   AP, DP: y = a_r (.) z
//   DNP:    y = a_r (.) n_h(z),  n_h the RMS normalization (eps = norm_eps) of each
//           head's d_h columns for q, k, v, of the whole row for gate, up
//   else:   y = z
//
// Backward, given dy = dL/dy:
//   AP, DP: da = sum_rows dy (.) z,       dz = dy (.) a
//   DNP:    da = sum_rows dy (.) n_h(z),  dz = rms_blocks_backward(dy (.) a)
//   SDD:    dalpha = sum_rows dz (.) m_hat (sdd eq. 5, 24),
//           dm = J_norm^T (dz (.) alpha) (sdd eq. 28 for rmsnorm; LayerNorm's dx with
//           gamma = 1 for layernorm), dV = dm^T x (sdd eq. 29), dx = dm V
//   plain:  dW = dz^T x,  dx = dz W
#pragma once

#include <scaleref/linalg.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/lm/rowops.hpp>
#include <string>

namespace scaleref::lm {

// How a config builds projection r.
struct ProjPlan {
  bool sdd = false;        // SDD layer instead of a plain W
  bool out_a = false;      // an output-side scale vector a_r (AP, DP, DNP)
  bool dnp = false;        // n_h before a_r (DNP)
  Eigen::Index heads = 1;  // n_h's blocks
};

inline ProjPlan proj_plan(const Config& c, Proj r) {
  ProjPlan pl;
  pl.sdd = c.uses_sdd(r);
  pl.out_a = reads_norm(r) && uses_output_a(c.scale_vectors);
  pl.dnp = pl.out_a && c.scale_vectors == ScaleVectors::dnp;
  pl.heads = in_attention(r) ? c.n_heads : 1;
  return pl;
}

template <class S>
struct ProjCache {
  Mat<S> m, m_hat, rm;  // SDD: x V^T, sdd_norm(x V^T) and its 1 / scale per row
  Mat<S> z;             // AP, DP, DNP: the map's output before a
  Mat<S> z_hat, rz;     // DNP: n_h(z) and 1 / RMS per row and head
};

// y = P_r(x), written into y; `base` is the parameter prefix, e.g. "layers.0.attn.q.".
template <class S>
void proj_forward(const Config& c, const ParamStore<S>& p, Proj r, const Name& base,
                  const Mat<S>& x, ProjCache<S>& k, Mat<S>& y) {
  const ProjPlan pl = proj_plan(c, r);
  Mat<S>& z = pl.out_a ? k.z : y;  // the map's output, before any a
  if (pl.sdd) {
    matmul(x, p.at(base + "V").transpose(), k.m);
    if (c.sdd_norm == SddNorm::rmsnorm)
      detail::rms_blocks("lm::forward (SDD rmsnorm of x V^T)", k.m, 1, c.sdd_eps, k.m_hat, k.rm);
    else
      detail::center_rows("lm::forward (SDD layernorm of x V^T)", k.m, c.sdd_eps, k.m_hat, k.rm);
    detail::scale_cols(k.m_hat, p.at(base + "alpha"), z);
  } else {
    matmul(x, p.at(base + "W").transpose(), z);
  }
  if (!pl.out_a) return;
  const Mat<S>& a = p.at(base + "a");
  if (pl.dnp) {
    detail::rms_blocks("lm::forward (DNP's n_h)", k.z, pl.heads, c.norm_eps, k.z_hat, k.rz);
    detail::scale_cols(k.z_hat, a, y);
  } else {
    detail::scale_cols(k.z, a, y);
  }
}

// dx = dL/dx from dy = dL/dy, written into dx; writes the map's parameter
// gradients into g. dy is the caller's scratch: it is overwritten.
template <class S>
void proj_backward(const Config& c, const ParamStore<S>& p, Proj r, const Name& base,
                   const Mat<S>& x, const ProjCache<S>& k, Mat<S>& dy, Mat<S>& dx,
                   ParamStore<S>& g) {
  const ProjPlan pl = proj_plan(c, r);
  if (pl.out_a) {
    const Mat<S>& a = p.at(base + "a");
    if (pl.dnp) {
      // da = sum_rows dy (.) n_h(z);  dz = n_h^T-Jacobian applied to dy (.) a
      detail::col_sum_product(dy, k.z_hat, g.at(base + "a"));
      detail::scale_cols_inplace(dy, a);
      detail::rms_blocks_backward(k.rz, k.z_hat, dy, dy);
    } else {
      // da = sum_rows dy (.) z;  dz = dy (.) a
      detail::col_sum_product(dy, k.z, g.at(base + "a"));
      detail::scale_cols_inplace(dy, a);
    }
  }
  // dy now holds dz
  if (pl.sdd) {
    const Mat<S>& V = p.at(base + "V");
    // sdd eq. 5, 24: dalpha = sum_rows dz (.) norm(x V^T)
    detail::col_sum_product(dy, k.m_hat, g.at(base + "alpha"));
    detail::scale_cols_inplace(dy, p.at(base + "alpha"));
    // sdd eq. 28: dm = J_norm^T (dz (.) alpha), in place
    if (c.sdd_norm == SddNorm::rmsnorm)
      detail::rms_blocks_backward(k.rm, k.m_hat, dy, dy);
    else
      detail::center_rows_backward(k.rm, k.m_hat, dy, dy);
    // sdd eq. 29: dV = dm^T x;  dx = dm V
    matmul(dy.transpose(), x, g.at(base + "V"));
    matmul(dy, V, dx);
    return;
  }
  // z = x W^T:  dW = dz^T x,  dx = dz W
  matmul(dy.transpose(), x, g.at(base + "W"));
  matmul(dy, p.at(base + "W"), dx);
}

}  // namespace scaleref::lm
