// The attention sink score (smallinit eq. 5, Sec. 4.7 and 2.1, Fig. 1f-g).
//
// For layer l, head h and sequence t of length T, with A(t, i, j) the
// attention weight from query position i to key position j (1-based):
//
//   S_sink^(l,h)(t) = (1 / T) sum_{i=1..T} A_h^(l)(t, i, 1)                 (eq. 5)
//
// the mean over all T query positions of the attention mass on the first key
// position. "In our experiments, we report layer-wise sink scores by averaging
// S_sink over validation sequences and attention heads" (Sec. 4.7):
// layer_sink_score.
//
// Read exactly as written:
// - No threshold. eq. 5 averages the raw mass on key 1; it does not count
//   heads or queries whose mass exceeds a threshold (the "sink rate" of other
//   papers is a different metric).
// - The sum includes query i = 1, whose only visible key under the causal mask
//   is key 1 itself, so it always contributes A(1, 1) = 1: S >= 1/T, and a
//   one-token sequence scores 1.
// - The layer-wise score is the plain mean of eq. 5 over (sequence, head)
//   pairs: every sequence weighs the same whatever its length (not a mean over
//   all query tokens pooled).
// - eq. 5 uses t for the sequence; Sec. 4.7's token analysis uses t for a token
//   position. Here a matrix is one (layer, head, sequence): rows are queries
//   i = 1..T (row 0 in code), columns keys j (column 0 is key position 1).
#pragma once

#include <cmath>
#include <scaleref/metrics/common.hpp>
#include <string>
#include <vector>

namespace scaleref::metrics {

// What an attention matrix must be for eq. 5 to mean what it says.
// row_sum_tol: each row is a probability distribution, |sum_j A_ij - 1| <=
//   row_sum_tol, entries >= 0 (exactly). The default 1e-6 suits weights
//   computed in double, or in float32 over short rows (a float32 row of T
//   weights sums to 1 within about T 6e-8); float32 weights of long sequences
//   need about T 1e-7, bfloat16 ones (8 significant bits) about 1e-2. The
//   check exists to catch logits, unnormalized scores and transposed
//   matrices, which miss by O(1).
// causal: A is square [T, T] with A_ij = 0 exactly for j > i (the papers'
//   decoder-only models; the mask makes those weights exactly 0). With
//   causal = false any [T_q, T_k] row-stochastic matrix is accepted.
struct SinkOptions {
  double row_sum_tol = 1e-6;
  bool causal = true;
};

// Throws Error unless `a` is an attention matrix as SinkOptions describes.
template <class S>
void check_attention(const char* where, const char* name, const Mat<S>& a, const SinkOptions& o) {
  using std::abs;
  check_matrix(where, name, a);
  require(std::isfinite(o.row_sum_tol) && o.row_sum_tol >= 0, where,
          "expected row_sum_tol >= 0 and finite, got ", o.row_sum_tol);
  if (o.causal)
    require(a.rows() == a.cols(), where, "expected a causal ", name,
            " [T x T] (rows are queries, columns keys), got ", name, " ", shape_str(a));
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    S sum = S(0);
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      require(a(i, j) >= S(0), where, "expected attention weights >= 0, got ", name, "(", i, ", ",
              j, ") = ", a(i, j), " (logits instead of softmax weights?)");
      if (o.causal)
        require(j <= i || a(i, j) == S(0), where, "expected a causal ", name,
                " (query i sees keys j <= i only), got ", name, "(", i, ", ", j, ") = ", a(i, j),
                " above the diagonal (keys as rows, or no causal mask?)");
      sum += a(i, j);
    }
    require(abs(S(sum - S(1))) <= S(o.row_sum_tol), where, "expected row ", i, " of ", name,
            " to be a probability distribution (sum 1 within row_sum_tol = ", o.row_sum_tol,
            "), got sum ", sum);
  }
}

// (1 / T) sum_i A(i, 0), summed in row order, for a checked A.
template <class S>
S mean_first_key_mass(const Mat<S>& a) {
  S sum = S(0);
  for (Eigen::Index i = 0; i < a.rows(); ++i) sum += a(i, 0);
  return S(sum / S(static_cast<long>(a.rows())));
}

// eq. 5 for one (layer, head, sequence): the mean of column 0 (key position
// 1) over all T query rows.
template <class S>
S sink_score(const Mat<S>& a, const SinkOptions& o = {}) {
  check_attention("metrics::sink_score", "A", a, o);
  return mean_first_key_mass(a);
}

// The layer-wise score of Sec. 4.7: the mean of eq. 5 over a list holding one
// attention matrix per (validation sequence, head) of one layer, in list order.
// Sequences may differ in length; each pair weighs the same.
template <class S>
S layer_sink_score(const std::vector<Mat<S>>& attention, const SinkOptions& o = {}) {
  constexpr const char* where = "metrics::layer_sink_score";
  require(!attention.empty(), where,
          "expected a non-empty list of attention matrices (one per sequence and head), got an "
          "empty list");
  S sum = S(0);
  for (std::size_t k = 0; k < attention.size(); ++k) {
    const std::string name = "attention[" + std::to_string(k) + "]";
    check_attention(where, name.c_str(), attention[k], o);
    sum += mean_first_key_mass(attention[k]);
  }
  return S(sum / S(static_cast<long>(attention.size())));
}

}  // namespace scaleref::metrics
