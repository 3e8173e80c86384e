// Token-level comparison of two models (smallinit Sec. 4.7 "Token-level loss
// analysis", Sec. 2.5, Fig. 4a-b).
//
// For each validation token y_t with context x_<t, p_small and p_std are the
// probabilities the small-init and the standard-init model assign to the
// ground-truth token y_t. Then
//
//   loss      l(y_t)      = -log p(y_t | x_<t)
//   gap       Delta p_t   = p_small - p_std
//   sym. gap  Delta^sym p_t = 2 (p_small - p_std) / (p_small + p_std)
//   difficulty d_t        = (l_small(y_t) + l_std(y_t)) / 2
//
// and the tokens, sorted by d_t, are cut into ten equal-sized difficulty bins;
// each bin reports the mean and the median of Delta^sym p_t.
//
// Properties that follow from the definitions (tested):
// - Swapping the two models negates Delta p and Delta^sym p and keeps d_t, so
//   the bins hold the same tokens and their means and medians change sign.
//   "Symmetric" names the normalization by the mean of the two probabilities,
//   not a symmetry under the swap (the gap is antisymmetric).
// - Delta^sym p = 2 tanh((l_std - l_small) / 2): it lies in (-2, 2) when both
//   probabilities are positive, and has the sign of Delta p.
//
// Readings (the paper leaves these open):
// - Tokens are given as [N x 1] columns, one row per token, row t the same
//   token in both.
// - "Ten equal-sized bins": N is rarely a multiple of ten. Here the first
//   N mod B bins hold ceil(N / B) tokens and the rest floor(N / B) (numpy's
//   array_split of the sorted tokens), B = bins; N >= B is required.
// - Ties in d_t are broken by token index (a stable sort), so the bins are a
//   deterministic function of the inputs.
// - The median of an even-sized bin is the mean of its two middle values.
// - Bins run from easiest (smallest d_t) to hardest.
// - p must lie in [0, 1]; the losses, and so d_t and the bins, need p > 0
//   (a zero probability is an infinite loss: Error, naming the token), and
//   Delta^sym p needs p_small + p_std > 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <scaleref/metrics/common.hpp>
#include <vector>

namespace scaleref::metrics {

// p is a finite [N x 1] column of probabilities in [0, 1] (in (0, 1] when
// `positive`), one row per token.
template <class S>
void check_token_probabilities(const char* where, const char* name, const Mat<S>& p,
                               bool positive) {
  check_matrix(where, name, p);
  require(p.cols() == 1, where, "expected ", name,
          " as an [N x 1] column (one row per token), got ", name, " ", shape_str(p));
  for (Eigen::Index t = 0; t < p.rows(); ++t) {
    require(p(t, 0) <= S(1) && p(t, 0) >= S(0), where, "expected probabilities in [0, 1], got ",
            name, "(", t, ") = ", p(t, 0));
    require(!positive || p(t, 0) > S(0), where, "expected probabilities > 0, got ", name, "(", t,
            ") = 0: its loss -log p is infinite");
  }
}

template <class S>
void check_token_pair(const char* where, const Mat<S>& p_small, const Mat<S>& p_std,
                      bool positive) {
  check_token_probabilities(where, "p_small", p_small, positive);
  check_token_probabilities(where, "p_std", p_std, positive);
  check_same_shape(where, "p_small", p_small, "p_std", p_std);
}

// Delta p_t = p_small - p_std, [N x 1].
template <class S>
Mat<S> prob_gap(const Mat<S>& p_small, const Mat<S>& p_std) {
  check_token_pair("metrics::prob_gap", p_small, p_std, false);
  return p_small - p_std;
}

// Delta^sym p_t = 2 (p_small - p_std) / (p_small + p_std), [N x 1].
template <class S>
Mat<S> sym_prob_gap(const Mat<S>& p_small, const Mat<S>& p_std) {
  constexpr const char* where = "metrics::sym_prob_gap";
  check_token_pair(where, p_small, p_std, false);
  Mat<S> g(p_small.rows(), 1);
  for (Eigen::Index t = 0; t < g.rows(); ++t) {
    const S sum = p_small(t, 0) + p_std(t, 0);
    require(sum > S(0), where, "token ", t,
            " has p_small = p_std = 0: its symmetric gap is 0/0, undefined");
    g(t, 0) = S(2) * (p_small(t, 0) - p_std(t, 0)) / sum;
  }
  return g;
}

// d_t = (-log p_small - log p_std) / 2, [N x 1].
template <class S>
Mat<S> difficulty(const Mat<S>& p_small, const Mat<S>& p_std) {
  using std::log;
  check_token_pair("metrics::difficulty", p_small, p_std, true);
  Mat<S> d(p_small.rows(), 1);
  for (Eigen::Index t = 0; t < d.rows(); ++t)
    d(t, 0) = S(-(S(log(p_small(t, 0))) + S(log(p_std(t, 0))))) / S(2);
  return d;
}

template <class S>
struct DifficultyBin {
  std::vector<Eigen::Index> tokens;  // token indices, by increasing d_t (ties by index)
  S d_min, d_max;                    // the bin's range of d_t
  S mean, median;                    // of Delta^sym p_t over the bin
};

// Sorts the tokens by d_t and cuts them into `bins` bins (array_split sizes),
// easiest first; per bin the mean (summed in the bin's order) and the median
// of Delta^sym p_t (smallinit Sec. 4.7, Fig. 4b).
template <class S>
std::vector<DifficultyBin<S>> difficulty_bins(const Mat<S>& p_small, const Mat<S>& p_std,
                                              int bins = 10) {
  constexpr const char* where = "metrics::difficulty_bins";
  check_token_pair(where, p_small, p_std, true);
  require(bins >= 1, where, "expected bins >= 1, got ", bins);
  const Eigen::Index n = p_small.rows();
  require(n >= bins, where, "expected at least as many tokens as bins, got N = ", n, " tokens for ",
          bins, " bins");
  const Mat<S> d = difficulty(p_small, p_std);
  const Mat<S> g = sym_prob_gap(p_small, p_std);
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Eigen::Index(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](Eigen::Index a, Eigen::Index b) { return d(a, 0) < d(b, 0); });
  std::vector<DifficultyBin<S>> out;
  const Eigen::Index base = n / bins, extra = n % bins;
  Eigen::Index first = 0;
  for (Eigen::Index b = 0; b < bins; ++b) {
    const Eigen::Index size = base + (b < extra ? 1 : 0);
    DifficultyBin<S> bin;
    bin.tokens.assign(order.begin() + first, order.begin() + first + size);
    bin.d_min = d(bin.tokens.front(), 0);
    bin.d_max = d(bin.tokens.back(), 0);
    S sum = S(0);
    std::vector<S> values;
    for (Eigen::Index t : bin.tokens) {
      sum += g(t, 0);
      values.push_back(g(t, 0));
    }
    bin.mean = sum / S(static_cast<long>(size));
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    bin.median = values.size() % 2 ? values[mid] : S((values[mid - 1] + values[mid]) / S(2));
    out.push_back(std::move(bin));
    first += size;
  }
  return out;
}

}  // namespace scaleref::metrics
