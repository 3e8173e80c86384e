// The tiny transformer LM (lm/config.hpp gives the model, every switch)
// rebuilt from tape primitives: an independent formulation of lm/model.hpp's
// loss, whose gradient is the tape's reverse sweep. Nothing here calls the
// reference's forward or backward code; it reads only the config and the
// parameter layout (lm/params.hpp: names, shapes, order).
//
// How the pieces map onto primitives (rows are tokens, row b T + t):
//   embedding     one-hot [B T, vocab] constant times E (and one-hot positions times P)
//   heads         slice_cols / concat_cols
//   sequences     rows sliced as transpose(slice_cols(transpose(x))), joined likewise
//   attention     matmul, scale, causal_mask, row_softmax; the gate is sigmoid(u W_g^T)
//   norms         row_mean, square, rsqrt, mul_colvec, mul_rowvec, tanh, ...
//   loss          log(row_softmax(logits)), summed against a constant mask that
//                 holds -1 / (counted positions) at each counted target
#pragma once

#include <scaleref/autodiff/tape.hpp>
#include <scaleref/lm/batch.hpp>
#include <scaleref/lm/config.hpp>
#include <scaleref/lm/params.hpp>
#include <utility>
#include <vector>

namespace scaleref::autodiff {

// The loss node built on tape t from one leaf (or constant) per parameter, in
// lm::layout(c) order. Throws scaleref::Error on a bad config, a batch that
// does not fit the model, or a parameter list of the wrong length or shapes.
template <class S>
Var<S> tape_lm_loss(Tape<S>& t, const lm::Config& c, const std::vector<Var<S>>& params,
                    const lm::Batch& b);

// The loss and d loss / d params (the same layout as p), through the tape.
template <class S>
std::pair<S, lm::ParamStore<S>> tape_lm_gradients(const lm::Config& c, const lm::ParamStore<S>& p,
                                                  const lm::Batch& b);
// The same, recorded on t after t.clear(): called again with the same shapes,
// it reuses the matrices of the previous recording (tape.hpp, "Storage").
template <class S>
std::pair<S, lm::ParamStore<S>> tape_lm_gradients(Tape<S>& t, const lm::Config& c,
                                                  const lm::ParamStore<S>& p, const lm::Batch& b);

}  // namespace scaleref::autodiff
