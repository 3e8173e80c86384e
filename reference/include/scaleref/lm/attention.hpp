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
  Mat<S> q, k, v;  // [B T, d] as the scores read them (after qk_norm)
  // qk_norm, on the [B T H, d_h] view: the gains, the heads' rows in and out, the caches
  norm::rmsnorm::Params<S> q_gain, k_gain;
  Mat<S> q_heads, k_heads, q_normed, k_normed;
  norm::rmsnorm::Cache<S> qn, kn;
  Mat<S> o;        // [B T, d] concat_h A v_h, before the gate
  Mat<S> gate;     // [B T, H] sigmoid(u_q W_g^T) (gated_attention)
  Mat<S> o_gated;  // [B T, d] P_o's input when gated
  const Mat<S>& o_input() const { return gate.size() ? o_gated : o; }
};

// The input gradients, and the backward's temporaries (kept with them so that a
// repeated backward reuses their storage).
template <class S>
struct AttnGrads {
  Mat<S> du_q, du_k, du_v;
  Mat<S> dz, dO, dG, du_gate, dq, dk, dv;
  std::vector<Mat<S>> dS;                    // [b H + h]: dL/dS of each block, [T, T]
  Mat<S> dq_heads, dk_heads;                 // qk_norm: dq, dk on the [B T H, d_h] view
  norm::rmsnorm::Grads<S> dq_norm, dk_norm;  // qk_norm's gradients
};

namespace detail {

// dst = src's row-major data read as [rows, cols] ([N, d] <-> [N H, d_h]: one
// row per token or one per (token, head)); dst keeps its storage.
template <class S>
void reshape_into(const Mat<S>& src, Eigen::Index rows, Eigen::Index cols, Mat<S>& dst) {
  dst = Eigen::Map<const Mat<S>>(src.data(), rows, cols);
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
  using std::sqrt;
  const Name base = layer_prefix + "attn.";
  const Eigen::Index N = B * T, d = c.d_model, H = c.n_heads, dh = c.head_dim();
  proj_forward(c, p, Proj::q, base + "q.", uq, k.pq, k.q);
  proj_forward(c, p, Proj::k, base + "k.", uk, k.pk, k.k);
  proj_forward(c, p, Proj::v, base + "v.", uv, k.pv, k.v);
  if (c.qk_norm) {
    k.q_gain.gamma = p.at(base + "q_norm.gamma");
    k.k_gain.gamma = p.at(base + "k_norm.gamma");
    detail::reshape_into(k.q, N * H, dh, k.q_heads);
    detail::reshape_into(k.k, N * H, dh, k.k_heads);
    norm::rmsnorm::forward<S>(k.q_gain, {c.norm_eps}, k.q_heads, k.q_normed, k.qn);
    norm::rmsnorm::forward<S>(k.k_gain, {c.norm_eps}, k.k_heads, k.k_normed, k.kn);
    detail::reshape_into(k.q_normed, N, d, k.q);
    detail::reshape_into(k.k_normed, N, d, k.k);
  }
  k.o.resize(N, d);
  probs.resize(static_cast<std::size_t>(B * H));
  const S scale = S(1) / sqrt(S(static_cast<long>(dh)));
  parallel_for(B * H, detail::attention_parallel(B * H, N, d, T), [&](Eigen::Index bh) {
    const Eigen::Index r0 = (bh / H) * T, c0 = (bh % H) * dh;
    Mat<S>& A = probs[static_cast<std::size_t>(bh)];
    // A = q_h k_h^T (all of it: a product is faster than the causal half by dot products)
    A.resize(T, T);
    A.noalias() = k.q.block(r0, c0, T, dh) * k.k.block(r0, c0, T, dh).transpose();
    for (Eigen::Index i = 0; i < T; ++i) {
      auto row = A.row(i).head(i + 1).array();  // the keys j <= i
      row *= scale;
      row = (row - row.maxCoeff()).exp();
      row /= row.sum();
      A.row(i).tail(T - 1 - i).setZero();  // causal
    }
    k.o.block(r0, c0, T, dh).noalias() = A * k.v.block(r0, c0, T, dh);
  });
  if (!c.gated_attention) k.gate.resize(0, 0);  // empty: o_input() is o
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
  parallel_for(B * H, detail::attention_parallel(B * H, N, dm, T), [&](Eigen::Index bh) {
    const Eigen::Index r0 = (bh / H) * T, c0 = (bh % H) * dh;
    const Mat<S>& A = probs[static_cast<std::size_t>(bh)];
    Mat<S>& dS = d.dS[static_cast<std::size_t>(bh)];
    const auto dO = d.dO.block(r0, c0, T, dh);
    dS.resize(T, T);
    dS.noalias() = dO * k.v.block(r0, c0, T, dh).transpose();  // dA
    for (Eigen::Index i = 0; i < T; ++i) {
      const auto a = A.row(i).head(i + 1).array();  // the keys j <= i
      auto ds = dS.row(i).head(i + 1).array();
      const S dot = (a * ds).sum();  // sum_j A_ij dA_ij
      ds = a * (ds - dot) * scale;
      dS.row(i).tail(T - 1 - i).setZero();
    }
    d.dq.block(r0, c0, T, dh).noalias() = dS * k.k.block(r0, c0, T, dh);
    d.dk.block(r0, c0, T, dh).noalias() = dS.transpose() * k.q.block(r0, c0, T, dh);
    d.dv.block(r0, c0, T, dh).noalias() = A.transpose() * dO;
  });
  if (c.qk_norm) {  // rmsnorm.hpp backward on the [B T H, d_h] view
    detail::reshape_into(d.dq, N * H, dh, d.dq_heads);
    detail::reshape_into(d.dk, N * H, dh, d.dk_heads);
    norm::rmsnorm::backward<S>(k.q_gain, {c.norm_eps}, k.qn, d.dq_heads, d.dq_norm);
    norm::rmsnorm::backward<S>(k.k_gain, {c.norm_eps}, k.kn, d.dk_heads, d.dk_norm);
    g.at(base + "q_norm.gamma") = d.dq_norm.dgamma;
    g.at(base + "k_norm.gamma") = d.dk_norm.dgamma;
    detail::reshape_into(d.dq_norm.dx, N, dm, d.dq);
    detail::reshape_into(d.dk_norm.dx, N, dm, d.dk);
  }
  proj_backward(c, p, Proj::q, base + "q.", uq, k.pq, d.dq, d.du_q, g);
  proj_backward(c, p, Proj::k, base + "k.", uk, k.pk, d.dk, d.du_k, g);
  proj_backward(c, p, Proj::v, base + "v.", uv, k.pv, d.dv, d.du_v, g);
  if (c.gated_attention) detail::add_inplace(d.du_q, d.du_gate);
}

}  // namespace scaleref::lm
