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
// forward returns one output shared by every reading map, or (HG) one per branch.
#pragma once

#include <scaleref/lm/config.hpp>
#include <scaleref/lm/params.hpp>
#include <scaleref/lm/rowops.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <string>
#include <vector>

namespace scaleref::lm {

enum class NormSite { attn, ffn, final };

template <class S>
struct BlockNormCache {
  norm::rmsnorm::Cache<S> rms;
  norm::layernorm::Cache<S> ln;
  norm::dyt::Cache<S> dyt;
  norm::seednorm::Cache<S> seed;
  // the scale-vector path
  Mat<S> x_hat, rx;           // n(x), 1 / RMS(x) per row
  std::vector<Mat<S>> gains;  // the gain of each output (empty: none)
  Mat<S> u_hat, ru;           // MD: u / RMS(u), 1 / RMS(u)
};

namespace detail {

inline std::string norm_prefix(const std::string& layer_prefix, NormSite site) {
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

// HG's per-branch gain names, in output order.
inline std::vector<std::string> hg_gain_names(const std::string& layer_prefix, NormSite site) {
  if (site == NormSite::attn)
    return {layer_prefix + "attn.q.g", layer_prefix + "attn.k.g", layer_prefix + "attn.v.g"};
  return {layer_prefix + "ffn.gate.g", layer_prefix + "ffn.up.g"};
}

inline norm::seednorm::Config seed_config(const Config& c) {
  norm::seednorm::Config s;
  s.eps = c.norm_eps;
  s.heads = c.norm == NormKind::seednorm_mh ? static_cast<int>(c.norm_heads) : 1;
  return s;
}

}  // namespace detail

// The norm's output(s) for x; layer_prefix is "layers.<l>." (unused for the final norm).
template <class S>
std::vector<Mat<S>> block_norm_forward(const Config& c, const ParamStore<S>& p,
                                       const std::string& layer_prefix, NormSite site,
                                       const Mat<S>& x, BlockNormCache<S>& k) {
  const std::string pre = detail::norm_prefix(layer_prefix, site);
  std::vector<Mat<S>> out;
  if (detail::module_path(c, site)) {
    switch (c.norm) {
      case NormKind::rmsnorm:
        out.push_back(norm::rmsnorm::forward<S>({p.at(pre + "gamma")}, {c.norm_eps}, x, &k.rms));
        break;
      case NormKind::layernorm:
        out.push_back(norm::layernorm::forward<S>({p.at(pre + "gamma"), p.at(pre + "beta")},
                                                  {c.norm_eps, true}, x, &k.ln));
        break;
      case NormKind::dyt:
        out.push_back(
            norm::dyt::forward<S>({p.at(pre + "alpha"), p.at(pre + "gamma"), p.at(pre + "beta")},
                                  {true, c.dyt_alpha_init}, x, &k.dyt));
        break;
      case NormKind::seednorm:
      case NormKind::seednorm_mh:
        out.push_back(norm::seednorm::forward<S>(
            {p.at(pre + "alpha"), p.at(pre + "beta"), p.at(pre + "gamma")}, detail::seed_config(c),
            x, &k.seed));
        break;
    }
    return out;
  }
  // scale-vector path: n(x), then the gain(s)
  detail::rms_blocks("lm::forward (block norm n(x))", x, 1, c.norm_eps, k.x_hat, k.rx);
  k.gains.clear();
  if (site != NormSite::final && c.scale_vectors == ScaleVectors::md) {
    const Mat<S>& u = p.at(pre + "u");
    k.ru = norm::inverse_rms("lm::forward (MD's RMS(u))", u, 0.0);
    k.u_hat = u * k.ru(0, 0);
    k.gains.push_back(k.u_hat * p.at(pre + "r")(0, 0));
  } else if (site != NormSite::final && c.scale_vectors == ScaleVectors::hg) {
    for (const std::string& name : detail::hg_gain_names(layer_prefix, site))
      k.gains.push_back(p.at(name));
  }
  if (k.gains.empty()) {
    out.push_back(k.x_hat);
  } else {
    for (const Mat<S>& g : k.gains) out.push_back(detail::scale_cols(k.x_hat, g));
  }
  return out;
}

// dL/dx from dy (one gradient per output of forward); writes the norm's
// parameter gradients into g.
template <class S>
Mat<S> block_norm_backward(const Config& c, const ParamStore<S>& p, const std::string& layer_prefix,
                           NormSite site, const BlockNormCache<S>& k, const std::vector<Mat<S>>& dy,
                           ParamStore<S>& g) {
  const std::string pre = detail::norm_prefix(layer_prefix, site);
  if (detail::module_path(c, site)) {
    switch (c.norm) {
      case NormKind::rmsnorm: {  // rmsnorm.hpp: dgamma, dx (seednorm eq. 2)
        auto r = norm::rmsnorm::backward<S>({p.at(pre + "gamma")}, {c.norm_eps}, k.rms, dy[0]);
        g.at(pre + "gamma") = std::move(r.dgamma);
        return std::move(r.dx);
      }
      case NormKind::layernorm: {  // layernorm.hpp
        auto r = norm::layernorm::backward<S>({p.at(pre + "gamma"), p.at(pre + "beta")},
                                              {c.norm_eps, true}, k.ln, dy[0]);
        g.at(pre + "gamma") = std::move(r.dgamma);
        g.at(pre + "beta") = std::move(r.dbeta);
        return std::move(r.dx);
      }
      case NormKind::dyt: {  // dyt.hpp
        auto r =
            norm::dyt::backward<S>({p.at(pre + "alpha"), p.at(pre + "gamma"), p.at(pre + "beta")},
                                   {true, c.dyt_alpha_init}, k.dyt, dy[0]);
        g.at(pre + "alpha") = std::move(r.dalpha);
        g.at(pre + "gamma") = std::move(r.dgamma);
        g.at(pre + "beta") = std::move(r.dbeta);
        return std::move(r.dx);
      }
      case NormKind::seednorm:
      case NormKind::seednorm_mh: {  // seednorm.hpp: seednorm eq. 16, 18, 20, 26
        auto r = norm::seednorm::backward<S>(
            {p.at(pre + "alpha"), p.at(pre + "beta"), p.at(pre + "gamma")}, detail::seed_config(c),
            k.seed, dy[0]);
        g.at(pre + "alpha") = std::move(r.dalpha);
        g.at(pre + "beta") = std::move(r.dbeta);
        g.at(pre + "gamma") = std::move(r.dgamma);
        return std::move(r.dx);
      }
    }
  }
  // scale-vector path: dn = sum_b dy_b (.) g_b, dg_b = sum_rows dy_b (.) n(x)
  Mat<S> dn;
  if (k.gains.empty()) {
    dn = dy[0];
  } else {
    dn = Mat<S>::Zero(k.x_hat.rows(), k.x_hat.cols());
    std::vector<Mat<S>> dgain;
    for (std::size_t b = 0; b < k.gains.size(); ++b) {
      dgain.push_back(detail::col_sum_product(dy[b], k.x_hat));
      for_each_row(dn.rows(), dn.cols(),
                   [&](Eigen::Index i) { dn.row(i) += dy[b].row(i).cwiseProduct(k.gains[b]); });
    }
    if (c.scale_vectors == ScaleVectors::md) {
      // g = r u_hat:  dr = dg . u_hat,  du = J_n(u)^T (r dg)  (no eps)
      const Mat<S>& r = p.at(pre + "r");
      Mat<S> dr(1, 1);
      dr(0, 0) = dgain[0].cwiseProduct(k.u_hat).sum();
      g.at(pre + "r") = dr;
      g.at(pre + "u") =
          norm::rms_normalize_backward<S>(k.ru(0, 0), Mat<S>(dgain[0] * r(0, 0)), k.u_hat);
    } else {  // HG
      const auto names = detail::hg_gain_names(layer_prefix, site);
      for (std::size_t b = 0; b < names.size(); ++b) g.at(names[b]) = std::move(dgain[b]);
    }
  }
  // dx = J_n(x)^T dn
  return detail::rms_blocks_backward(k.rx, k.x_hat, dn);
}

}  // namespace scaleref::lm
