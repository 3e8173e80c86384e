// A normalized linear map with every scale-vector strategy of the
// scale_vectors paper, for a batch x [N, d_in], W [d_out, d_in], y = x W^T:
//
//   n(x) = x / RMS(x),   RMS(x) = sqrt(mean_i x_i^2 + eps)   (row by row)
//
// THE FORMULAS BELOW ARE THIS PROJECT'S READING OF THE PAPER, not quotations:
// the paper copy lost its mathematics (shared/papers/README.md, "Gaps in the
// copies"), and the README's definitions are the spec. Written per row x:
//
//   none      y = W n(x)
//   standard  y = W (g (.) n(x))                     (standard Pre-Norm)
//   AP        y = a (.) (W n(x))                      (after-placement)
//   DP        y = a (.) (W (g (.) n(x)))              (dual placement)
//   DNP       y = a (.) n_h(W (g (.) n(x)))           (dual normalized placement)
//             n_h normalizes each of `heads` equal column blocks of W(...)
//             separately (heads = 1: the whole vector), with the same eps
//             (project's choice: the README gives n_h no eps of its own)
//   MD        y = W (g(r, u) (.) n(x)),  g(r, u) = r u / RMS(u),
//             RMS(u) = sqrt(mean(u^2)) with no eps (project's choice; u = 0
//             is an Error), init r = 1, u = 1, so g = 1
//   HG        one shared n(x), branch-specific g_b:  y_b = W_b (g_b (.) n(x))
//             (q, k, v for attention; gate, up for the FFN): forward_hg
//
// Input-Norm scale vectors feed a linear map (g, g_b, and MD's r, u);
// Output-Norm ones scale a map's output (a). The individual-weight-decay (IWD)
// policy decays the former only (README: "IWD"). The Pre-Norm absorption map
// W' = W diag(g) turns "standard" into "none" (absorb / unabsorb).
#pragma once

#include <array>
#include <scaleref/linalg.hpp>
#include <scaleref/norm/common.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/spec/scalevec.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace scaleref::scalevec {

// Strategy, Config, Placement, DecayPolicy, kScaleVectors: scaleref/spec/scalevec.hpp.

// The parameters a strategy does not read may stay empty.
template <class S>
struct Params {
  Mat<S> W;  // [d_out, d_in]
  Mat<S> g;  // [1, d_in]   standard, DP, DNP
  Mat<S> a;  // [1, d_out]  AP, DP, DNP
  Mat<S> r;  // [1, 1]      MD: magnitude
  Mat<S> u;  // [1, d_in]   MD: direction
};

// Every scale vector of the strategy at its initial value (1; MD: r = 1, u = 1).
template <class S>
Params<S> init(Strategy s, Mat<S> W) {
  Params<S> p;
  const Eigen::Index d_in = W.cols(), d_out = W.rows();
  p.W = std::move(W);
  if (uses_g(s)) p.g = Mat<S>::Ones(1, d_in);
  if (uses_a(s)) p.a = Mat<S>::Ones(1, d_out);
  if (s == Strategy::md) {
    p.r = Mat<S>::Ones(1, 1);
    p.u = Mat<S>::Ones(1, d_in);
  }
  return p;
}

// ---- Input-Norm / Output-Norm, and the weight-decay policy ------------------------------

inline Placement placement_of(std::string_view name) {
  for (const auto& v : kScaleVectors)
    if (v.name == name) return v.placement;
  fail(
      "scalevec::placement_of: expected a scale vector name (g, a, r, u, g_q, g_k, g_v, g_gate, "
      "g_up), got \"",
      std::string(name), "\"");
}

// Whether the optimizer applies weight decay to the named scale vector.
inline bool decayed(DecayPolicy policy, std::string_view name) {
  const Placement p = placement_of(name);
  switch (policy) {
    case DecayPolicy::iwd:
      return p == Placement::input_norm;
    case DecayPolicy::decay_all:
      return true;
    case DecayPolicy::decay_none:
      return false;
  }
  fail("scalevec::decayed: unknown policy");
}

// The scale vectors a strategy learns, by name (spec params() without W).
inline std::vector<std::string_view> scale_vectors(Strategy s) {
  std::vector<std::string_view> out;
  for (const spec::Tensor& t : params(s))
    if (t.name != kW.name) out.push_back(t.name);
  return out;
}

// ---- checks -----------------------------------------------------------------------------

namespace detail {

template <class S>
void check_weight(const char* where, const char* name, const Mat<S>& W, Eigen::Index d_in) {
  require(W.rows() > 0 && W.cols() == d_in, where, "expected ", name, " [d_out x ", d_in,
          "] for x with d_in = ", d_in, ", got ", name, " ", shape_str(W));
  require(all_finite(W), where, "expected a finite ", name, ", got a non-finite entry");
}

// n(x) row by row into x_hat, with r = 1 / RMS(x) per row.
template <class S>
void normalize(const char* where, const Mat<S>& x, double eps, Mat<S>& x_hat, Mat<S>& r) {
  norm::inverse_rms(where, x, eps, r);
  x_hat.resize(x.rows(), x.cols());
  for_each_row(x.rows(), x.cols(), [&](Eigen::Index i) { x_hat.row(i) = x.row(i) * r(i, 0); });
}

}  // namespace detail

template <class S>
void check(const char* where, const Params<S>& p, const Config& c, const Mat<S>& x) {
  norm::check_input(where, x);
  norm::check_eps(where, c.eps);
  detail::check_weight(where, "W", p.W, x.cols());
  const Eigen::Index d_in = x.cols(), d_out = p.W.rows();
  if (uses_g(c.strategy)) norm::check_row_param(where, "g", p.g, d_in);
  if (uses_a(c.strategy)) norm::check_row_param(where, "a", p.a, d_out);
  if (c.strategy == Strategy::md) {
    norm::check_scalar_param(where, "r", p.r);
    norm::check_row_param(where, "u", p.u, d_in);
  }
  require(c.heads >= 1, where, "expected heads >= 1, got heads = ", c.heads);
  if (c.strategy == Strategy::dnp)
    require(d_out % c.heads == 0, where, "expected heads dividing d_out = ", d_out,
            " (DNP's per-head n_h), got heads = ", c.heads);
}

// ---- forward and backward -----------------------------------------------------------------

template <class S>
struct Cache {
  Mat<S> x_hat;  // [N, d_in]  n(x)
  Mat<S> rx;     // [N, 1]     1 / RMS(x)
  Mat<S> gv;     // [1, d_in]  the input-side g in effect (empty: none, AP)
  Mat<S> s;      // [N, d_in]  g (.) n(x) (or n(x))
  Mat<S> z;      // [N, d_out] s W^T
  Mat<S> z_hat;  // [N, d_out] DNP: n_h(z)
  Mat<S> rz;     // [N, heads] DNP: 1 / RMS of each head of z
  Mat<S> u_hat;  // [1, d_in]  MD: u / RMS(u)
  Mat<S> ru;     // [1, 1]     MD: 1 / RMS(u)
};

template <class S>
struct Grads {
  Mat<S> dx, dW, dg, da, dr, du;  // those the strategy does not learn stay empty
  Mat<S> dz, ds, dgv;             // dL/dz, dL/ds, dL/d(the g in effect) (scratch)
};

// y = the strategy's map of x, written into y (resized; x and y may not alias).
template <class S>
void forward(const Params<S>& p, const Config& c, const Mat<S>& x, Mat<S>& y, Cache<S>& k) {
  constexpr const char* where = "scalevec::forward";
  check(where, p, c, x);
  detail::normalize(where, x, c.eps, k.x_hat, k.rx);
  if (c.strategy == Strategy::md) {
    norm::inverse_rms("scalevec::forward (MD's RMS(u))", p.u, 0.0, k.ru);
    k.u_hat = p.u * k.ru(0, 0);
    k.gv = k.u_hat * p.r(0, 0);
  } else if (uses_g(c.strategy)) {
    k.gv = p.g;
  } else {
    k.gv.resize(0, 0);
  }
  if (k.gv.size()) {
    scale_cols(k.x_hat, k.gv, k.s);
  } else {
    k.s = k.x_hat;
  }
  matmul(k.s, p.W.transpose(), k.z);
  if (c.strategy == Strategy::dnp) {
    norm::rms_blocks("scalevec::forward (DNP's n_h of W (g (.) n(x)))", k.z, c.heads, c.eps,
                     k.z_hat, k.rz);
    scale_cols(k.z_hat, p.a, y);
  } else if (uses_a(c.strategy)) {
    scale_cols(k.z, p.a, y);
  } else {
    y = k.z;
  }
}

template <class S>
Mat<S> forward(const Params<S>& p, const Config& c, const Mat<S>& x, Cache<S>* cache = nullptr) {
  Cache<S> local;
  Mat<S> y;
  forward(p, c, x, y, cache ? *cache : local);
  return y;
}

// Hand-derived gradients, per row (x_hat = n(x), s = g (.) x_hat, z = W s),
// with dy the output gradient:
//   AP, DP:  da = sum_rows dy (.) z,      dz = dy (.) a
//   DNP:     da = sum_rows dy (.) n_h(z), dz_h = rz_h (q_h - zhat_h mean(q_h (.) zhat_h)),
//            q = dy (.) a, head by head (rms_normalize_backward)
//   else:    dz = dy
//   dW = dz^T s,   ds = dz W
//   g present (standard, DP, DNP, MD's g(r, u)): dg = sum_rows ds (.) x_hat,
//            dx_hat = ds (.) g;   otherwise dx_hat = ds
//   MD:      g = r u_hat, u_hat = u / RMS(u):  dr = dg . u_hat,
//            du = (1 / RMS(u)) (r dg - u_hat mean(r dg (.) u_hat))
//   dx = rx (dx_hat - x_hat mean(dx_hat (.) x_hat))   (rms_normalize_backward)
// Written into grads (resized; the strategy's unlearned ones emptied).
template <class S>
void backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy,
              Grads<S>& g) {
  constexpr const char* where = "scalevec::backward";
  require(k.x_hat.size() > 0, where, "the cache is empty: pass a Cache to forward first");
  norm::check_grad_output(where, dy, k.z.rows(), k.z.cols());
  if (c.strategy == Strategy::dnp) {
    col_sum_product(dy, k.z_hat, g.da);
    scale_cols(dy, p.a, g.dz);  // q, for now
    norm::rms_blocks_backward(k.rz, k.z_hat, g.dz, g.dz);
  } else if (uses_a(c.strategy)) {
    col_sum_product(dy, k.z, g.da);
    scale_cols(dy, p.a, g.dz);
  } else {
    g.da.resize(0, 0);
    g.dz = dy;
  }
  matmul(g.dz.transpose(), k.s, g.dW);
  matmul(g.dz, p.W, g.ds);
  Mat<S>& dx_hat = g.ds;  // ds (.) g in place when a g is in effect
  if (!uses_g(c.strategy)) g.dg.resize(0, 0);
  if (c.strategy != Strategy::md) {
    g.dr.resize(0, 0);
    g.du.resize(0, 0);
  }
  if (k.gv.size()) {
    col_sum_product(g.ds, k.x_hat, g.dgv);
    for_each_row(dx_hat.rows(), dx_hat.cols(),
                 [&](Eigen::Index i) { dx_hat.row(i).array() *= k.gv.row(0).array(); });
    if (c.strategy == Strategy::md) {
      g.dr.resize(1, 1);
      g.dr(0, 0) = g.dgv.cwiseProduct(k.u_hat).sum();
      g.du.resize(1, k.u_hat.cols());
      norm::rms_normalize_backward<S>(k.ru(0, 0), g.dgv * p.r(0, 0), k.u_hat, g.du);
    } else {
      g.dg = g.dgv;
    }
  }
  norm::rms_blocks_backward(k.rx, k.x_hat, dx_hat, g.dx);
}

template <class S>
Grads<S> backward(const Params<S>& p, const Config& c, const Cache<S>& k, const Mat<S>& dy) {
  Grads<S> g;
  backward(p, c, k, dy, g);
  return g;
}

// ---- HG: one shared n(x), branch-specific g_b ---------------------------------------------

template <class S>
struct Branch {
  Mat<S> W;  // [d_out_b, d_in]
  Mat<S> g;  // [1, d_in]
};

// The branch names the README gives, and their scale vectors' names.
inline constexpr std::array<std::string_view, 3> kAttentionBranches{"q", "k", "v"};
inline constexpr std::array<std::string_view, 2> kFfnBranches{"gate", "up"};

template <class S>
struct HGCache {
  Mat<S> x_hat, rx;
  std::vector<Mat<S>> s;  // g_b (.) n(x) per branch
};

template <class S>
struct HGGrads {
  Mat<S> dx;
  std::vector<Mat<S>> dW, dg;  // per branch
};

// y_b = W_b (g_b (.) n(x)) for every branch b, from one shared n(x).
template <class S>
std::vector<Mat<S>> forward_hg(const std::vector<Branch<S>>& branches, double eps, const Mat<S>& x,
                               HGCache<S>* cache = nullptr) {
  constexpr const char* where = "scalevec::forward_hg";
  norm::check_input(where, x);
  norm::check_eps(where, eps);
  require(!branches.empty(), where, "expected at least one branch, got 0");
  for (const auto& b : branches) {
    detail::check_weight(where, "W_b", b.W, x.cols());
    norm::check_row_param(where, "g_b", b.g, x.cols());
  }
  HGCache<S> local;
  HGCache<S>& k = cache ? *cache : local;
  detail::normalize(where, x, eps, k.x_hat, k.rx);
  k.s.resize(branches.size());
  std::vector<Mat<S>> y(branches.size());
  for (std::size_t b = 0; b < branches.size(); ++b) {
    scale_cols(k.x_hat, branches[b].g, k.s[b]);
    matmul(k.s[b], branches[b].W.transpose(), y[b]);
  }
  return y;
}

// dW_b = dy_b^T s_b, ds_b = dy_b W_b, dg_b = sum_rows ds_b (.) x_hat,
// dx_hat = sum_b ds_b (.) g_b (branches in order), dx = rms_normalize_backward.
template <class S>
HGGrads<S> backward_hg(const std::vector<Branch<S>>& branches, const HGCache<S>& k,
                       const std::vector<Mat<S>>& dy) {
  constexpr const char* where = "scalevec::backward_hg";
  require(k.x_hat.size() > 0, where, "the cache is empty: pass an HGCache to forward_hg first");
  require(dy.size() == branches.size(), where, "expected ", branches.size(),
          " output gradients (one per branch), got ", dy.size());
  HGGrads<S> g;
  Mat<S> dx_hat = Mat<S>::Zero(k.x_hat.rows(), k.x_hat.cols());
  for (std::size_t b = 0; b < branches.size(); ++b) {
    norm::check_grad_output(where, dy[b], k.x_hat.rows(), branches[b].W.rows());
    g.dW.push_back(matmul<S>(dy[b].transpose(), k.s[b]));
    const Mat<S> ds = matmul<S>(dy[b], branches[b].W);
    g.dg.push_back(Mat<S>());
    col_sum_product(ds, k.x_hat, g.dg.back());
    for_each_row(ds.rows(), ds.cols(),
                 [&](Eigen::Index i) { dx_hat.row(i) += ds.row(i).cwiseProduct(branches[b].g); });
  }
  norm::rms_blocks_backward(k.rx, k.x_hat, dx_hat, g.dx);
  return g;
}

// ---- the Pre-Norm absorption map ------------------------------------------------------------

// W' = W diag(g): "none" with W' gives the outputs of "standard" with (g, W),
// since W (g (.) n) = (W diag(g)) n. In floating point the two differ by the
// rounding of g_k n_k W_jk against n_k (W_jk g_k) in each term.
template <class S>
Mat<S> absorb(const Mat<S>& g, const Mat<S>& W) {
  constexpr const char* where = "scalevec::absorb";
  detail::check_weight(where, "W", W, W.cols());
  norm::check_row_param(where, "g", g, W.cols());
  Mat<S> out;
  scale_cols(W, g, out);
  return out;
}

// The inverse: W = W' diag(1/g); a zero entry of g has no inverse: Error.
template <class S>
Mat<S> unabsorb(const Mat<S>& W_absorbed, const Mat<S>& g) {
  constexpr const char* where = "scalevec::unabsorb";
  detail::check_weight(where, "W'", W_absorbed, W_absorbed.cols());
  norm::check_row_param(where, "g", g, W_absorbed.cols());
  for (Eigen::Index j = 0; j < g.cols(); ++j)
    require(g(0, j) != 0, where, "expected g with no zero entry (W' diag(1/g)), got g(", j,
            ") = 0");
  Mat<S> out(W_absorbed.rows(), W_absorbed.cols());
  for_each_row(W_absorbed.rows(), W_absorbed.cols(),
               [&](Eigen::Index i) { out.row(i) = W_absorbed.row(i).cwiseQuotient(g); });
  return out;
}

}  // namespace scaleref::scalevec
