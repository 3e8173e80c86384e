// LayerNorm's spec (seednorm eq. 1; rescale eq. 2-4): its settings and
// tensors. The formulas and the backward are in scaleref/norm/layernorm.hpp.
#pragma once

#include <scaleref/spec/common.hpp>

namespace scaleref::norm::layernorm {

struct Config {
  double eps = 1e-5;  // added to the variance
  bool bias = true;   // beta present
};

inline constexpr std::array<spec::Tensor, 2> kParams{spec::kNormGain, spec::kNormBias};

inline constexpr std::array<spec::Setting, 2> kSettings{
    spec::real_setting("eps", Config{}.eps, "added to the variance"),
    spec::bool_setting("bias", Config{}.bias, "beta present")};

// x, gamma, beta (with bias).
constexpr spec::TensorList inputs(const Config& c) {
  spec::TensorList t;
  t.add(spec::batch_input("x", "D")).add(kParams[0]);
  if (c.bias) t.add(kParams[1]);
  return t;
}

}  // namespace scaleref::norm::layernorm
