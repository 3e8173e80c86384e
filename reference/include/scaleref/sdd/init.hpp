// SDD's initialization (sdd Sec. 4.1, "Training Setup"), and the authors' code
// where it differs (../shared/papers/README.md):
//
//   alpha = 1 / sqrt(L) on the attention-output and FFN-output projections,
//           1 on the others (query, key, value, gate, up)          -- paper
//   alpha = 1 / sqrt(2 L) on those two, 1 elsewhere               -- authors' code
//   V ~ N(0, 1 / sqrt(2.5 d_model)), and the text does not say whether
//       1 / sqrt(2.5 d_model) is the standard deviation or the variance:
//       VReading::std       sigma = 1 / sqrt(2.5 d_model)
//       VReading::variance  sigma = (2.5 d_model)^(-1/4)
//   optionally truncated at 3 sigma, as the authors' code does.
//
// V is drawn either from any uniform random bit generator, entries row by row,
// or from a stream of the project's counter-based generator (scaleref/random/
// stream.hpp), entry (i, j) at index i * d_in + j like every scaleref
// initializer, so that V is a pure function of (seed, tensor id, shape, VInit).
#pragma once

#include <cmath>
#include <scaleref/error.hpp>
#include <scaleref/random/stream.hpp>
#include <scaleref/sampling.hpp>
#include <scaleref/spec/init.hpp>
#include <scaleref/spec/sdd.hpp>
#include <scaleref/types.hpp>

namespace scaleref::sdd {

// The project's roles (spec/init.hpp): SDD applies 1/sqrt(L) to the residual
// output projections (attention output, FFN output) and 1 to every other map.
using init::Role;

// AlphaRule, VReading: scaleref/spec/sdd.hpp.

// The initial value of every entry of alpha, for a model with n_layers layers.
inline double alpha_init(Role role, int n_layers, AlphaRule rule = AlphaRule::paper) {
  require(n_layers >= 1, "sdd::alpha_init", "expected n_layers >= 1, got ", n_layers);
  if (!init::is_residual_output(role)) return 1.0;
  return 1.0 / std::sqrt((rule == AlphaRule::paper ? 1.0 : 2.0) * n_layers);
}

// The standard deviation of V's entries under a reading of N(0, 1 / sqrt(2.5 d_model)).
inline double v_std(long d_model, VReading reading = VReading::std) {
  require(d_model >= 1, "sdd::v_std", "expected d_model >= 1, got ", d_model);
  const double s = 1.0 / std::sqrt(2.5 * static_cast<double>(d_model));
  return reading == VReading::std ? s : std::sqrt(s);
}

struct VInit {
  long d_model = 0;
  VReading reading = VReading::std;
  bool truncate_3_sigma = false;  // the authors' code: true
};

// V [d_out, d_in], entries drawn row by row from gen.
template <class S, class URBG>
Mat<S> init_V(long d_out, long d_in, const VInit& v, URBG& gen) {
  require(d_out >= 1 && d_in >= 1, "sdd::init_V", "expected a non-empty shape, got ", d_out, "x",
          d_in);
  const double sigma = v_std(v.d_model, v.reading);
  Mat<S> V(d_out, d_in);
  for (long i = 0; i < V.size(); ++i)
    V.data()[i] = S(
        sigma * (v.truncate_3_sigma ? truncated_standard_normal(gen, 3.0) : standard_normal(gen)));
  return V;
}

// V [d_out, d_in], entry (i, j) = sigma * z with z = normal(seed, tensor, i * d_in + j),
// or truncated_normal(seed, tensor, i * d_in + j, 3) when truncated at 3 sigma.
template <class S>
Mat<S> init_V(long d_out, long d_in, const VInit& v, random::Stream stream) {
  require(d_out >= 1 && d_in >= 1, "sdd::init_V", "expected a non-empty shape, got ", d_out, "x",
          d_in);
  const double sigma = v_std(v.d_model, v.reading);
  const auto cols = static_cast<std::uint64_t>(d_in);
  Mat<S> V(d_out, d_in);
  for (long i = 0; i < d_out; ++i) {
    for (long j = 0; j < d_in; ++j) {
      const std::uint64_t index =
          random::element_index(static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(j), cols);
      V(i, j) = S(sigma * (v.truncate_3_sigma ? stream.truncated_normal(index, 3.0)
                                              : stream.normal(index)));
    }
  }
  return V;
}

template <class S>
Mat<S> init_alpha(long d_out, Role role, int n_layers, AlphaRule rule = AlphaRule::paper) {
  return Mat<S>::Constant(1, d_out, S(alpha_init(role, n_layers, rule)));
}

}  // namespace scaleref::sdd
