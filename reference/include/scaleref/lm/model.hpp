// The tiny decoder-only transformer LM (the model lm/config.hpp specifies): its
// loss and the hand-derived gradient of the loss with respect to every
// parameter. Pieces, one idea per file: lm/block_norm.hpp (N_a, N_f, N_final and
// the scale-vector strategies), lm/attention.hpp, lm/ffn.hpp, lm/projection.hpp
// (plain, SDD, output-side scale vectors), lm/rowops.hpp (row-wise helpers).
//
// Forward, for a batch of B sequences of T tokens (rows b T + t):
//   x_0 = E[tokens] + P[t]                                  (P only with positions)
//   Pre-Norm:  h = x + Attn(N_a(x)),   x' = h + FFN(N_f(h))
//   Post-Norm: h = N_a(x + Attn(x)),   x' = N_f(h + FFN(h))
//   no norm:   h = x + Attn(x),        x' = h + FFN(h)
//   y = N_final(x_L) (final_norm) or x_L,  logits = y Head^T  (Head = E when tied)
//   loss = (1 / |C|) sum_{i in C} [lse(logits_i) - logits_i,target_i],  C = {i: target_i >= 0},
//   lse(z) = m + log sum_j exp(z_j - m), m = max_j z_j  (stable)
//
// Backward (reverse mode, by hand):
//   dlogits_i = (softmax(logits_i) - onehot(target_i)) / |C|  for i in C, 0 otherwise
//   dHead = dlogits^T y,   dy = dlogits Head
//   dx_L = N_final^T dy (block_norm_backward) or dy
//   per layer, from the top:
//     Pre:   dh = dx' + N_f^T(FFN^T dx'),          dx = dh + N_a^T(Attn^T dh)
//     Post:  ds' = N_f^T dx',  dh = ds' + FFN^T ds',  ds = N_a^T dh,  dx = ds + Attn^T ds
//     none:  dh = dx' + FFN^T dx',                 dx = dh + Attn^T dh
//     (a norm output read by several maps gets the sum of their input gradients;
//      HG's per-branch outputs get one each)
//   dE[token_i] += dx_0,i,  dP[t_i] += dx_0,i  (rows in order; tied: after dHead's share)
//
// Every reduction runs in a fixed order (scaleref::matmul, sum_rows, per-(b, h)
// attention blocks), so forward and backward are bitwise reproducible for any
// number of OpenMP threads.
#pragma once

#include <cmath>
#include <scaleref/error.hpp>
#include <scaleref/linalg.hpp>
#include <scaleref/lm/attention.hpp>
#include <scaleref/lm/batch.hpp>
#include <scaleref/lm/block_norm.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/ffn.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/lm/rowops.hpp>
#include <string>
#include <vector>

namespace scaleref::lm {

// What one decoder layer's backward needs.
template <class S>
struct LayerCache {
  BlockNormCache<S> attn_norm, ffn_norm;
  std::vector<Mat<S>> attn_in;  // Pre-Norm: N_a's output(s); Post / none: empty (x_l is read)
  std::vector<Mat<S>> ffn_in;   // Pre-Norm: N_f's output(s); Post / none: {h}
  AttnCache<S> attn;
  FfnCache<S> ffn;
};

template <class S>
struct Cache {
  // probes, filled by every forward with a cache (the trainer logs them):
  std::vector<Mat<S>> residual;                // x_0 (= embedding output) .. x_L, each [B T, d]
  std::vector<std::vector<Mat<S>>> attention;  // [layer][b H + h]: the T x T softmax probabilities
  std::vector<Mat<S>> block_output;            // per layer, x_{l+1} (a copy of residual[l + 1])
  Mat<S> logits;                               // [B T, vocab]
  // the rest of what backward needs:
  std::vector<LayerCache<S>> layers;
  BlockNormCache<S> final_norm;
  Mat<S> y;  // N_final(x_L) (final_norm only)
  long batch = 0, seq = 0;
};

namespace detail {

inline std::string layer_prefix(long l) { return "layers." + std::to_string(l) + "."; }

// Throws Error unless p has exactly the layout of c, with finite values of the
// stated shapes; the message names the parameter.
template <class S>
void check_params(const char* where, const Config& c, const ParamStore<S>& p) {
  const std::vector<ParamInfo> want = layout(c);
  require(p.info.size() == want.size() && p.values.size() == want.size(), where, "expected ",
          want.size(), " parameters for this config, got ", p.info.size(), " infos and ",
          p.values.size(), " values");
  for (std::size_t i = 0; i < want.size(); ++i) {
    require(p.info[i].name == want[i].name, where, "parameter ", i, ": expected '", want[i].name,
            "', got '", p.info[i].name, "'");
    const Mat<S>& v = p.values[i];
    require(v.rows() == want[i].rows && v.cols() == want[i].cols, where, "parameter '",
            want[i].name, "': expected [", want[i].rows, "x", want[i].cols, "], got ",
            shape_str(v));
    require(all_finite(v), where, "parameter '", want[i].name, "': expected finite values, got ",
            "a non-finite entry");
  }
}

inline bool shared_input(const Config& c) { return c.scale_vectors != ScaleVectors::hg; }

// The input of branch b among a norm's outputs (one shared, or one per branch).
template <class S>
const Mat<S>& branch(const std::vector<Mat<S>>& outs, std::size_t b) {
  return outs.size() == 1 ? outs[0] : outs[b];
}

// The gradients of a norm's output(s) from its branches' input gradients.
template <class S>
std::vector<Mat<S>> gather(std::size_t n_outputs, std::vector<Mat<S>> d) {
  if (n_outputs != 1) return d;
  for (std::size_t b = 1; b < d.size(); ++b) add_inplace(d[0], d[b]);
  d.resize(1);
  return d;
}

}  // namespace detail

// Mean cross-entropy over the counted targets of b (lm/batch.hpp); fills cache when given.
template <class S>
S forward(const Config& c, const ParamStore<S>& p, const Batch& b, Cache<S>* cache = nullptr) {
  using std::exp;
  using std::log;
  constexpr const char* where = "lm::forward";
  validate(c);
  check_batch(where, c, b);
  detail::check_params(where, c, p);
  Cache<S> local;
  Cache<S>& k = cache ? *cache : local;
  const Eigen::Index B = b.batch, T = b.seq, N = b.rows(), d = c.d_model, L = c.n_layers;
  k.batch = B;
  k.seq = T;
  k.residual.assign(1, Mat<S>(N, d));
  k.attention.assign(static_cast<std::size_t>(L), {});
  k.block_output.clear();
  k.layers.assign(static_cast<std::size_t>(L), LayerCache<S>{});

  // x_0 = E[tokens] + P[t]
  const Mat<S>& E = p.at("embed");
  {
    Mat<S>& x0 = k.residual[0];
    const Mat<S>& P = c.positions ? p.at("pos") : E;  // P unread without positions
    for_each_row(N, d, [&](Eigen::Index i) {
      x0.row(i) = E.row(b.tokens[static_cast<std::size_t>(i)]);
      if (c.positions) x0.row(i) += P.row(i % T);
    });
  }

  for (Eigen::Index l = 0; l < L; ++l) {
    const std::string lp = detail::layer_prefix(l);
    LayerCache<S>& lc = k.layers[static_cast<std::size_t>(l)];
    std::vector<Mat<S>>& probs = k.attention[static_cast<std::size_t>(l)];
    const Mat<S>& x = k.residual.back();
    Mat<S> next;
    if (c.placement == Placement::pre) {
      lc.attn_in = block_norm_forward(c, p, lp, NormSite::attn, x, lc.attn_norm);
      Mat<S> h = attention_forward(c, p, lp, B, T, detail::branch(lc.attn_in, 0),
                                   detail::branch(lc.attn_in, 1), detail::branch(lc.attn_in, 2),
                                   lc.attn, probs);
      detail::add_inplace(h, x);
      lc.ffn_in = block_norm_forward(c, p, lp, NormSite::ffn, h, lc.ffn_norm);
      next =
          ffn_forward(c, p, lp, detail::branch(lc.ffn_in, 0), detail::branch(lc.ffn_in, 1), lc.ffn);
      detail::add_inplace(next, h);
    } else {
      Mat<S> s = attention_forward(c, p, lp, B, T, x, x, x, lc.attn, probs);
      detail::add_inplace(s, x);
      if (c.placement == Placement::post) {
        lc.ffn_in = block_norm_forward(c, p, lp, NormSite::attn, s, lc.attn_norm);
      } else {
        lc.ffn_in.assign(1, std::move(s));
      }
      const Mat<S>& h = lc.ffn_in[0];
      Mat<S> s2 = ffn_forward(c, p, lp, h, h, lc.ffn);
      detail::add_inplace(s2, h);
      next = c.placement == Placement::post
                 ? std::move(block_norm_forward(c, p, lp, NormSite::ffn, s2, lc.ffn_norm)[0])
                 : std::move(s2);
    }
    k.block_output.push_back(next);
    k.residual.push_back(std::move(next));
  }

  // y = N_final(x_L), logits = y Head^T
  if (c.final_norm)
    k.y = std::move(
        block_norm_forward(c, p, "", NormSite::final, k.residual.back(), k.final_norm)[0]);
  else
    k.y.resize(0, 0);
  const Mat<S>& y = c.final_norm ? k.y : k.residual.back();
  const Mat<S>& head = c.tie_embeddings ? E : p.at("head");
  k.logits = matmul<S>(y, detail::transposed(head));

  // loss = mean over counted rows of lse(logits_i) - logits_i[target_i]
  const Eigen::Index V = c.vocab;
  Mat<S> row_loss = Mat<S>::Zero(N, 1);
  for_each_row(N, V, [&](Eigen::Index i) {
    const int t = b.targets[static_cast<std::size_t>(i)];
    if (t < 0) return;
    S m = k.logits(i, 0);
    for (Eigen::Index j = 1; j < V; ++j)
      if (k.logits(i, j) > m) m = k.logits(i, j);
    S sum = 0;
    for (Eigen::Index j = 0; j < V; ++j) sum += exp(S(k.logits(i, j) - m));
    row_loss(i, 0) = m + log(sum) - k.logits(i, t);
  });
  S total = 0;
  for (Eigen::Index i = 0; i < N; ++i) total += row_loss(i, 0);  // row order
  return total / S(b.counted());
}

// d loss / d every parameter, in p's layout, from a cache filled by forward(c, p, b, &cache).
template <class S>
ParamStore<S> backward(const Config& c, const ParamStore<S>& p, const Batch& b, const Cache<S>& k) {
  using std::exp;
  constexpr const char* where = "lm::backward";
  validate(c);
  check_batch(where, c, b);
  detail::check_params(where, c, p);
  const Eigen::Index B = b.batch, T = b.seq, N = b.rows(), L = c.n_layers, V = c.vocab;
  require(k.batch == B && k.seq == T && k.logits.rows() == N && k.logits.cols() == V &&
              static_cast<Eigen::Index>(k.layers.size()) == L &&
              static_cast<Eigen::Index>(k.residual.size()) == L + 1,
          where, "the cache does not come from forward on this batch and config (expected logits [",
          N, "x", V, "], got ", shape_str(k.logits), "): pass a Cache to forward first");
  ParamStore<S> g = p.zeros_like();

  // dlogits_i = (softmax(logits_i) - onehot(target_i)) / |C|
  const S inv_count = S(1) / S(b.counted());
  Mat<S> dlogits = Mat<S>::Zero(N, V);
  for_each_row(N, V, [&](Eigen::Index i) {
    const int t = b.targets[static_cast<std::size_t>(i)];
    if (t < 0) return;
    S m = k.logits(i, 0);
    for (Eigen::Index j = 1; j < V; ++j)
      if (k.logits(i, j) > m) m = k.logits(i, j);
    S sum = 0;
    for (Eigen::Index j = 0; j < V; ++j) {
      dlogits(i, j) = exp(S(k.logits(i, j) - m));
      sum += dlogits(i, j);
    }
    const S scale = inv_count / sum;
    dlogits.row(i) *= scale;
    dlogits(i, t) -= inv_count;
  });

  // logits = y Head^T:  dHead = dlogits^T y,  dy = dlogits Head
  const Mat<S>& y = c.final_norm ? k.y : k.residual.back();
  const Mat<S>& E = p.at("embed");
  const Mat<S>& head = c.tie_embeddings ? E : p.at("head");
  g.at(c.tie_embeddings ? "embed" : "head") = matmul<S>(detail::transposed(dlogits), y);
  Mat<S> dx = matmul<S>(dlogits, head);
  if (c.final_norm) dx = block_norm_backward(c, p, "", NormSite::final, k.final_norm, {dx}, g);

  for (Eigen::Index l = L - 1; l >= 0; --l) {
    const std::string lp = detail::layer_prefix(l);
    const LayerCache<S>& lc = k.layers[static_cast<std::size_t>(l)];
    const std::vector<Mat<S>>& probs = k.attention[static_cast<std::size_t>(l)];
    const Mat<S>& x = k.residual[static_cast<std::size_t>(l)];
    if (c.placement == Placement::pre) {
      // x' = h + FFN(N_f(h)):  dh = dx' + N_f^T(FFN^T dx')
      FfnGrads<S> f = ffn_backward(c, p, lp, detail::branch(lc.ffn_in, 0),
                                   detail::branch(lc.ffn_in, 1), lc.ffn, dx, g);
      Mat<S> dh = std::move(dx);
      detail::add_inplace(
          dh,
          block_norm_backward(
              c, p, lp, NormSite::ffn, lc.ffn_norm,
              detail::gather<S>(lc.ffn_in.size(), {std::move(f.du_gate), std::move(f.du_up)}), g));
      // h = x + Attn(N_a(x)):  dx = dh + N_a^T(Attn^T dh)
      AttnGrads<S> a = attention_backward(c, p, lp, B, T, detail::branch(lc.attn_in, 0),
                                          detail::branch(lc.attn_in, 1),
                                          detail::branch(lc.attn_in, 2), lc.attn, probs, dh, g);
      dx = std::move(dh);
      detail::add_inplace(
          dx, block_norm_backward(
                  c, p, lp, NormSite::attn, lc.attn_norm,
                  detail::gather<S>(lc.attn_in.size(),
                                    {std::move(a.du_q), std::move(a.du_k), std::move(a.du_v)}),
                  g));
    } else {
      // Post: x' = N_f(s'), s' = h + FFN(h);  none: x' = s' (no N_f)
      Mat<S> ds2 = c.placement == Placement::post
                       ? block_norm_backward(c, p, lp, NormSite::ffn, lc.ffn_norm, {dx}, g)
                       : std::move(dx);
      const Mat<S>& h = lc.ffn_in[0];
      FfnGrads<S> f = ffn_backward(c, p, lp, h, h, lc.ffn, ds2, g);
      // dh = ds' + FFN^T ds' (gate and up both read h)
      detail::add_inplace(ds2, f.du_gate);
      detail::add_inplace(ds2, f.du_up);
      // Post: h = N_a(s), s = x + Attn(x);  none: h = s
      Mat<S> ds = c.placement == Placement::post
                      ? block_norm_backward(c, p, lp, NormSite::attn, lc.attn_norm, {ds2}, g)
                      : std::move(ds2);
      AttnGrads<S> a = attention_backward(c, p, lp, B, T, x, x, x, lc.attn, probs, ds, g);
      // dx = ds + Attn^T ds (q, k, v all read x)
      detail::add_inplace(ds, a.du_q);
      detail::add_inplace(ds, a.du_k);
      detail::add_inplace(ds, a.du_v);
      dx = std::move(ds);
    }
  }

  // x_0 = E[tokens] + P[t]: scatter-add in row order (after the tied head's share)
  Mat<S>& dE = g.at("embed");
  for (Eigen::Index i = 0; i < N; ++i) dE.row(b.tokens[static_cast<std::size_t>(i)]) += dx.row(i);
  if (c.positions) {
    Mat<S>& dP = g.at("pos");
    for (Eigen::Index i = 0; i < N; ++i) dP.row(i % T) += dx.row(i);
  }
  return g;
}

}  // namespace scaleref::lm
