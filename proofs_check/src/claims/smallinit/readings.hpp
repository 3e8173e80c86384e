// How the audit reads the smallinit paper's notation: one Reading per
// notation, applied to every claim that uses it.
#pragma once

#include <scaleref/audit/claim.hpp>

namespace scaleref::audit::smallinit_claims {

// Sec. 2.1's saturation wording: the criterion, its threshold and its converse.
inline const Reading kSaturationReading{
    "smallinit.reading.eps-saturation",
    "\"once sigma^2(h) <~ eps the factor is governed by eps\", \"eps = 10^-5 saturates the factor "
    "for gamma > 0.6\", \"eps = 10^-12 keeps it sensitive to gamma over a far wider range\" (Sec. "
    "2.1, line 61; \\lesssim in the source)",
    "<~ read as 'at most of the order of': eps saturates the RMSNorm factor (sigma^2 + "
    "eps)^(-1/2) once sigma^2(h) = d^(-2 gamma) is within one decade of eps, sigma^2 <= 10 eps, "
    "i.e. from gamma_sat(eps) = ln(1 / (10 eps)) / (2 ln d), at d = 2048. 'Saturates for gamma > "
    "0.6' holds if gamma_sat(1e-5) <= 0.65 (0.6 to its one printed decimal); 'sensitive over a "
    "far wider range' holds if gamma_sat(1e-12) > gamma_sat(1e-5)",
    "sigma^2 <= eps exactly (onset where sigma^2 = eps; rejected as the decider: <~ is not <=, "
    "and the paragraph argues in orders of magnitude, sigma^2 = 4.8e-4 and 2.4e-7 'much smaller' "
    "than 1e-5; its onset is reported beside); the share by which eps shrinks the factor, 1 - "
    "sigma / sqrt(sigma^2 + eps), at some level (the text names no level; the gamma at 1%, 10% "
    "and 50% and the share at gamma = 0.6 are reported beside); the factor's log-slope in gamma "
    "relative to its eps-free value (reported beside at gamma = 0.6)"};

// Sec. 2.4 and Appendix A's scaling notation.
inline const Reading kScalingReading{
    "smallinit.reading.scaling-notation",
    "Theta(d^a), \\asymp d^a, \\sim d^a said of a norm of Gaussian vectors, matrices or a random "
    "pre-norm stack (Sec. 2.4, Appendix A)",
    "the exponent a is the least-squares log-log slope of the quantity against d, drawn under one "
    "seed at d = 64, 128, 256, 512 (to 2048 with --thorough); the claim holds approximately when "
    "the "
    "slope is within the claim's stated tolerance of a (0.05 for a single norm, 0.1 for the "
    "4-layer residual flow, whose O(1) factors drift with d). An exact identity behind the "
    "notation (||RMSNorm(e)||_2 = sqrt(d) at eps = 0) is checked exactly",
    "the exponent of an expectation (E||e||^2 = d^(1 - 2 gamma) holds by linearity; rejected: it "
    "does not test the sampled norm); two-sided bounds c d^a <= X <= C d^a (undecidable at finite "
    "d without the constants, which the paper does not give); a fit over seeds (the runner "
    "repeats each check over seeds instead)"};

// "Xavier-like" (lines 45 and 138).
inline const Reading kXavierReading{
    "smallinit.reading.xavier-like",
    "\"recovers the standard scale such as Xavier-like scale\" (line 45), \"Var(W_ij) = "
    "d_in^-1, which corresponds to the conventional Xavier-like scaling\" (line 138)",
    "the same rate in the width as Glorot-Xavier's variance 2 / (d_in + d_out): for the LM's "
    "weight shapes at a fixed aspect ratio (d x d, 4d x d, d x 4d; d = 256..4096) the gamma = 1/2 "
    "variance d_in^(-2 gamma) and Xavier's have the same log-log slope in d and a ratio constant "
    "in d. Equal variances for every shape: holds; the same rate with a shape-dependent constant "
    "ratio ('-like'): holds approximately; a different rate: fails",
    "equal variances for every shape as the only pass (rejected: '-like' hedges it, and the two "
    "differ by (d_in + d_out) / (2 d_in) off square; the ratios are reported); LeCun's fan-in "
    "variance 1 / d_in, which gamma = 1/2 equals exactly (a different scheme from the one the text "
    "names; noted in the detail)"};

// eq. 7's summation range.
inline const Reading kStableRankIndexReading{
    "smallinit.reading.stable-rank-index",
    "the sum over i = 1..d of sigma_i^2 in eq. 7, for W in R^(m x n)",
    "the sum runs over all min(m, n) singular values of W (d is read as the number of singular "
    "values)",
    "d as the model width (equal to min(m, n) only for d x d maps; for an FFN map of 4d x d the "
    "sum would name singular values that do not exist)"};

}  // namespace scaleref::audit::smallinit_claims
