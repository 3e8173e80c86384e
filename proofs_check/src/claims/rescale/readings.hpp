// The rescale paper's readings: one per notation, each applied to every claim
// that uses that notation. The sentences that summarize a table are read by the
// shared kOutperformsReading (claims/support.hpp).
#pragma once

#include <scaleref/audit/claim.hpp>

namespace scaleref::audit::rescale_paper {

// eq. 12 (SIR): N.
inline const Reading kSirLayersReading{
    "rescale.reading.sir-n",
    "N in eq. 12's N(0, sigma^2 / (2N)), \"where N is the number of layers in the network\"",
    "N = the number of decoder layers (blocks); the 2N residual output maps (one attention and "
    "one MLP per block) then have variances that sum to sigma^2 (GPT-2's code: 0.02 / "
    "sqrt(2 n_layer))",
    "N = the number of residual layers, 2 per block, as GPT-2's paper counts them (rejected: "
    "eq. 12's 2N would then count each residual map twice, giving 1/sqrt(2) of GPT-2's std)"};

// eq. 14, eq. 16, Appendix 6.2.5: the layer index l.
inline const Reading kLayerIndexReading{
    "rescale.reading.layer-index",
    "l, \"the layer index\" of eq. 14 (DS-Init) and eq. 16 (LIR), and the 'First' / 'Tenth' "
    "layer of Appendix 6.2.5",
    "l counts the decoder layers from 1 (the first decoder layer is l = 1, the tenth l = 10); "
    "only matrices inside a decoder layer carry an l: outside (embedding, head) DS-Init keeps "
    "eq. 13's U(-beta, beta) and LIR keeps N(0, sigma^2)",
    "l from 0 (rejected: eq. 14 and 16 divide by sqrt(l)); scaling the embedding and the head "
    "too (rejected: they are in no layer; the authors' code keeps the base std there)"};

// eq. 19-21 and the prose before eq. 20: mu(W^l), sigma(W^l).
inline const Reading kZScoreReading{
    "rescale.reading.z-score",
    "mu(W^l), sigma(W^l) of eq. 19-21, which the prose before eq. 20 calls \"the initial mean "
    "of the weights mu(W^l)\"",
    "mu and sigma are the mean and the population standard deviation of the entries of the "
    "matrix being rescaled, at the time it is rescaled (the same mu(W^l) as eq. 19's); the "
    "unbiased sigma of the authors' code (torch.std) is checked beside it",
    "'initial mean' as the mean of the matrix at initialization (about 0 for a zero-mean draw; "
    "rescale.sec.2.4.2.mean-sign measures it beside: not chosen because eq. 20 writes the same "
    "mu(W^l) as eq. 19); sigma unbiased (checked too: eq. 19 and 21 hold with either)"};

// Sec. 4.1: "much faster".
inline const Reading kMuchFasterReading{
    "rescale.reading.much-faster",
    "\"the rate of increase in standard deviation is much faster when starting with smaller "
    "initial values\" (Sec. 4.1)",
    "the growth std(T) - std(0) of the decoder matrices from sigma_init 0.006 at least 1.5 "
    "times that from 0.02 over the same run; faster but less than 1.5x holds approximately",
    "any ratio > 1 (rejected: drops 'much'); a ratio read off Figure 1 (not possible: the "
    "figure's data are not in the text)"};

// The abstract and Sec. 4.2: "up to 4.6%".
inline const Reading kPercentGainReading{
    "rescale.reading.percent-gain",
    "\"up to 4.6% increase in HellaSwag\" (Sec. 4.2), \"up to 4.6% on common pre-training "
    "benchmarks\" (abstract), said of accuracies in %",
    "the largest gain over the baseline (sigma_init = 0.02) row, in accuracy points, in the "
    "column(s) the sentence names (shared.reading.outperforms' main metric: HellaSwag in Sec. "
    "4.2; the 7 benchmark columns, which the abstract names, there); within 0.15 points of "
    "4.6 (two printed entries and the 4.6 each rounded to 0.05) matches",
    "a relative gain, 100 (x - base) / base: evaluated as a reading of its own (it holds if "
    "the relative gain matches; where it does not and the points do, the '%' names the wrong "
    "unit, a notation slip under that reading), the verdict reading-dependent where the two "
    "differ; not preferred because the tables' entries are accuracies in %, and a gain of two "
    "entries is in points, as the paper's own Delta_base is; the Mean column (reported beside for the abstract: Table 3's "
    "largest Mean gain is 2.7 points, 5.4% relative, neither 4.6: the abstract speaks of "
    "benchmarks, and its 4.6 is Sec. 4.2's HellaSwag gain)"};

}  // namespace scaleref::audit::rescale_paper
