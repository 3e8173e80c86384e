// The weight initializers of the papers: rescale Sec. 2.3 (Gaussian, Xavier,
// Kaiming, GPT-2's special residual init, DS-Init, Layer Index Rescaling) and
// smallinit Sec. 4.2 (gamma-initialization).
//
// A weight matrix is [d_out, d_in] (PyTorch's nn.Linear layout: one row per
// output unit), so n_in = d_in is its number of columns (the fan-in) and
// n_out = d_out its number of rows. rescale writes W in R^(n_in x n_out)
// (the transpose, for y = x W); the counts mean the same either way. An
// embedding table or the LM head is [vocab, d] (nn.Embedding's and the head's
// nn.Linear(d, vocab) layout), so its d_in is the width d, the number
// smallinit's Appendix A puts in the embedding's N(0, d^(-2 gamma)), and its
// fan-out is the vocabulary, as PyTorch's fan rule reads both tensors.
// N(0, v) names the variance v, as every equation below writes it.
//
//   Gaussian        W ~ N(0, sigma^2), sigma = 0.02 by default          rescale Sec. 2.3.3
//   XavierUniform   W ~ U(-b, b), b = sqrt(6 / (n_in + n_out))          rescale eq. 8
//   XavierNormal    W ~ N(0, 2 / (n_in + n_out))                        rescale eq. 9
//   KaimingNormal   W ~ N(0, 2 / n_in)                                  rescale eq. 10
//   KaimingUniform  W ~ U(-b, b), b = sqrt(6 / n_in)                    rescale eq. 11
//   SIR             W ~ N(0, sigma^2 / (2 N)) on the residual output    rescale eq. 12
//                   projections (attention output, FFN output: "the last
//                   linear transformation in each MLP and Attention layer"),
//                   N(0, sigma^2) on every other matrix; N = n_layers, the
//                   number of decoder layers (blocks), as GPT-2 and the
//                   authors' code count them
//   DSInit          W ~ U(-beta alpha / sqrt(l), beta alpha / sqrt(l)),  rescale eq. 14-15
//                   beta = sqrt(6 / (n_in + n_out)), alpha in (0, 1], inside
//                   decoder layer l; eq. 13's U(-beta, beta) for the
//                   embedding and the head (the project's reading: the paper
//                   scales by depth only what has a depth)
//   LIR             W ~ N(0, sigma^2 / l) inside decoder layer l,        rescale eq. 16
//                   N(0, sigma^2) for the embedding and the head (the
//                   authors' code: embeddings and head keep the base std)
//   GammaInit       W ~ N(0, d_in^(-2 gamma)), sigma = d_in^(-gamma),    smallinit Sec. 4.2
//                   gamma = 1 by default (the paper's recommendation;
//                   gamma = 1/2 is its "standard scale")
//
// The layer index l starts at 1 (the authors' code: enumerate(layers, start=1));
// every matrix inside a decoder layer must carry l >= 1, whatever the method,
// since a 0 there means a 0-based count that LIR and DS-Init would divide by.
// The embedding and the head sit outside the layers and their l is not read.
//
// Decisions on input the papers leave open, each an Error with a message:
//   - sigma (Gaussian, SIR, LIR) must be finite and > 0.
//   - gamma must be finite and >= 0: gamma = 0 gives sigma = 1 whatever the
//     width, the edge of the family; gamma < 0 gives a sigma that grows with
//     the width (d_in^|gamma| > 1), the opposite of what the paper's "larger
//     gamma yields smaller initialization" is for, and most likely a sign
//     slip. A gamma so large that d_in^(-gamma) underflows to 0 is an Error
//     too (nothing is clamped).
//   - DS-Init's alpha must be in (0, 1]: the paper's range is [0, 1], but
//     alpha = 0 makes every weight 0, a std of 0 that no other method accepts.
//   - SIR needs n_layers >= 1 and a layer index l <= n_layers.
//   - LIR and SIR are exclusive (the authors' code asserts it): a Config names
//     one method, and from_switches(), the authors' code's switches, rejects
//     a request for both.
//
// Drawing: element (i, j) uses index i * d_in + j of the stream (seed, tensor)
// (scaleref/random/stream.hpp), so the matrix is a pure function of (seed,
// tensor id, shape, config), the same on CPU and GPU:
//   normal laws:  W_ij = std * normal(seed, tensor, i * d_in + j)
//   uniform laws: W_ij = b * (2 u - 1), u = uniform(seed, tensor, i * d_in + j) in (0, 1],
//                 so |W_ij| <= b (2u - 1 is exact; |2u - 1| = 1, |W_ij| = b, only when u = 1,
//                 which random::uniform returns with probability 2^-53).
// The value is computed in double and converted to S, so every scalar type
// holds the same weights: draw<Real50> is draw<double> converted exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/random/stream.hpp>
#include <scaleref/spec/init.hpp>
#include <scaleref/types.hpp>
#include <type_traits>
#include <variant>

namespace scaleref::init {

// Shape, Role, the methods (Gaussian ... GammaInit), Config and their names:
// scaleref/spec/init.hpp.

// The authors' code's switches (re_initialize_model in bluorion-com/weight_rescaling):
// one base std, LIR ("scale_with_depth") and GPT-2's special residual init, on
// or off. Both on is an Error, as there.
struct RescaleSwitches {
  double sigma = 0.02;                 // initializer_range
  bool layer_index_rescaling = false;  // LIR
  bool special_residual = false;       // SIR
  int n_layers = 0;                    // SIR's N
};

inline Config from_switches(const RescaleSwitches& s) {
  require(!(s.layer_index_rescaling && s.special_residual), "init::from_switches",
          "LIR and SIR are exclusive (rescale, authors' code): expected at most one of "
          "layer_index_rescaling and special_residual, got both");
  if (s.layer_index_rescaling) return LIR{s.sigma};
  if (s.special_residual) return SIR{s.sigma, s.n_layers};
  return Gaussian{s.sigma};
}

enum class Family { normal, uniform };

// The law a method draws a matrix's entries from: N(0, std^2), or U(-bound,
// bound) with std = bound / sqrt(3). bound is +infinity for a normal law.
struct Law {
  Family family;
  double std;
  double bound;
};

namespace detail {

inline Law normal_law(double std) {
  return {Family::normal, std, std::numeric_limits<double>::infinity()};
}

inline Law uniform_law(double bound) { return {Family::uniform, bound / std::sqrt(3.0), bound}; }

inline void check_sigma(const char* where, const char* method, double sigma) {
  require(std::isfinite(sigma) && sigma > 0, where, method, ": expected a finite sigma > 0, got ",
          sigma);
}

inline Law law_at(const char* where, const Shape& s, int layer, const Config& config) {
  require(s.d_out >= 1 && s.d_in >= 1, where, "expected a non-empty shape [d_out x d_in], got [",
          s.d_out, "x", s.d_in, "]");
  const bool inside = in_decoder_layer(s.role);
  require(!inside || layer >= 1, where, "expected a layer index l >= 1 (l starts at 1) for the ",
          role_name(s.role), " map of a decoder layer, got ", layer);
  const double n_in = static_cast<double>(s.d_in), n_out = static_cast<double>(s.d_out);
  const double l = static_cast<double>(layer);

  const Law law = std::visit(
      [&](const auto& m) -> Law {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, Gaussian>) {
          check_sigma(where, "Gaussian", m.sigma);
          return normal_law(m.sigma);
        } else if constexpr (std::is_same_v<M, XavierNormal>) {
          return normal_law(std::sqrt(2.0 / (n_in + n_out)));  // eq. 9
        } else if constexpr (std::is_same_v<M, XavierUniform>) {
          return uniform_law(std::sqrt(6.0 / (n_in + n_out)));  // eq. 8
        } else if constexpr (std::is_same_v<M, KaimingNormal>) {
          return normal_law(std::sqrt(2.0 / n_in));  // eq. 10
        } else if constexpr (std::is_same_v<M, KaimingUniform>) {
          return uniform_law(std::sqrt(6.0 / n_in));  // eq. 11
        } else if constexpr (std::is_same_v<M, SIR>) {
          check_sigma(where, "SIR", m.sigma);
          require(m.n_layers >= 1, where,
                  "SIR: expected n_layers >= 1 (N, the number of decoder layers), got ",
                  m.n_layers);
          require(!inside || layer <= m.n_layers, where,
                  "SIR: expected a layer index l <= n_layers = ", m.n_layers, ", got ", layer);
          if (!is_residual_output(s.role)) return normal_law(m.sigma);
          return normal_law(m.sigma / std::sqrt(2.0 * m.n_layers));  // eq. 12
        } else if constexpr (std::is_same_v<M, DSInit>) {
          require(m.alpha > 0 && m.alpha <= 1, where, "DSInit: expected alpha in (0, 1], got ",
                  m.alpha);
          const double beta = std::sqrt(6.0 / (n_in + n_out));  // eq. 15
          if (!inside) return uniform_law(beta);                // eq. 13
          return uniform_law(beta * m.alpha / std::sqrt(l));    // eq. 14
        } else if constexpr (std::is_same_v<M, LIR>) {
          check_sigma(where, "LIR", m.sigma);
          if (!inside) return normal_law(m.sigma);
          return normal_law(m.sigma / std::sqrt(l));  // eq. 16
        } else {
          static_assert(std::is_same_v<M, GammaInit>);
          require(std::isfinite(m.gamma) && m.gamma >= 0, where,
                  "GammaInit: expected a finite gamma >= 0 (gamma < 0 grows sigma with the width), "
                  "got ",
                  m.gamma);
          const double sigma = std::pow(n_in, -m.gamma);  // smallinit Sec. 4.2
          require(sigma > 0, where,
                  "GammaInit: sigma = d_in^(-gamma) underflows to 0 for d_in = ", s.d_in,
                  ", gamma = ", m.gamma);
          return normal_law(sigma);
        }
      },
      config);
  return law;
}

}  // namespace detail

// The law of the entries of a [d_out, d_in] matrix at `role` in decoder layer
// `layer` (not read for the embedding and the head) under `config`.
inline Law law(const Shape& shape, int layer, const Config& config) {
  return detail::law_at("init::law", shape, layer, config);
}

// The standard deviation the entries target.
inline double target_std(const Shape& shape, int layer, const Config& config) {
  return detail::law_at("init::target_std", shape, layer, config).std;
}

// The matrix W [d_out, d_in], element (i, j) drawn at index i * d_in + j of rng.
template <class S>
Mat<S> draw(const Shape& shape, int layer, const Config& config, const random::Stream& rng) {
  const Law law = detail::law_at("init::draw", shape, layer, config);
  Mat<S> W(shape.d_out, shape.d_in);
  const auto cols = static_cast<std::uint64_t>(shape.d_in);
  for (long i = 0; i < shape.d_out; ++i) {
    for (long j = 0; j < shape.d_in; ++j) {
      const std::uint64_t index =
          random::element_index(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j), cols);
      const double w = law.family == Family::normal ? law.std * rng.normal(index)
                                                    : law.bound * (2.0 * rng.uniform(index) - 1.0);
      W(i, j) = S(w);
    }
  }
  return W;
}

}  // namespace scaleref::init
