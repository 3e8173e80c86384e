// A batch for the tiny LM: B sequences of T token ids, row-major (sequence b,
// position t at b T + t), and the target of every position (-1: the position
// does not count in the loss, PyTorch's ignore_index).
#pragma once

#include <scaleref/error.hpp>
#include <scaleref/lm/config.hpp>
#include <vector>

namespace scaleref::lm {

struct Batch {
  long batch = 0;            // B
  long seq = 0;              // T
  std::vector<int> tokens;   // B T ids in [0, vocab)
  std::vector<int> targets;  // B T ids in [0, vocab), or -1

  long rows() const { return batch * seq; }
  // The number of positions that count in the loss.
  long counted() const {
    long n = 0;
    for (int t : targets) n += t >= 0;
    return n;
  }
};

// Throws Error unless b fits the model c and has at least one counted target.
inline void check_batch(const char* where, const Config& c, const Batch& b) {
  require(b.batch >= 1 && b.seq >= 1, where,
          "expected a batch of B >= 1 sequences of T >= 1 tokens, got B = ", b.batch,
          ", T = ", b.seq);
  require(b.seq <= c.max_seq, where, "expected T <= max_seq = ", c.max_seq, ", got T = ", b.seq);
  require(static_cast<long>(b.tokens.size()) == b.rows() &&
              static_cast<long>(b.targets.size()) == b.rows(),
          where, "expected ", b.rows(), " tokens and targets, got ", b.tokens.size(), " and ",
          b.targets.size());
  for (std::size_t i = 0; i < b.tokens.size(); ++i) {
    require(b.tokens[i] >= 0 && b.tokens[i] < c.vocab, where, "token ", i, " = ", b.tokens[i],
            " is outside [0, vocab = ", c.vocab, ")");
    require(b.targets[i] >= -1 && b.targets[i] < c.vocab, where, "target ", i, " = ", b.targets[i],
            " is outside [-1, vocab = ", c.vocab, ")");
  }
  require(b.counted() >= 1, where, "expected at least one target >= 0, got none");
}

}  // namespace scaleref::lm
