// The block norms of the tiny LM (lm/config.hpp): N_a (attn_norm), N_f (ffn_norm)
// and N_final (final_norm), for a batch x [N, d].
//
// Module path: the norm module's own forward / backward (scaleref/norm/*.hpp)
//   rmsnorm      gamma (.) x / sqrt(mean(x^2) + norm_eps)
//   layernorm    gamma (.) (x - mu) / sqrt(var + norm_eps) + beta
//   dyt          gamma (.) tanh(alpha x) + beta
//   seednorm     [tanh(x . beta^T) alpha + gamma] (.) x / RMS(x)      (seednorm eq. 4)
//   seednorm_mh  the same with norm_heads heads                       (seednorm eq. 7)
// used for every kind other than rmsnorm, and for rmsnorm whenever it has the
// shared gain g = gamma (scale_vectors standard, DP, DNP; the final norm
// under every strategy except none).
//
// Scale-vector path (rmsnorm, Pre-Norm, scale_vectors paper; n(x) = x / RMS(x),
// eps = norm_eps): the input of each map that reads the norm is
//   none, AP (and the final norm under none):  n(x)
//   MD:   g (.) n(x),   g = r u / RMS(u),  RMS(u) = sqrt(mean(u^2)), no eps
//   HG:   g_b (.) n(x), one per branch b (attention: q, k, v; FFN: gate, up)
// Backward, with dy_b = dL/d(input of branch b):
//   dg_b = sum_rows dy_b (.) n(x),   dn = sum_b dy_b (.) g_b   (or dy when no gain)
//   MD:  dr = dg . u_hat,  du = (1 / RMS(u)) (r dg - u_hat mean(r dg (.) u_hat))
//   dx = (1 / RMS(x)) (dn - n(x) mean(dn (.) n(x)))            (norm::rms_normalize_backward)
//
// forward writes one output shared by every reading map, or (HG) one per branch.
#pragma once

#include <array>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/lm/rowops.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <span>
#include <vector>

namespace scaleref::lm {

enum class NormSite { attn, ffn, final };

template <class S>
struct BlockNormCache {
  // the module path: its parameters (copied from the store) and its cache
  norm::rmsnorm::Params<S> rms_params;
  norm::rmsnorm::Cache<S> rms;
  norm::layernorm::Params<S> ln_params;
  norm::layernorm::Cache<S> ln;
  norm::dyt::Params<S> dyt_params;
  norm::dyt::Cache<S> dyt;
  norm::seednorm::Params<S> seed_params;
  norm::seednorm::Cache<S> seed;
  // the scale-vector path
  Mat<S> x_hat, rx;           // n(x), 1 / RMS(x) per row
  std::vector<Mat<S>> gains;  // the gain of each output (empty: none)
  Mat<S> u_hat, ru;           // MD: u / RMS(u), 1 / RMS(u)
};

// The backward's temporaries, kept between calls so that a repeated backward
// reuses their storage.
template <class S>
struct BlockNormGrads {
  norm::rmsnorm::Grads<S> rms;
  norm::layernorm::Grads<S> ln;
  norm::dyt::Grads<S> dyt;
  norm::seednorm::Grads<S> seed;
  Mat<S> dn, dr;
  std::vector<Mat<S>> dgain;
};

namespace detail {

inline Name norm_prefix(const Name& layer_prefix, NormSite site) {
  switch (site) {
    case NormSite::attn:
      return layer_prefix + "attn_norm.";
    case NormSite::ffn:
      return layer_prefix + "ffn_norm.";
    case NormSite::final:
      return "final_norm.";
  }
  return "";
}

// True when the norm goes through its module (see the header comment).
inline bool module_path(const Config& c, NormSite site) {
  if (c.norm != NormKind::rmsnorm) return true;
  if (site == NormSite::final) return c.scale_vectors != ScaleVectors::none;
  return uses_shared_g(c.scale_vectors);
}

// HG's per-branch gains: how many the site has, and the name of branch b's, in output order.
inline std::size_t hg_branches(NormSite site) { return site == NormSite::attn ? 3 : 2; }

inline Name hg_gain_name(const Name& layer_prefix, NormSite site, std::size_t b) {
  static constexpr std::array<const char*, 3> attn{"attn.q.g", "attn.k.g", "attn.v.g"};
  static constexpr std::array<const char*, 2> ffn{"ffn.gate.g", "ffn.up.g"};
  return layer_prefix + (site == NormSite::attn ? attn[b] : ffn[b]);
}

inline norm::seednorm::Config seed_config(const Config& c) {
  norm::seednorm::Config s;
  s.eps = c.norm_eps;
  s.heads = c.norm == NormKind::seednorm_mh ? static_cast<int>(c.norm_heads) : 1;
  return s;
}

}  // namespace detail

// The norm's output(s) for x, written into out (one, or one per branch);
// layer_prefix is "layers.<l>." (unused for the final norm).
template <class S>
void block_norm_forward(const Config& c, const ParamStore<S>& p, const Name& layer_prefix,
                        NormSite site, const Mat<S>& x, BlockNormCache<S>& k,
                        std::vector<Mat<S>>& out) {
  const Name pre = detail::norm_prefix(layer_prefix, site);
  if (detail::module_path(c, site)) {
    out.resize(1);
    switch (c.norm) {
      case NormKind::rmsnorm:
        k.rms_params.gamma = p.at(pre + "gamma");
        norm::rmsnorm::forward<S>(k.rms_params, {c.norm_eps}, x, out[0], k.rms);
        break;
      case NormKind::layernorm:
        k.ln_params.gamma = p.at(pre + "gamma");
        k.ln_params.beta = p.at(pre + "beta");
        norm::layernorm::forward<S>(k.ln_params, {c.norm_eps, true}, x, out[0], k.ln);
        break;
      case NormKind::dyt:
        k.dyt_params.alpha = p.at(pre + "alpha");
        k.dyt_params.gamma = p.at(pre + "gamma");
        k.dyt_params.beta = p.at(pre + "beta");
        norm::dyt::forward<S>(k.dyt_params, {true, c.dyt_alpha_init}, x, out[0], k.dyt);
        break;
      case NormKind::seednorm:
      case NormKind::seednorm_mh:
        k.seed_params.alpha = p.at(pre + "alpha");
        k.seed_params.beta = p.at(pre + "beta");
        k.seed_params.gamma = p.at(pre + "gamma");
        norm::seednorm::forward<S>(k.seed_params, detail::seed_config(c), x, out[0], k.seed);
        break;
    }
    return;
  }
  // scale-vector path: n(x), then the gain(s)
  detail::rms_blocks("lm::forward (block norm n(x))", x, 1, c.norm_eps, k.x_hat, k.rx);
  const bool md = site != NormSite::final && c.scale_vectors == ScaleVectors::md;
  const bool hg = site != NormSite::final && c.scale_vectors == ScaleVectors::hg;
  k.gains.resize(md ? 1 : hg ? detail::hg_branches(site) : 0);
  if (md) {
    const Mat<S>& u = p.at(pre + "u");
    norm::inverse_rms("lm::forward (MD's RMS(u))", u, 0.0, k.ru);
    k.u_hat = u * k.ru(0, 0);
    k.gains[0] = k.u_hat * p.at(pre + "r")(0, 0);
  } else if (hg) {
    for (std::size_t b = 0; b < k.gains.size(); ++b)
      k.gains[b] = p.at(detail::hg_gain_name(layer_prefix, site, b));
  }
  if (k.gains.empty()) {
    out.resize(1);
    out[0] = k.x_hat;
  } else {
    out.resize(k.gains.size());
    for (std::size_t b = 0; b < k.gains.size(); ++b)
      detail::scale_cols(k.x_hat, k.gains[b], out[b]);
  }
}

// dL/dx from dy (one gradient per output of forward), written into dx; writes
// the norm's parameter gradients into g. d holds the temporaries.
template <class S>
void block_norm_backward(const Config& c, const ParamStore<S>& p, const Name& layer_prefix,
                         NormSite site, const BlockNormCache<S>& k, std::span<const Mat<S>> dy,
                         ParamStore<S>& g, BlockNormGrads<S>& d, Mat<S>& dx) {
  const Name pre = detail::norm_prefix(layer_prefix, site);
  if (detail::module_path(c, site)) {
    switch (c.norm) {
      case NormKind::rmsnorm: {  // rmsnorm.hpp: dgamma, dx (seednorm eq. 2)
        norm::rmsnorm::backward<S>(k.rms_params, {c.norm_eps}, k.rms, dy[0], d.rms);
        g.at(pre + "gamma") = d.rms.dgamma;
        dx = d.rms.dx;
        return;
      }
      case NormKind::layernorm: {  // layernorm.hpp
        norm::layernorm::backward<S>(k.ln_params, {c.norm_eps, true}, k.ln, dy[0], d.ln);
        g.at(pre + "gamma") = d.ln.dgamma;
        g.at(pre + "beta") = d.ln.dbeta;
        dx = d.ln.dx;
        return;
      }
      case NormKind::dyt: {  // dyt.hpp
        norm::dyt::backward<S>(k.dyt_params, {true, c.dyt_alpha_init}, k.dyt, dy[0], d.dyt);
        g.at(pre + "alpha") = d.dyt.dalpha;
        g.at(pre + "gamma") = d.dyt.dgamma;
        g.at(pre + "beta") = d.dyt.dbeta;
        dx = d.dyt.dx;
        return;
      }
      case NormKind::seednorm:
      case NormKind::seednorm_mh: {  // seednorm.hpp: seednorm eq. 16, 18, 20, 26
        norm::seednorm::backward<S>(k.seed_params, detail::seed_config(c), k.seed, dy[0], d.seed);
        g.at(pre + "alpha") = d.seed.dalpha;
        g.at(pre + "beta") = d.seed.dbeta;
        g.at(pre + "gamma") = d.seed.dgamma;
        dx = d.seed.dx;
        return;
      }
    }
  }
  // scale-vector path: dn = sum_b dy_b (.) g_b, dg_b = sum_rows dy_b (.) n(x)
  const Mat<S>* dn = &dy[0];
  if (!k.gains.empty()) {
    d.dn.setZero(k.x_hat.rows(), k.x_hat.cols());
    d.dgain.resize(k.gains.size());
    for (std::size_t b = 0; b < k.gains.size(); ++b) {
      detail::col_sum_product(dy[b], k.x_hat, d.dgain[b]);
      for_each_row(d.dn.rows(), d.dn.cols(),
                   [&](Eigen::Index i) { d.dn.row(i) += dy[b].row(i).cwiseProduct(k.gains[b]); });
    }
    dn = &d.dn;
    if (c.scale_vectors == ScaleVectors::md) {
      // g = r u_hat:  dr = dg . u_hat,  du = J_n(u)^T (r dg)  (no eps)
      const Mat<S>& r = p.at(pre + "r");
      g.at(pre + "r")(0, 0) = d.dgain[0].cwiseProduct(k.u_hat).sum();
      Mat<S>& du = g.at(pre + "u");
      norm::rms_normalize_backward<S>(k.ru(0, 0), d.dgain[0] * r(0, 0), k.u_hat, du);
    } else {  // HG
      for (std::size_t b = 0; b < d.dgain.size(); ++b)
        g.at(detail::hg_gain_name(layer_prefix, site, b)) = d.dgain[b];
    }
  }
  // dx = J_n(x)^T dn
  detail::rms_blocks_backward(k.rx, k.x_hat, *dn, dx);
}

}  // namespace scaleref::lm
