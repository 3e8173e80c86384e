// SDD's cost over a plain layer of the same shape, as the paper states it
// (sdd Sec. 2.2), as functions of the shape: the paper audit compares them
// with a count of the operations sdd::forward performs.
#pragma once

#include <cstdint>

namespace scaleref::sdd {

// "approximately 6BSH" extra FLOPs per layer: 3BSH for the RMS normalization
// and 3BSH for the element-wise multiplication, for B x S tokens and hidden
// size H (input and output width both H).
inline double paper_extra_flops(double batch, double seq, double hidden) {
  return 6.0 * batch * seq * hidden;
}

// "adding just n (or H) parameters from the scaling vector alpha per layer".
inline std::int64_t paper_extra_params(std::int64_t n) { return n; }

// The share of the layer's FLOPs the paper quotes, "approximately 6/H".
inline double paper_extra_flop_share(double hidden) { return 6.0 / hidden; }

}  // namespace scaleref::sdd
