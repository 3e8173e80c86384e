// Metrics of hidden states, each an [N, D] batch with one row per token:
//
// - the maximum absolute activation of a layer output (rescale Sec. 3.2
//   "extreme activation values", Sec. 4.3, Fig. 6 and 13):
//     max_{t, k} |Y_tk|, with the token and feature where it occurs;
// - the residual-flow ratio (smallinit Sec. 2.4, Fig. 3a, Appendix A):
//     ||h_L - e||_2 / ||e||_2
//   with e the embedded input (h_0) and h_L the residual stream after the
//   last of the L blocks (before any final norm), h_{l+1} = h_l + F_l(h_l);
//   Appendix A predicts it scales as d^(1 - gamma);
// - inter-layer feature similarity (sdd Sec. 4.4 "Layer-wise Similarity",
//   Fig. 9): the cosine similarity between the outputs of two layers on the
//   same tokens, and the [L, L] matrix of it over L layers.
//
// Readings (the papers leave these open):
// - Appendix A defines the ratio for one token's vectors e, h_L in R^d; how
//   the measured ratio of Fig. 3a aggregates tokens is not said.
//   TokenReduction::mean_of_ratios (default) averages the per-token ratios;
//   TokenReduction::ratio_of_norms divides the Frobenius norms over all tokens
//   (the ratio of root-mean-square norms, which weighs tokens by ||e_t||^2).
// - sdd never says how Fig. 9's similarity is computed. The default,
//   FeatureSimilarity::per_token_mean, takes the cosine between the two
//   layers' vectors of each token and averages over tokens (each token's
//   representation compared with itself one layer on); ::flattened is the
//   cosine of the two [N, D] batches as N D vectors. They differ when token
//   norms differ: per-token is invariant to rescaling each token, flattened is
//   not.
// - rescale's Fig. 6 plots the maximum activation magnitude per layer for one
//   sentence; which tensor counts as a layer's output (the residual stream
//   after each decoder block, as in the massive-activations paper it cites) is
//   the caller's choice: pass the tensor to measure.
// A zero row of e (mean_of_ratios) or of a layer output (per_token_mean) has
// no ratio or cosine: Error naming it.
#pragma once

#include <algorithm>
#include <cmath>
#include <scaleref/metrics/common.hpp>
#include <string>
#include <vector>

namespace scaleref::metrics {

// ---- maximum absolute activation (rescale Sec. 4.3) ------------------------------

template <class S>
struct MaxAbs {
  S value;               // max |Y_tk|
  Eigen::Index token;    // row t
  Eigen::Index feature;  // column k; ties: the first in row-major order
};

template <class S>
MaxAbs<S> max_abs_activation(const Mat<S>& y) {
  using std::abs;
  check_matrix("metrics::max_abs_activation", "Y", y);
  MaxAbs<S> best{S(abs(y(0, 0))), 0, 0};
  for (Eigen::Index t = 0; t < y.rows(); ++t)
    for (Eigen::Index k = 0; k < y.cols(); ++k)
      if (abs(y(t, k)) > best.value) best = {S(abs(y(t, k))), t, k};
  return best;
}

// One MaxAbs per layer output, in list order (rescale Fig. 6: one point per layer).
template <class S>
std::vector<MaxAbs<S>> max_abs_activation(const std::vector<Mat<S>>& layers) {
  check_list("metrics::max_abs_activation", "layers", layers);
  std::vector<MaxAbs<S>> out;
  for (const Mat<S>& y : layers) out.push_back(max_abs_activation(y));
  return out;
}

// ---- residual-flow ratio (smallinit Appendix A) ----------------------------------

enum class TokenReduction {
  mean_of_ratios,  // (1/N) sum_t ||h_t - e_t|| / ||e_t||
  ratio_of_norms   // ||H - E||_F / ||E||_F
};

template <class S>
void check_residual_flow(const char* where, const Mat<S>& h_L, const Mat<S>& e) {
  check_matrix(where, "h_L", h_L);
  check_matrix(where, "e", e);
  check_same_shape(where, "h_L", h_L, "e", e);
}

// ||a - b||_F / ||b||_F, both scaled first by the power of two of max(|a|, |b|)
// (common.hpp), so the difference cannot overflow. `b` must not be zero.
template <class A, class B>
typename A::Scalar relative_difference(const Eigen::MatrixBase<A>& a,
                                       const Eigen::MatrixBase<B>& b) {
  using S = typename A::Scalar;
  const int e = std::max(pow2_exponent(a), pow2_exponent(b));
  const Mat<S> as = scaled(a, e), bs = scaled(b, e);
  return S(frobenius_norm(Mat<S>(as - bs)) / frobenius_norm(bs));
}

// ||h_t - e_t||_2 / ||e_t||_2 for each token t: [N x 1].
template <class S>
Mat<S> residual_flow_ratios(const Mat<S>& h_L, const Mat<S>& e) {
  constexpr const char* where = "metrics::residual_flow_ratios";
  using std::abs;
  check_residual_flow(where, h_L, e);
  for (Eigen::Index t = 0; t < e.rows(); ++t)
    require(e.row(t).cwiseAbs().maxCoeff() > S(0), where, "row ", t,
            " of e is zero: ||h_L - e|| / ||e|| is undefined for that token");
  Mat<S> r(e.rows(), 1);
  for_each_row(e.rows(), e.cols(),
               [&](Eigen::Index t) { r(t, 0) = relative_difference(h_L.row(t), e.row(t)); });
  return r;
}

// The residual-flow ratio of a batch, reduced over tokens as `reduction` says.
template <class S>
S residual_flow_ratio(const Mat<S>& h_L, const Mat<S>& e,
                      TokenReduction reduction = TokenReduction::mean_of_ratios) {
  constexpr const char* where = "metrics::residual_flow_ratio";
  check_residual_flow(where, h_L, e);
  if (reduction == TokenReduction::ratio_of_norms) {
    require(e.cwiseAbs().maxCoeff() > S(0), where, "expected a non-zero e, got an all-zero e ",
            shape_str(e));
    return relative_difference(h_L, e);
  }
  const Mat<S> r = residual_flow_ratios(h_L, e);
  S sum = S(0);
  for (Eigen::Index t = 0; t < r.rows(); ++t) sum += r(t, 0);
  return S(sum / S(static_cast<long>(r.rows())));
}

// ---- inter-layer feature similarity (sdd Fig. 9) ---------------------------------

enum class FeatureSimilarity {
  per_token_mean,  // (1/N) sum_t cos(a_t, b_t)
  flattened        // cos(vec A, vec B)
};

// The rows compared by `reading`, each scaled to unit length: the N token rows
// of m (per_token_mean), or m's N D entries as one row (flattened).
template <class S>
Mat<S> unit_features(const char* where, const std::string& name, const Mat<S>& m,
                     FeatureSimilarity reading) {
  if (reading == FeatureSimilarity::per_token_mean) return unit_rows(where, name.c_str(), m);
  const Mat<S> flat = Eigen::Map<const Mat<S>>(m.data(), 1, m.size());
  return unit_rows(where, ("vec(" + name + ")").c_str(), flat);
}

// (1/rows) sum_t <ua_t, ub_t>, in row order.
template <class S>
S mean_row_dot(const Mat<S>& ua, const Mat<S>& ub) {
  S sum = S(0);
  for (Eigen::Index t = 0; t < ua.rows(); ++t) sum += dot(ua.row(t), ub.row(t));
  return S(sum / S(static_cast<long>(ua.rows())));
}

// The cosine similarity of two layer outputs on the same tokens, read as
// `reading` says. Unit vectors are formed first (common.hpp's unit_rows), so
// no norm overflows.
template <class S>
S feature_similarity(const Mat<S>& a, const Mat<S>& b,
                     FeatureSimilarity reading = FeatureSimilarity::per_token_mean) {
  constexpr const char* where = "metrics::feature_similarity";
  check_matrix(where, "A", a);
  check_matrix(where, "B", b);
  check_same_shape(where, "A", a, "B", b);
  return mean_row_dot(unit_features(where, "A", a, reading), unit_features(where, "B", b, reading));
}

// The [L, L] matrix of feature_similarity between every pair of L layer
// outputs (all [N, D], the same tokens), as Fig. 9's heat map: entry (i, j)
// computed once for i <= j and mirrored, so it is exactly symmetric. The
// diagonal is computed too (1 within a few ulps), not set.
template <class S>
Mat<S> layer_similarity_matrix(const std::vector<Mat<S>>& layers,
                               FeatureSimilarity reading = FeatureSimilarity::per_token_mean) {
  constexpr const char* where = "metrics::layer_similarity_matrix";
  check_list(where, "layers", layers);
  std::vector<Mat<S>> unit;
  for (std::size_t k = 0; k < layers.size(); ++k) {
    const std::string name = "layers[" + std::to_string(k) + "]";
    check_same_shape(where, "layers[0]", layers[0], name.c_str(), layers[k]);
    unit.push_back(unit_features(where, name, layers[k], reading));
  }
  const auto l = static_cast<Eigen::Index>(layers.size());
  Mat<S> s(l, l);
  for (Eigen::Index i = 0; i < l; ++i)
    for (Eigen::Index j = i; j < l; ++j)
      s(i, j) = s(j, i) =
          mean_row_dot(unit[static_cast<std::size_t>(i)], unit[static_cast<std::size_t>(j)]);
  return s;
}

}  // namespace scaleref::metrics
