// The kernel families cuda_check runs, one function per source file of
// cuda/check/; main.cpp lists them in order.
#pragma once

#include "support.hpp"

namespace scaleref::cuda::check {

Family norms_family();  // norms.cpp: RMSNorm, LayerNorm, DyT, SeeDNorm (+ multi-head), AdaSeeDNorm
Family sdd_family();    // sdd.cpp: the SDD layer (cuBLAS + norm-and-scale epilogue)
Family scalevec_family();  // scalevec.cpp: AP / DP / DNP / MD / HG placements
Family rescale_family();   // rescale.cpp: TVR / ZWR / UWR
Family init_family();      // init.cpp: every initializer vs the CPU's values, bit for bit
Family replay_family();    // replay.cpp: parameter gradients bitwise equal on a second run

}  // namespace scaleref::cuda::check
