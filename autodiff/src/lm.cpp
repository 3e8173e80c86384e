// The tiny LM on the tape: lm/config.hpp's model, written out from primitives
// in the order the config's header comment states it. Only the tape's own
// composites (norms.hpp's tape_rms_normalize) are reused; every norm, map and
// attention step is spelled out here from the formulas.
#include <cmath>
#include <map>
#include <scaleref/autodiff/lm.hpp>
#include <scaleref/autodiff/norms.hpp>
#include <string>

namespace scaleref::autodiff {

namespace {

using lm::Config;
using lm::NormKind;
using lm::Placement;
using lm::Proj;
using lm::ScaleVectors;

template <class S>
class LmTape {
 public:
  using V = Var<S>;

  LmTape(Tape<S>& t, const Config& c, const std::vector<V>& params, const lm::Batch& b)
      : t_(t), c_(c), params_(params), b_(b) {
    const std::vector<lm::ParamInfo> info = lm::layout(c);  // validates c
    lm::check_batch("autodiff::tape_lm_loss", c, b);
    require(params.size() == info.size(), "autodiff::tape_lm_loss", "expected ", info.size(),
            " parameters (lm::layout order), got ", params.size());
    for (std::size_t i = 0; i < info.size(); ++i) {
      const Mat<S>& v = t.value(params[i]);
      require(v.rows() == info[i].rows && v.cols() == info[i].cols, "autodiff::tape_lm_loss",
              "parameter '", info[i].name, "': expected [", info[i].rows, "x", info[i].cols,
              "], got ", shape_str(v));
      index_[info[i].name] = i;
    }
  }

  // loss = mean over counted positions of -log softmax(logits)[target]
  V loss() {
    V x = embed();
    for (long l = 0; l < c_.n_layers; ++l) x = layer(l, x);
    const V y = c_.final_norm ? block_norm("final_norm.", x) : x;
    const V head = c_.tie_embeddings ? p("embed") : p("head");
    const V logits = t_.matmul(y, t_.transpose(head));
    const V log_probs = t_.log(t_.row_softmax(logits));
    Mat<S> pick = Mat<S>::Zero(b_.rows(), c_.vocab);
    const S weight = S(-1) / S(b_.counted());
    for (long i = 0; i < b_.rows(); ++i)
      if (b_.targets[i] >= 0) pick(i, b_.targets[i]) = weight;
    return t_.sum(t_.mul(t_.constant(pick), log_probs));
  }

 private:
  bool has(const std::string& name) const { return index_.count(name) > 0; }
  V p(const std::string& name) const {
    const auto it = index_.find(name);
    require(it != index_.end(), "autodiff::tape_lm_loss", "no parameter named '", name, "'");
    return params_[it->second];
  }

  // ---- layout helpers: rows (one block per sequence) and columns (one per head) ----

  V rows(V x, long start, long count) {
    if (count == t_.value(x).rows()) return x;
    return t_.transpose(t_.slice_cols(t_.transpose(x), start, count));
  }
  V stack_rows(const std::vector<V>& parts) {
    if (parts.size() == 1) return parts[0];
    std::vector<V> columns;
    for (V part : parts) columns.push_back(t_.transpose(part));
    return t_.transpose(t_.concat_cols(columns));
  }
  V cols(V x, long start, long count) {
    return count == t_.value(x).cols() ? x : t_.slice_cols(x, start, count);
  }
  V join_cols(const std::vector<V>& parts) {
    return parts.size() == 1 ? parts[0] : t_.concat_cols(parts);
  }

  // ---- normalizations -----------------------------------------------------------------

  // x / sqrt(mean(x^2) + eps), row by row
  V rms_normalize(V x, double eps) { return tape_rms_normalize(t_, x, eps); }

  // (x - mean(x)) / sqrt(mean((x - mean x)^2) + eps), row by row
  V layer_normalize(V x, double eps) {
    const V centred = t_.add_colvec(x, t_.neg(t_.row_mean(x)));
    return t_.mul_colvec(centred,
                         t_.rsqrt(t_.add_constant(t_.row_mean(t_.square(centred)), S(eps))));
  }

  // Each of `heads` equal column blocks RMS-normalized on its own.
  V head_normalize(V z, long heads, double eps) {
    const long w = t_.value(z).cols() / heads;
    std::vector<V> parts;
    for (long h = 0; h < heads; ++h) parts.push_back(rms_normalize(cols(z, h * w, w), eps));
    return join_cols(parts);
  }

  // The block norm `norm` with the parameters under `prefix` (attn_norm., ffn_norm., final_norm.).
  V block_norm(const std::string& prefix, V x) {
    const double eps = c_.norm_eps;
    switch (c_.norm) {
      case NormKind::rmsnorm: {  // gamma (.) n(x); no gain where the strategy removes it
        const V n = rms_normalize(x, eps);
        return has(prefix + "gamma") ? t_.mul_rowvec(n, p(prefix + "gamma")) : n;
      }
      case NormKind::layernorm:  // gamma (.) (x - mu) / sigma + beta
        return t_.add_rowvec(t_.mul_rowvec(layer_normalize(x, eps), p(prefix + "gamma")),
                             p(prefix + "beta"));
      case NormKind::dyt:  // gamma (.) tanh(alpha x) + beta
        return t_.add_rowvec(
            t_.mul_rowvec(t_.tanh(t_.mul_scalar(x, p(prefix + "alpha"))), p(prefix + "gamma")),
            p(prefix + "beta"));
      case NormKind::seednorm:
        return seednorm(prefix, x, 1);
      case NormKind::seednorm_mh:
        return seednorm(prefix, x, c_.norm_heads);
    }
    fail("autodiff::tape_lm_loss: unknown norm");
  }

  // SeeDNorm (eq. 4; eq. 7 for heads > 1): [sigma(x_h . beta_h) alpha_h + gamma_h] (.) x_hat_h
  // head by head, sigma = tanh, x_hat = x / RMS(x) over the whole row.
  V seednorm(const std::string& prefix, V x, long heads) {
    const V x_hat = rms_normalize(x, c_.norm_eps);
    const V alpha = p(prefix + "alpha"), beta = p(prefix + "beta");
    const long w = c_.d_model / heads;
    std::vector<V> scale;
    for (long h = 0; h < heads; ++h) {
      const V s = t_.tanh(t_.matmul(cols(x, h * w, w), t_.transpose(cols(beta, h * w, w))));
      scale.push_back(t_.matmul(s, cols(alpha, h * w, w)));  // [N,1] x [1,w]: s alpha_h
    }
    return t_.add(t_.mul(join_cols(scale), x_hat), t_.mul_rowvec(x_hat, p(prefix + "gamma")));
  }

  // ---- projections ----------------------------------------------------------------------

  // P_r(u): u W^T, or the SDD layer alpha (.) sdd_norm(u V^T) (sdd eq. 2-3).
  V project(const std::string& base, V u) {
    if (has(base + "W")) return t_.matmul(u, t_.transpose(p(base + "W")));
    const V z = t_.matmul(u, t_.transpose(p(base + "V")));
    const V z_hat = c_.sdd_norm == lm::SddNorm::rmsnorm ? rms_normalize(z, c_.sdd_eps)
                                                        : layer_normalize(z, c_.sdd_eps);
    return t_.mul_rowvec(z_hat, p(base + "alpha"));
  }

  // The input of each map in `maps` (prefix "layers.<l>.attn." or ".ffn.") that reads the
  // block norm under `norm_prefix` at the residual x.
  std::vector<V> map_inputs(const std::string& norm_prefix, const std::string& prefix,
                            const std::vector<Proj>& maps, V x) {
    if (c_.placement != Placement::pre) return std::vector<V>(maps.size(), x);
    if (c_.norm != NormKind::rmsnorm || c_.scale_vectors == ScaleVectors::standard)
      return std::vector<V>(maps.size(), block_norm(norm_prefix, x));
    // A scale-vector strategy on the weightless RMS normalization n(x).
    const V n = rms_normalize(x, c_.norm_eps);
    std::vector<V> out;
    for (Proj r : maps) {
      switch (c_.scale_vectors) {
        case ScaleVectors::none:
        case ScaleVectors::ap:
          out.push_back(n);
          break;
        case ScaleVectors::standard:
        case ScaleVectors::dp:
        case ScaleVectors::dnp:  // the shared g
          out.push_back(t_.mul_rowvec(n, p(norm_prefix + "gamma")));
          break;
        case ScaleVectors::hg:  // one g_r per map
          out.push_back(t_.mul_rowvec(n, p(prefix + lm::proj_name(r) + ".g")));
          break;
        case ScaleVectors::md: {  // g = r u / RMS(u), RMS without eps
          const V g = t_.mul_scalar(rms_normalize(p(norm_prefix + "u"), 0.0), p(norm_prefix + "r"));
          out.push_back(t_.mul_rowvec(n, g));
          break;
        }
      }
    }
    return out;
  }

  // The output of map r on input u: P_r(u), then the Output-Norm scale vector
  // (AP, DP: a (.) P_r(u); DNP: a (.) n_h(P_r(u)) with `heads` blocks).
  V map_output(const std::string& prefix, Proj r, V u, long heads) {
    const std::string base = prefix + lm::proj_name(r) + ".";
    V z = project(base, u);
    if (!lm::reads_norm(r) || !lm::uses_output_a(c_.scale_vectors)) return z;
    if (c_.scale_vectors == ScaleVectors::dnp) z = head_normalize(z, heads, c_.norm_eps);
    return t_.mul_rowvec(z, p(base + "a"));
  }

  // ---- the model ------------------------------------------------------------------------

  // x_0 = E[tokens] + P[t]
  V embed() {
    Mat<S> tokens = Mat<S>::Zero(b_.rows(), c_.vocab);
    for (long i = 0; i < b_.rows(); ++i) tokens(i, b_.tokens[i]) = S(1);
    V x = t_.matmul(t_.constant(tokens), p("embed"));
    if (!c_.positions) return x;
    Mat<S> positions = Mat<S>::Zero(b_.rows(), c_.max_seq);
    for (long i = 0; i < b_.rows(); ++i) positions(i, i % b_.seq) = S(1);
    return t_.add(x, t_.matmul(t_.constant(positions), p("pos")));
  }

  V layer(long l, V x) {
    const std::string layer = "layers." + std::to_string(l) + ".";
    const std::string attn_norm = layer + "attn_norm.", ffn_norm = layer + "ffn_norm.";
    switch (c_.placement) {
      case Placement::pre:  // the maps read N_a(x), N_f(h) (map_inputs)
      case Placement::none: {
        const V h = t_.add(x, attention(layer, x));
        return t_.add(h, ffn(layer, h));
      }
      case Placement::post: {
        const V h = block_norm(attn_norm, t_.add(x, attention(layer, x)));
        return block_norm(ffn_norm, t_.add(h, ffn(layer, h)));
      }
    }
    fail("autodiff::tape_lm_loss: unknown placement");
  }

  // q_h <- rmsnorm(q_h; gamma [1, d_h]) head by head
  V qk_normalize(V q, V gamma) {
    const long dh = c_.head_dim();
    std::vector<V> parts;
    for (long h = 0; h < c_.n_heads; ++h)
      parts.push_back(t_.mul_rowvec(rms_normalize(cols(q, h * dh, dh), c_.norm_eps), gamma));
    return join_cols(parts);
  }

  // Attn(x) for the residual x (its maps read the attention norm under Pre-Norm).
  V attention(const std::string& layer, V x) {
    using std::sqrt;
    const std::string prefix = layer + "attn.";
    const std::vector<V> in =
        map_inputs(layer + "attn_norm.", prefix, {Proj::q, Proj::k, Proj::v}, x);
    const long H = c_.n_heads, dh = c_.head_dim(), T = b_.seq;
    V q = map_output(prefix, Proj::q, in[0], H);
    V k = map_output(prefix, Proj::k, in[1], H);
    const V v = map_output(prefix, Proj::v, in[2], H);
    if (c_.qk_norm) {
      q = qk_normalize(q, p(prefix + "q_norm.gamma"));
      k = qk_normalize(k, p(prefix + "k_norm.gamma"));
    }
    // One gate per head and token from the query map's input (smallinit eq. 3-4).
    V gate{};
    if (c_.gated_attention)
      gate = t_.sigmoid(t_.matmul(in[0], t_.transpose(p(prefix + "gate_proj.W"))));
    const S inv_sqrt_dh = S(1) / sqrt(S(dh));
    std::vector<V> heads;
    for (long h = 0; h < H; ++h) {
      const V qh = cols(q, h * dh, dh), kh = cols(k, h * dh, dh), vh = cols(v, h * dh, dh);
      std::vector<V> sequences;
      for (long s = 0; s < b_.batch; ++s) {  // A = softmax(causal(q_h k_h^T / sqrt(d_h)))
        const V scores =
            t_.scale(t_.matmul(rows(qh, s * T, T), t_.transpose(rows(kh, s * T, T))), inv_sqrt_dh);
        sequences.push_back(t_.matmul(t_.row_softmax(t_.causal_mask(scores)), rows(vh, s * T, T)));
      }
      V oh = stack_rows(sequences);
      if (c_.gated_attention) oh = t_.mul_colvec(oh, cols(gate, h, 1));
      heads.push_back(oh);
    }
    return map_output(prefix, Proj::o, join_cols(heads), H);
  }

  // FFN(x) = P_down(silu(P_gate(u)) (.) P_up(u)), SwiGLU
  V ffn(const std::string& layer, V x) {
    const std::string prefix = layer + "ffn.";
    const std::vector<V> in = map_inputs(layer + "ffn_norm.", prefix, {Proj::gate, Proj::up}, x);
    const V gate = map_output(prefix, Proj::gate, in[0], 1);
    const V up = map_output(prefix, Proj::up, in[1], 1);
    return map_output(prefix, Proj::down, t_.mul(t_.silu(gate), up), 1);
  }

  Tape<S>& t_;
  const Config& c_;
  const std::vector<V>& params_;
  const lm::Batch& b_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

template <class S>
Var<S> tape_lm_loss(Tape<S>& t, const lm::Config& c, const std::vector<Var<S>>& params,
                    const lm::Batch& b) {
  return LmTape<S>(t, c, params, b).loss();
}

template <class S>
std::pair<S, lm::ParamStore<S>> tape_lm_gradients(Tape<S>& t, const lm::Config& c,
                                                  const lm::ParamStore<S>& p, const lm::Batch& b) {
  t.clear();
  std::vector<Var<S>> leaves;
  leaves.reserve(p.size());
  for (const auto& v : p.values) leaves.push_back(t.leaf(v));
  const Var<S> loss = tape_lm_loss(t, c, leaves, b);
  lm::ParamStore<S> grads{p.info, t.gradients(loss, leaves)};
  return {t.value(loss)(0, 0), std::move(grads)};
}

template <class S>
std::pair<S, lm::ParamStore<S>> tape_lm_gradients(const lm::Config& c, const lm::ParamStore<S>& p,
                                                  const lm::Batch& b) {
  Tape<S> t;
  return tape_lm_gradients(t, c, p, b);
}

template Var<double> tape_lm_loss(Tape<double>&, const lm::Config&, const std::vector<Var<double>>&,
                                  const lm::Batch&);
template Var<Real50> tape_lm_loss(Tape<Real50>&, const lm::Config&, const std::vector<Var<Real50>>&,
                                  const lm::Batch&);
template std::pair<double, lm::ParamStore<double>> tape_lm_gradients(const lm::Config&,
                                                                     const lm::ParamStore<double>&,
                                                                     const lm::Batch&);
template std::pair<Real50, lm::ParamStore<Real50>> tape_lm_gradients(const lm::Config&,
                                                                     const lm::ParamStore<Real50>&,
                                                                     const lm::Batch&);

template std::pair<double, lm::ParamStore<double>> tape_lm_gradients(Tape<double>&,
                                                                     const lm::Config&,
                                                                     const lm::ParamStore<double>&,
                                                                     const lm::Batch&);
template std::pair<Real50, lm::ParamStore<Real50>> tape_lm_gradients(Tape<Real50>&,
                                                                     const lm::Config&,
                                                                     const lm::ParamStore<Real50>&,
                                                                     const lm::Batch&);

}  // namespace scaleref::autodiff
