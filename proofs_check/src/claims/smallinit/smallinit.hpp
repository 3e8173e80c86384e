// The smallinit paper's claims ("Small Initialization Matters for LLMs"):
// the section adders and the helpers several sections share.
//
// Files: saturation.cpp (Sec. 2.1, "Adjusting the RMSNorm constant": the eps
// saturation), scale_analysis.cpp (Sec. 2.4 and Appendix A: the scale
// analysis), method.cpp (Sec. 4.2's gamma = 1/2, eq. 7's stable rank and
// Sec. 4.7's symmetric probability gap).
//
// Setting of Appendix A, as the paper writes it: entries of the embedding e
// and of every d x d weight matrix are N(0, d^(-2 gamma)); a pre-norm block is
// F(h) = W_2 phi(W_1 RMSNorm(h)) with RMSNorm(h) = h / RMS(h) (no eps, no
// gain) and phi an activation contributing an O(1) factor (SiLU here, the
// FFN's activation in scaleref's LM).
#pragma once

#include <scaleref/eigen_dense.hpp>
#include <scaleref/norm/rmsnorm.hpp>

#include "claims/support.hpp"

namespace scaleref::audit {

void add_smallinit_saturation_claims(Registrar& r);
void add_smallinit_scale_analysis_claims(Registrar& r);
void add_smallinit_method_claims(Registrar& r);

namespace smallinit_claims {

// RMSNorm without gain, by the reference module: h / sqrt(mean(h^2) + eps).
inline Mat<double> rms_normalize(const Mat<double>& h, double eps) {
  const auto p = norm::rmsnorm::init<double>(h.cols());
  return norm::rmsnorm::forward(p, norm::rmsnorm::Config{eps}, h);
}

}  // namespace smallinit_claims
}  // namespace scaleref::audit
