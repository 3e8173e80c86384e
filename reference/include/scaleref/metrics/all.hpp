// Every diagnostic metric of the five papers, one topic per header:
//
//   weights.hpp      mean and std of a matrix (rescale), spectral norm and
//                    stable rank (smallinit eq. 7), row cosine similarity (eq. 6)
//   attention.hpp    attention sink score (smallinit eq. 5), per layer
//   tokens.hpp       Delta p, Delta^sym p, token difficulty and its bins
//                    (smallinit Sec. 4.7)
//   activations.hpp  maximum absolute activation (rescale Sec. 4.3),
//                    residual-flow ratio (smallinit Appendix A), inter-layer
//                    feature similarity (sdd Fig. 9)
//   gradients.hpp    per-layer gradient norms (sdd Fig. 7)
//   common.hpp       input checks and overflow-free norms they share
//
// Every function is a template on the scalar S (double, Real50), pure, and
// deterministic for any number of threads; bad input throws scaleref::Error.
#pragma once

#include <scaleref/metrics/activations.hpp>
#include <scaleref/metrics/attention.hpp>
#include <scaleref/metrics/gradients.hpp>
#include <scaleref/metrics/tokens.hpp>
#include <scaleref/metrics/weights.hpp>
