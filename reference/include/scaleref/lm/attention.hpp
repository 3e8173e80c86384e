// Causal multi-head self-attention of the tiny LM (lm/config.hpp), for a batch of B
// sequences of T rows (row b T + t), d = H d_h, inputs u_q, u_k, u_v [B T, d]
// (one shared matrix unless HG gives each map its own):
//
//   q = P_q(u_q), k = P_k(u_k), v = P_v(u_v)                 (lm/projection.hpp)
//   qk_norm:  q_h <- rmsnorm(q_h; q_norm.gamma, norm_eps), k_h likewise (per head, d_h wide)
//   per sequence b and head h:
//     S = q_h k_h^T / sqrt(d_h),  S_ij = -inf for j > i (causal)
//     A = softmax_rows(S),        o_h = A v_h
//   gated_attention (smallinit eq. 3-4): o_h <- sigmoid(u_q W_g^T)[:, h] (.) o_h
//   out = P_o(concat_h o_h)
//
// Backward, per sequence and head, with dO = dL/do_h (before the gate's scaling, see below):
//   dA_ij = dO_i . v_j,   dv_j = sum_i A_ij dO_i
//   dS_ij = A_ij (dA_ij - sum_j' A_ij' dA_ij')                 (softmax Jacobian)
//   dq_i = sum_j dS_ij k_j / sqrt(d_h),  dk_j = sum_i dS_ij q_i / sqrt(d_h)
// the gate, with s = sigmoid(G), G = u_q W_g^T, o~ the ungated heads, dY = dL/d(gated o):
//   dO_h = s_h dY_h,  dG_h = s_h (1 - s_h) (dY_h . o~_h),  dW_g = dG^T u_q,  du_q += dG W_g
// and qk_norm through rmsnorm.hpp's backward on the [B T H, d_h] view.
//
// Each (b, h) block is computed by one thread in a fixed order, so the result is
// bitwise the same for any thread count.
#pragma once

#include <cmath>
#include <scaleref/lm/projection.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <vector>

namespace scaleref::lm {

template <class S>
struct AttnCache {
  ProjCache<S> pq, pk, pv, po;
  Mat<S> q, k, v;                  // [B T, d] as the scores read them (after qk_norm)
  norm::rmsnorm::Cache<S> qn, kn;  // qk_norm, on the [B T H, d_h] view
  Mat<S> o;                        // [B T, d] concat_h A v_h, before the gate
  Mat<S> gate;                     // [B T, H] sigmoid(u_q W_g^T) (gated_attention)
  Mat<S> o_gated;                  // [B T, d] P_o's input when gated
  const Mat<S>& o_input() const { return gate.size() ? o_gated : o; }
};

// The input gradients, and the backward's temporaries (kept with them so that a
// repeated backward reuses their storage).
template <class S>
struct AttnGrads {
  Mat<S> du_q, du_k, du_v;
  Mat<S> dz, dO, dG, du_gate, dq, dk, dv;
  std::vector<Mat<S>> dS;  // [b H + h]: dL/dS of each block, [T, T]
};

namespace detail {

// [N, d] <-> [N H, d_h]: the same row-major data read as one row per (token, head).
template <class S>
Mat<S> reshaped(const Mat<S>& m, Eigen::Index rows, Eigen::Index cols) {
  return Eigen::Map<const Mat<S>>(m.data(), rows, cols);
}

inline bool attention_parallel(Eigen::Index blocks, Eigen::Index n, Eigen::Index d,
                               Eigen::Index t) {
  return blocks > 1 && static_cast<double>(n) * static_cast<double>(d) * static_cast<double>(t) >=
                           static_cast<double>(kParallelEntries);
}

}  // namespace detail

// out = Attn(u_q, u_k, u_v), written into out; probs receives the B H softmax
// matrices [T, T] (b H + h), zero above the diagonal.
template <class S>
void attention_forward(const Config& c, const ParamStore<S>& p, const Name& layer_prefix,
                       Eigen::Index B, Eigen::Index T, const Mat<S>& uq, const Mat<S>& uk,
                       const Mat<S>& uv, AttnCache<S>& k, std::vector<Mat<S>>& probs, Mat<S>& out) {
  using std::exp;
  using std::sqrt;
  const Name base = layer_prefix + "attn.";
  const Eigen::Index N = B * T, d = c.d_model, H = c.n_heads, dh = c.head_dim();
  proj_forward(c, p, Proj::q, base + "q.", uq, k.pq, k.q);
  proj_forward(c, p, Proj::k, base + "k.", uk, k.pk, k.k);
  proj_forward(c, p, Proj::v, base + "v.", uv, k.pv, k.v);
  if (c.qk_norm) {
    k.q = detail::reshaped(norm::rmsnorm::forward<S>({p.at(base + "q_norm.gamma")}, {c.norm_eps},
                                                     detail::reshaped(k.q, N * H, dh), &k.qn),
                           N, d);
    k.k = detail::reshaped(norm::rmsnorm::forward<S>({p.at(base + "k_norm.gamma")}, {c.norm_eps},
                                                     detail::reshaped(k.k, N * H, dh), &k.kn),
                           N, d);
  }
  k.o.resize(N, d);
  probs.resize(static_cast<std::size_t>(B * H));
  const S scale = S(1) / sqrt(S(static_cast<long>(dh)));
#pragma omp parallel for schedule(static) if (detail::attention_parallel(B * H, N, d, T))
  for (Eigen::Index bh = 0; bh < B * H; ++bh) {
    const Eigen::Index r0 = (bh / H) * T, c0 = (bh % H) * dh;
    Mat<S>& A = probs[static_cast<std::size_t>(bh)];
    // A = q_h k_h^T (all of it: a product is faster than the causal half by dot products)
    A.resize(T, T);
    A.noalias() = k.q.block(r0, c0, T, dh) * k.k.block(r0, c0, T, dh).transpose();
    for (Eigen::Index i = 0; i < T; ++i) {
      S m = 0;
      for (Eigen::Index j = 0; j <= i; ++j) {
        A(i, j) *= scale;
        if (j == 0 || A(i, j) > m) m = A(i, j);
      }
      S sum = 0;
      for (Eigen::Index j = 0; j <= i; ++j) {
        A(i, j) = exp(S(A(i, j) - m));
        sum += A(i, j);
      }
      const S inv = S(1) / sum;
      for (Eigen::Index j = 0; j <= i; ++j) A(i, j) *= inv;
      for (Eigen::Index j = i + 1; j < T; ++j) A(i, j) = 0;  // causal
    }
    k.o.block(r0, c0, T, dh).noalias() = A * k.v.block(r0, c0, T, dh);
  }
  k.gate.resize(0, 0);
  if (c.gated_attention) {
    matmul(uq, p.at(base + "gate_proj.W").transpose(), k.gate);
    k.o_gated.resize(N, d);
    for_each_row(N, d, [&](Eigen::Index i) {
      for (Eigen::Index h = 0; h < H; ++h) {
        k.gate(i, h) = detail::sigmoid(k.gate(i, h));
        k.o_gated.row(i).segment(h * dh, dh) = k.gate(i, h) * k.o.row(i).segment(h * dh, dh);
      }
    });
  }
  proj_forward(c, p, Proj::o, base + "o.", k.o_input(), k.po, out);
}

// The gradients of u_q, u_k, u_v from dout, into d; writes the parameter gradients into g.
template <class S>
void attention_backward(const Config& c, const ParamStore<S>& p, const Name& layer_prefix,
                        Eigen::Index B, Eigen::Index T, const Mat<S>& uq, const Mat<S>& uk,
                        const Mat<S>& uv, const AttnCache<S>& k, const std::vector<Mat<S>>& probs,
                        const Mat<S>& dout, ParamStore<S>& g, AttnGrads<S>& d) {
  const Name base = layer_prefix + "attn.";
  const Eigen::Index N = B * T, dm = c.d_model, H = c.n_heads, dh = c.head_dim();
  using std::sqrt;
  // out = P_o(o_in)
  d.dz = dout;
  proj_backward(c, p, Proj::o, base + "o.", k.o_input(), k.po, d.dz, d.dO, g);
  if (c.gated_attention) {
    // dG_h = s_h (1 - s_h) (dY_h . o~_h),  dO_h = s_h dY_h
    d.dG.resize(N, H);
    for_each_row(N, dm, [&](Eigen::Index i) {
      for (Eigen::Index h = 0; h < H; ++h) {
        const S s = k.gate(i, h);
        d.dG(i, h) =
            d.dO.row(i).segment(h * dh, dh).dot(k.o.row(i).segment(h * dh, dh)) * s * (S(1) - s);
        d.dO.row(i).segment(h * dh, dh) *= s;
      }
    });
    // G = u_q W_g^T:  dW_g = dG^T u_q,  du_q += dG W_g
    matmul(d.dG.transpose(), uq, g.at(base + "gate_proj.W"));
    matmul(d.dG, p.at(base + "gate_proj.W"), d.du_gate);
  }
  // softmax attention, block by block: dA = dO v^T, dS = A (.) (dA - rowsum(A (.) dA)),
  // dq = dS k / sqrt(d_h), dk = dS^T q / sqrt(d_h), dv = A^T dO
  d.dq.resize(N, dm);
  d.dk.resize(N, dm);
  d.dv.resize(N, dm);
  d.dS.resize(static_cast<std::size_t>(B * H));
  const S scale = S(1) / sqrt(S(static_cast<long>(dh)));
#pragma omp parallel for schedule(static) if (detail::attention_parallel(B * H, N, dm, T))
  for (Eigen::Index bh = 0; bh < B * H; ++bh) {
    const Eigen::Index r0 = (bh / H) * T, c0 = (bh % H) * dh;
    const Mat<S>& A = probs[static_cast<std::size_t>(bh)];
    Mat<S>& dS = d.dS[static_cast<std::size_t>(bh)];
    const auto dO = d.dO.block(r0, c0, T, dh);
    dS.resize(T, T);
    dS.noalias() = dO * k.v.block(r0, c0, T, dh).transpose();  // dA
    for (Eigen::Index i = 0; i < T; ++i) {
      S dot = 0;  // sum_j A_ij dA_ij
      for (Eigen::Index j = 0; j <= i; ++j) dot += A(i, j) * dS(i, j);
      for (Eigen::Index j = 0; j <= i; ++j) dS(i, j) = A(i, j) * (dS(i, j) - dot) * scale;
      for (Eigen::Index j = i + 1; j < T; ++j) dS(i, j) = 0;
    }
    d.dq.block(r0, c0, T, dh).noalias() = dS * k.k.block(r0, c0, T, dh);
    d.dk.block(r0, c0, T, dh).noalias() = dS.transpose() * k.q.block(r0, c0, T, dh);
    d.dv.block(r0, c0, T, dh).noalias() = A.transpose() * dO;
  }
  if (c.qk_norm) {  // rmsnorm.hpp backward on the [B T H, d_h] view
    auto rq = norm::rmsnorm::backward<S>({p.at(base + "q_norm.gamma")}, {c.norm_eps}, k.qn,
                                         detail::reshaped(d.dq, N * H, dh));
    auto rk = norm::rmsnorm::backward<S>({p.at(base + "k_norm.gamma")}, {c.norm_eps}, k.kn,
                                         detail::reshaped(d.dk, N * H, dh));
    g.at(base + "q_norm.gamma") = std::move(rq.dgamma);
    g.at(base + "k_norm.gamma") = std::move(rk.dgamma);
    d.dq = detail::reshaped(rq.dx, N, dm);
    d.dk = detail::reshaped(rk.dx, N, dm);
  }
  proj_backward(c, p, Proj::q, base + "q.", uq, k.pq, d.dq, d.du_q, g);
  proj_backward(c, p, Proj::k, base + "k.", uk, k.pk, d.dk, d.du_k, g);
  proj_backward(c, p, Proj::v, base + "v.", uv, k.pv, d.dv, d.du_v, g);
  if (c.gated_attention) detail::add_inplace(d.du_q, d.du_gate);
}

}  // namespace scaleref::lm
