// The tiny LM configuration and batch that the speed measurements share
// (scaleref_lm_bench, scaleref_tape_bench; scripts/bench_lm_torch.py builds
// the same model): d_model 128, 4 layers, 4 heads, sequence 128, batch 16,
// vocab 256, SwiGLU width 4 d, Pre-Norm RMSNorm; tokens and targets drawn
// from Philox stream 1.
#pragma once

#include <scaleref/lm/batch.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/random/philox.hpp>

namespace scaleref::bench {

inline lm::Config lm_config() {
  lm::Config c;
  c.vocab = 256;
  c.d_model = 128;
  c.n_layers = 4;
  c.n_heads = 4;
  c.max_seq = 128;
  return c;
}

inline lm::Batch lm_batch(const lm::Config& c) {
  lm::Batch b{16, 128, {}, {}};
  for (long i = 0; i < b.rows(); ++i) {
    b.tokens.push_back(static_cast<int>(random::uniform(1, 0, 2 * i) * c.vocab));
    b.targets.push_back(static_cast<int>(random::uniform(1, 0, 2 * i + 1) * c.vocab));
  }
  return b;
}

}  // namespace scaleref::bench
