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

#include <array>
#include <charconv>
#include <cmath>
#include <initializer_list>
#include <scaleref/error.hpp>
#include <scaleref/linalg.hpp>
#include <scaleref/lm/attention.hpp>
#include <scaleref/lm/batch.hpp>
#include <scaleref/lm/block_norm.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/ffn.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/lm/rowops.hpp>
#include <span>
#include <string_view>
#include <utility>
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
  Mat<S> h;                       // Pre-Norm: x + Attn(N_a(x)); Post / none: unused
  std::vector<Mat<S>> post_norm;  // Post-Norm: N_f's output before it becomes x_{l+1}
};

// The backward's temporaries: one set, reused by every layer in turn.
template <class S>
struct BackwardScratch {
  Mat<S> dlogits, dx, dnorm;
  // per norm site (their output counts differ under HG): the gradients of the
  // norm's output(s), and the norm's temporaries
  std::vector<Mat<S>> attn_branches, ffn_branches;
  BlockNormGrads<S> attn_norm, ffn_norm, final_norm;
  AttnGrads<S> attn;
  FfnGrads<S> ffn;
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
  // Storage reused between steps, not part of forward's result: forward's
  // per-row losses and final norm output, and backward's temporaries (mutable:
  // backward reads the cache as const).
  Mat<S> row_loss;
  std::vector<Mat<S>> final_out;
  mutable BackwardScratch<S> scratch;
};

namespace detail {

inline Name layer_prefix(long l) {
  std::array<char, 24> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), l).ptr;
  return Name("layers.") +
         std::string_view(digits.data(), static_cast<std::size_t>(end - digits.data())) + ".";
}

// Throws Error unless p has exactly the layout of c, with finite values of the
// stated shapes; the message names the parameter.
template <class S>
void check_params(const char* where, const Config& c, const ParamStore<S>& p) {
  // layout(c) builds every name; a step checks against the one built for its config
  thread_local Config last;
  thread_local std::vector<ParamInfo> want = layout(last);
  if (!(c == last)) {
    want = layout(c);
    last = c;
  }
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

// The gradients of a norm's output(s) from its branches' input gradients, into
// out: their sum when the branches share one output, else one each.
template <class S>
void gather(std::size_t n_outputs, std::initializer_list<const Mat<S>*> d,
            std::vector<Mat<S>>& out) {
  if (n_outputs == 1) {
    out.resize(1);
    out[0] = **d.begin();
    for (auto it = d.begin() + 1; it != d.end(); ++it) add_inplace(out[0], **it);
    return;
  }
  out.resize(d.size());
  std::size_t b = 0;
  for (const Mat<S>* m : d) out[b++] = *m;
}

}  // namespace detail

// Mean cross-entropy over the counted targets of b (lm/batch.hpp); fills cache
// when given. A cache kept between calls keeps its storage (types.hpp).
template <class S>
S forward(const Config& c, const ParamStore<S>& p, const Batch& b, Cache<S>* cache = nullptr) {
  using std::log;
  constexpr const char* where = "lm::forward";
  validate(c);
  check_batch(where, c, b);
  detail::check_params(where, c, p);
  Cache<S> local;
  Cache<S>& k = cache ? *cache : local;
  const Eigen::Index B = b.batch, T = b.seq, N = b.rows(), d = c.d_model, L = c.n_layers;
  const auto Ls = static_cast<std::size_t>(L);
  k.batch = B;
  k.seq = T;
  k.residual.resize(Ls + 1);
  k.attention.resize(Ls);
  k.block_output.resize(Ls);
  k.layers.resize(Ls);

  // x_0 = E[tokens] + P[t]
  const Mat<S>& E = p.at("embed");
  {
    Mat<S>& x0 = k.residual[0];
    x0.resize(N, d);
    const Mat<S>& P = c.positions ? p.at("pos") : E;  // P unread without positions
    for_each_row(N, d, [&](Eigen::Index i) {
      x0.row(i) = E.row(b.tokens[static_cast<std::size_t>(i)]);
      if (c.positions) x0.row(i) += P.row(i % T);
    });
  }

  for (Eigen::Index l = 0; l < L; ++l) {
    const auto ls = static_cast<std::size_t>(l);
    const Name lp = detail::layer_prefix(l);
    LayerCache<S>& lc = k.layers[ls];
    std::vector<Mat<S>>& probs = k.attention[ls];
    const Mat<S>& x = k.residual[ls];
    Mat<S>& next = k.residual[ls + 1];
    if (c.placement == Placement::pre) {
      block_norm_forward(c, p, lp, NormSite::attn, x, lc.attn_norm, lc.attn_in);
      attention_forward(c, p, lp, B, T, detail::branch(lc.attn_in, 0),
                        detail::branch(lc.attn_in, 1), detail::branch(lc.attn_in, 2), lc.attn,
                        probs, lc.h);
      detail::add_inplace(lc.h, x);
      block_norm_forward(c, p, lp, NormSite::ffn, lc.h, lc.ffn_norm, lc.ffn_in);
      ffn_forward(c, p, lp, detail::branch(lc.ffn_in, 0), detail::branch(lc.ffn_in, 1), lc.ffn,
                  next);
      detail::add_inplace(next, lc.h);
    } else {
      lc.attn_in.clear();
      lc.ffn_in.resize(1);
      Mat<S>& s = lc.ffn_in[0];  // s = x + Attn(x); h = N_a(s) (Post) or s (none)
      attention_forward(c, p, lp, B, T, x, x, x, lc.attn, probs, s);
      detail::add_inplace(s, x);
      if (c.placement == Placement::post) {
        block_norm_forward(c, p, lp, NormSite::attn, s, lc.attn_norm, lc.post_norm);
        s = lc.post_norm[0];
      }
      const Mat<S>& h = lc.ffn_in[0];
      ffn_forward(c, p, lp, h, h, lc.ffn, next);  // s' = h + FFN(h)
      detail::add_inplace(next, h);
      if (c.placement == Placement::post) {
        block_norm_forward(c, p, lp, NormSite::ffn, next, lc.ffn_norm, lc.post_norm);
        next = lc.post_norm[0];
      }
    }
    k.block_output[ls] = next;
  }

  // y = N_final(x_L), logits = y Head^T
  if (c.final_norm) {
    block_norm_forward(c, p, "", NormSite::final, k.residual.back(), k.final_norm, k.final_out);
    k.y = k.final_out[0];
  } else {
    k.y.resize(0, 0);
  }
  const Mat<S>& y = c.final_norm ? k.y : k.residual.back();
  const Mat<S>& head = c.tie_embeddings ? E : p.at("head");
  matmul(y, head.transpose(), k.logits);

  // loss = mean over counted rows of lse(logits_i) - logits_i[target_i]
  const Eigen::Index V = c.vocab;
  k.row_loss.setZero(N, 1);
  for_each_row(N, V, [&](Eigen::Index i) {
    const int t = b.targets[static_cast<std::size_t>(i)];
    if (t < 0) return;
    const auto z = k.logits.row(i).array();
    const S m = z.maxCoeff();
    k.row_loss(i, 0) = m + log(S((z - m).exp().sum())) - z(t);
  });
  S total = 0;
  for (Eigen::Index i = 0; i < N; ++i) total += k.row_loss(i, 0);  // row order
  return total / S(b.counted());
}

// d loss / d every parameter, in p's layout, from a cache filled by forward(c, p, b, &cache),
// written into g (given p's layout on the first call, reused after).
template <class S>
void backward(const Config& c, const ParamStore<S>& p, const Batch& b, const Cache<S>& k,
              ParamStore<S>& g) {
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
  g.zero_like(p);
  BackwardScratch<S>& s = k.scratch;
  Mat<S>& dx = s.dx;  // the gradient of the residual stream, from the top down

  // dlogits_i = (softmax(logits_i) - onehot(target_i)) / |C|
  const S inv_count = S(1) / S(b.counted());
  Mat<S>& dlogits = s.dlogits;
  dlogits.setZero(N, V);
  for_each_row(N, V, [&](Eigen::Index i) {
    const int t = b.targets[static_cast<std::size_t>(i)];
    if (t < 0) return;
    const auto z = k.logits.row(i).array();
    auto dz = dlogits.row(i).array();
    dz = (z - z.maxCoeff()).exp();
    dz *= inv_count / dz.sum();
    dz(t) -= inv_count;
  });

  // logits = y Head^T:  dHead = dlogits^T y,  dy = dlogits Head
  const Mat<S>& y = c.final_norm ? k.y : k.residual.back();
  const Mat<S>& E = p.at("embed");
  const Mat<S>& head = c.tie_embeddings ? E : p.at("head");
  matmul(dlogits.transpose(), y, g.at(c.tie_embeddings ? "embed" : "head"));
  matmul(dlogits, head, dx);
  if (c.final_norm) {
    block_norm_backward(c, p, "", NormSite::final, k.final_norm, std::span<const Mat<S>>(&dx, 1), g,
                        s.final_norm, s.dnorm);
    std::swap(dx, s.dnorm);
  }

  for (Eigen::Index l = L - 1; l >= 0; --l) {
    const auto ls = static_cast<std::size_t>(l);
    const Name lp = detail::layer_prefix(l);
    const LayerCache<S>& lc = k.layers[ls];
    const std::vector<Mat<S>>& probs = k.attention[ls];
    const Mat<S>& x = k.residual[ls];
    if (c.placement == Placement::pre) {
      // x' = h + FFN(N_f(h)):  dh = dx' + N_f^T(FFN^T dx')
      ffn_backward(c, p, lp, detail::branch(lc.ffn_in, 0), detail::branch(lc.ffn_in, 1), lc.ffn, dx,
                   g, s.ffn);
      detail::gather<S>(lc.ffn_in.size(), {&s.ffn.du_gate, &s.ffn.du_up}, s.ffn_branches);
      block_norm_backward(c, p, lp, NormSite::ffn, lc.ffn_norm,
                          std::span<const Mat<S>>(s.ffn_branches), g, s.ffn_norm, s.dnorm);
      detail::add_inplace(dx, s.dnorm);  // dx now holds dh
      // h = x + Attn(N_a(x)):  dx = dh + N_a^T(Attn^T dh)
      attention_backward(c, p, lp, B, T, detail::branch(lc.attn_in, 0),
                         detail::branch(lc.attn_in, 1), detail::branch(lc.attn_in, 2), lc.attn,
                         probs, dx, g, s.attn);
      detail::gather<S>(lc.attn_in.size(), {&s.attn.du_q, &s.attn.du_k, &s.attn.du_v},
                        s.attn_branches);
      block_norm_backward(c, p, lp, NormSite::attn, lc.attn_norm,
                          std::span<const Mat<S>>(s.attn_branches), g, s.attn_norm, s.dnorm);
      detail::add_inplace(dx, s.dnorm);
    } else {
      // Post: x' = N_f(s'), s' = h + FFN(h);  none: x' = s' (no N_f)
      if (c.placement == Placement::post) {
        block_norm_backward(c, p, lp, NormSite::ffn, lc.ffn_norm, std::span<const Mat<S>>(&dx, 1),
                            g, s.ffn_norm, s.dnorm);
        std::swap(dx, s.dnorm);  // dx now holds ds'
      }
      const Mat<S>& h = lc.ffn_in[0];
      ffn_backward(c, p, lp, h, h, lc.ffn, dx, g, s.ffn);
      // dh = ds' + FFN^T ds' (gate and up both read h)
      detail::add_inplace(dx, s.ffn.du_gate);
      detail::add_inplace(dx, s.ffn.du_up);
      // Post: h = N_a(s), s = x + Attn(x);  none: h = s
      if (c.placement == Placement::post) {
        block_norm_backward(c, p, lp, NormSite::attn, lc.attn_norm, std::span<const Mat<S>>(&dx, 1),
                            g, s.attn_norm, s.dnorm);
        std::swap(dx, s.dnorm);  // dx now holds ds
      }
      attention_backward(c, p, lp, B, T, x, x, x, lc.attn, probs, dx, g, s.attn);
      // dx = ds + Attn^T ds (q, k, v all read x)
      detail::add_inplace(dx, s.attn.du_q);
      detail::add_inplace(dx, s.attn.du_k);
      detail::add_inplace(dx, s.attn.du_v);
    }
  }

  // x_0 = E[tokens] + P[t]: scatter-add in row order (after the tied head's share)
  Mat<S>& dE = g.at("embed");
  for (Eigen::Index i = 0; i < N; ++i) dE.row(b.tokens[static_cast<std::size_t>(i)]) += dx.row(i);
  if (c.positions) {
    Mat<S>& dP = g.at("pos");
    for (Eigen::Index i = 0; i < N; ++i) dP.row(i % T) += dx.row(i);
  }
}

template <class S>
ParamStore<S> backward(const Config& c, const ParamStore<S>& p, const Batch& b, const Cache<S>& k) {
  ParamStore<S> g;
  backward(c, p, b, k, g);
  return g;
}

}  // namespace scaleref::lm
