// Per-layer gradient norms (sdd Sec. 4.4 "Gradient Visualization", Fig. 7).
//
// Fig. 7 plots, per layer, the norm of the gradient of each weight matrix
// (att_proj: the fused query/key/value projection; attn_out; ff_proj: the gate
// and first FC layer; ff_out) for four models. The norm is not named; the one
// training frameworks log (torch.nn.utils.clip_grad_norm_, OLMo's per-parameter
// grad norms) is the Frobenius norm, the 2-norm of the flattened gradient:
//
//   ||G||_F = sqrt(sum_ij G_ij^2)
//
// computed with power-of-two scaling (common.hpp), so gradients near 1e-200 or
// 1e200 neither underflow to 0 nor overflow to inf.
#pragma once

#include <scaleref/metrics/common.hpp>
#include <vector>

namespace scaleref::metrics {

// ||G||_F of one gradient matrix.
template <class S>
S gradient_norm(const Mat<S>& g) {
  check_matrix("metrics::gradient_norm", "G", g);
  return frobenius_norm(g);
}

// ||G_k||_F for each gradient in the list, in list order (e.g. one entry per
// layer for one matrix type, as in one panel of Fig. 7).
template <class S>
std::vector<S> gradient_norms(const std::vector<Mat<S>>& grads) {
  check_list("metrics::gradient_norms", "grads", grads);
  std::vector<S> out;
  for (const Mat<S>& g : grads) out.push_back(frobenius_norm(g));
  return out;
}

}  // namespace scaleref::metrics
