// The tiny decoder-only transformer LM: its configuration, and the model it
// describes. Every switch is named as the papers name it; lm/params.hpp lays
// out and initializes the parameters, lm/model.hpp computes the loss and its
// hand-derived gradient, autodiff's lm formulation rebuilds the same model from
// tape primitives.
//
// THE MODEL (rows are tokens: a batch of B sequences of T tokens is [B T, d],
// row b T + t; d = d_model, H = n_heads, d_h = d / H; layers l = 0 .. L-1,
// named layers.<l> and passed to the initializers as l + 1):
//
//   x_0 = E[tokens] + P[t]                        token embedding E [vocab, d],
//                                                 learned positions P [max_seq, d]
//                                                 (positions = true)
//   Pre-Norm  (placement = pre):   h = x + Attn(N_a(x)),    x' = h + FFN(N_f(h))
//   Post-Norm (placement = post):  h = N_a(x + Attn(x)),    x' = N_f(h + FFN(h))
//   no norm   (placement = none):  h = x + Attn(x),         x' = h + FFN(h)
//   y = N_final(x_L) when final_norm (default: on for pre, off otherwise)
//   logits = y Head^T,  Head [vocab, d] (= E when tie_embeddings)
//   loss = mean over positions with target >= 0 of -log softmax(logits)[target]
//          (target -1 marks a position that does not count, PyTorch's ignore_index)
//
// N_a, N_f, N_final are the block norm `norm`: rmsnorm (gamma), layernorm
// (gamma, beta), dyt (alpha, gamma, beta), seednorm (alpha, beta, gamma; tanh,
// eq. 4), seednorm_mh (multi-head SeeDNorm, eq. 7, norm_heads heads), each with
// the module's own forward / backward (scaleref/norm/*.hpp); norm_eps is the
// eps of RMSNorm, LayerNorm and SeeDNorm.
//
//   Attn(u): q = P_q(u), k = P_k(u), v = P_v(u)            each [B T, d]
//            qk_norm: q_h <- rmsnorm(q_h; q_norm.gamma [1, d_h], norm_eps) per head,
//                     k_h likewise with k_norm.gamma
//            per sequence and head: A = softmax(causal(q_h k_h^T / sqrt(d_h))), o_h = A v_h
//            gated_attention (smallinit eq. 3-4, one gate per head and token):
//                     o_h <- sigmoid(u_g W_g^T)[:, h] (.) o_h,  W_g [H, d], u_g the input
//                     of the query map (the gate is query-dependent)
//            out = P_o(concat_h o_h)
//   FFN(u):  out = P_down(silu(P_gate(u)) (.) P_up(u))      SwiGLU, hidden width d_ff
//
// A projection P_r (r in q, k, v, o, gate, up, down) is plain, u W_r^T with
// W_r [d_out, d_in] and no bias, or, when r is in `sdd`, the SDD layer (sdd
// eq. 2-3) alpha_r (.) sdd_norm(u V_r^T) with sdd_norm the RMS normalization
// of sdd eq. 2 (sdd_eps inside the square root). The SDD paper's argument
// (eq. 5: norm(k V x) = norm(V x)) needs a scale-invariant norm, so sdd_norm
// is rmsnorm (the paper's) or layernorm (no affine); dyt and seednorm are not
// scale-invariant and are rejected.
//
// Scale vectors (scale_vectors paper; definitions in scalevec/linear.hpp) act
// on the maps that read a Pre-Norm output, r in q, k, v (the attention gate
// reads q's input) and gate, up. With n(x) = x / RMS(x) the weightless RMS
// normalization of the block norm (so they need norm = rmsnorm, placement =
// pre), the input of map r and its output are:
//   none      n(x)                         P_r(.)
//   standard  g (.) n(x)                   P_r(.)          (the usual RMSNorm gamma: g)
//   HG        g_r (.) n(x), one g per map  P_r(.)
//   AP        n(x)                         a_r (.) P_r(.)
//   DP        g (.) n(x)                   a_r (.) P_r(.)
//   DNP       g (.) n(x)                   a_r (.) n_h(P_r(.))  (n_h per head for q, k, v;
//                                                                the whole row for gate, up)
//   MD        (r u / RMS(u)) (.) n(x)      P_r(.)          (magnitude r [1,1], direction u,
//                                                           RMS(u) without eps)
// The final norm keeps a standard gain g (none: no gain). scale_vector_decay
// says which of these weight decay reaches: decay_none (the default, the
// usual no-decay rule for norm gains), iwd (the paper's IWD: Input-Norm
// vectors g, g_r, r, u only), decay_all. Every other parameter's decay comes
// from its module's data (norm kParams: SeeDNorm decays alpha and beta, not
// gamma; sdd::kParams: alpha), and every matrix and embedding is decayed.
//
// Initialization (init/initializers.hpp): init = gaussian (init_sigma),
// xavier_normal, xavier_uniform, kaiming_normal, kaiming_uniform, ds_init
// (init_alpha), gamma (smallinit's gamma-init, init_gamma); the authors'
// switches lir = true (LIR) and sir = true (SIR) modify gaussian and exclude
// each other. SDD's V and alpha follow sdd/init.hpp (sdd_alpha_rule = paper |
// authors_code). Every tensor's stream is (seed, its index in the parameter
// list), so a model is a pure function of its config.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <scaleref/error.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <scaleref/sdd/init.hpp>
#include <scaleref/spec/dyt.hpp>
#include <scaleref/spec/init.hpp>
#include <scaleref/spec/lm.hpp>
#include <scaleref/spec/sdd.hpp>
#include <string>

namespace scaleref::lm {

// NormKind, Placement, SddNorm, ScaleVectors, InitMethod, Proj and their names:
// scaleref/spec/lm.hpp.

struct Config {
  // shape
  long vocab = 32;
  long d_model = 64;
  long n_layers = 2;
  long n_heads = 4;
  long d_ff = 0;  // 0: 4 d_model
  long max_seq = 64;
  // architecture switches
  NormKind norm = NormKind::rmsnorm;
  double norm_eps = 1e-6;
  long norm_heads = 1;                                     // seednorm_mh only
  double dyt_alpha_init = norm::dyt::Config{}.alpha_init;  // DyT's alpha_0
  Placement placement = Placement::pre;
  bool final_norm = true;
  bool positions = true;
  bool tie_embeddings = false;
  bool gated_attention = false;
  bool qk_norm = false;
  std::array<bool, 7> sdd{};  // by Proj
  SddNorm sdd_norm = SddNorm::rmsnorm;
  double sdd_eps = sdd::Config::authors_code().eps;
  sdd::AlphaRule sdd_alpha_rule = sdd::AlphaRule::paper;
  ScaleVectors scale_vectors = ScaleVectors::standard;
  scalevec::DecayPolicy scale_vector_decay = scalevec::DecayPolicy::decay_none;
  // initialization
  InitMethod init = InitMethod::gaussian;
  double init_sigma = init::Gaussian{}.sigma;
  double init_gamma = init::GammaInit{}.gamma;
  double init_alpha = init::DSInit{}.alpha;
  bool lir = false;
  bool sir = false;
  std::uint64_t seed = 0;

  bool operator==(const Config&) const = default;

  long ffn_width() const { return d_ff > 0 ? d_ff : 4 * d_model; }
  long head_dim() const { return d_model / n_heads; }
  bool any_sdd() const {
    for (bool b : sdd)
      if (b) return true;
    return false;
  }
  bool uses_sdd(Proj p) const { return sdd[static_cast<int>(p)]; }
};

// `sdd` value: none, all, or a comma-separated subset of q,k,v,o,gate,up,down.
inline std::array<bool, 7> parse_sdd_set(const std::string& v) {
  std::array<bool, 7> out{};
  if (v == "none" || v.empty()) return out;
  if (v == "all") return {true, true, true, true, true, true, true};
  std::size_t pos = 0;
  while (pos <= v.size()) {
    const std::size_t end = std::min(v.find(',', pos), v.size());
    const std::string name = v.substr(pos, end - pos);
    bool found = false;
    for (Proj p : kProjs)
      if (name == proj_name(p)) out[static_cast<int>(p)] = found = true;
    require(found, "lm::Config", "key 'sdd': unknown projection '", name,
            "', expected none, all or a comma-separated subset of q,k,v,o,gate,up,down");
    pos = end + 1;
  }
  return out;
}

// Throws Error naming the offending key unless c describes a model.
inline void validate(const Config& c) {
  constexpr const char* where = "lm::Config";
  require(c.vocab >= 2, where, "key 'vocab': expected >= 2, got ", c.vocab);
  require(c.d_model >= 1, where, "key 'd_model': expected >= 1, got ", c.d_model);
  require(c.n_layers >= 1, where, "key 'n_layers': expected >= 1, got ", c.n_layers);
  require(c.n_heads >= 1 && c.d_model % c.n_heads == 0, where,
          "key 'n_heads': expected a divisor of d_model = ", c.d_model, ", got ", c.n_heads);
  require(c.d_ff >= 0, where, "key 'd_ff': expected >= 0 (0: 4 d_model), got ", c.d_ff);
  require(c.max_seq >= 1, where, "key 'max_seq': expected >= 1, got ", c.max_seq);
  require(c.norm_eps >= 0 && std::isfinite(c.norm_eps), where,
          "key 'norm_eps': expected a finite value >= 0, got ", c.norm_eps);
  require(c.sdd_eps >= 0 && std::isfinite(c.sdd_eps), where,
          "key 'sdd_eps': expected a finite value >= 0, got ", c.sdd_eps);
  if (c.norm == NormKind::seednorm_mh)
    require(c.norm_heads >= 1 && c.d_model % c.norm_heads == 0, where,
            "key 'norm_heads': expected a divisor of d_model = ", c.d_model, ", got ",
            c.norm_heads);
  require(c.scale_vectors == ScaleVectors::standard ||
              (c.norm == NormKind::rmsnorm && c.placement == Placement::pre),
          where, "key 'scale_vectors': ", scale_vectors_name(c.scale_vectors),
          " acts on a Pre-Norm RMSNorm's output (scale_vectors paper); got norm = ",
          norm_name(c.norm), ", placement = ", placement_name(c.placement));
  require(!(c.lir && c.sir), where,
          "key 'lir': LIR and SIR are exclusive (rescale, authors' code), got lir = true with "
          "sir = true");
  require(!(c.lir || c.sir) || c.init == InitMethod::gaussian, where, "key '",
          c.lir ? "lir" : "sir",
          "': rescales the Gaussian initializer, got init other than gaussian");
  require(c.init_sigma > 0 && std::isfinite(c.init_sigma), where,
          "key 'init_sigma': expected a finite value > 0, got ", c.init_sigma);
  require(c.init_gamma >= 0 && std::isfinite(c.init_gamma), where,
          "key 'init_gamma': expected a finite value >= 0, got ", c.init_gamma);
  require(c.init_alpha > 0 && c.init_alpha <= 1, where, "key 'init_alpha': expected (0, 1], got ",
          c.init_alpha);
}

}  // namespace scaleref::lm
