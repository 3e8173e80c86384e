// DyT's spec (seednorm eq. 3; its authors' code): its settings and tensors.
// The formulas and the backward are in scaleref/norm/dyt.hpp.
#pragma once

#include <scaleref/spec/common.hpp>

namespace scaleref::norm::dyt {

struct Config {
  bool bias = true;         // beta present
  double alpha_init = 0.5;  // the DyT authors' default alpha_0
};

inline constexpr std::array<spec::Tensor, 3> kParams{
    spec::Tensor{"alpha",
                 {"1", "1"},
                 false,
                 "not stated by the papers; treated like a norm parameter",
                 spec::Initial::setting,
                 "alpha_init"},
    spec::kNormGain, spec::kNormBias};

inline constexpr std::array<spec::Setting, 2> kSettings{
    spec::bool_setting("bias", Config{}.bias, "beta present"),
    spec::real_setting("alpha_init", Config{}.alpha_init, "init only: alpha's initial value")};

// x, alpha, gamma, beta (with bias).
constexpr spec::TensorList inputs(const Config& c) {
  spec::TensorList t;
  t.add(spec::batch_input("x", "D")).add(kParams[0]).add(kParams[1]);
  if (c.bias) t.add(kParams[2]);
  return t;
}

}  // namespace scaleref::norm::dyt
