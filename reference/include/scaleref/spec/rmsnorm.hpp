// RMSNorm's spec (seednorm eq. 2; rescale eq. 5-7): its settings and tensors.
// The formulas and the backward are in scaleref/norm/rmsnorm.hpp.
#pragma once

#include <scaleref/spec/common.hpp>

namespace scaleref::norm::rmsnorm {

struct Config {
  double eps = 1e-6;  // inside the square root
};

inline constexpr std::array<spec::Tensor, 1> kParams{
    spec::Tensor{"gamma",
                 {"1", "D"},
                 false,
                 "norm gains carry no weight decay in any of the five papers' setups",
                 spec::Initial::ones}};

inline constexpr std::array<spec::Setting, 1> kSettings{
    spec::real_setting("eps", Config{}.eps, "inside the square root of RMS(x)")};

// x, gamma.
constexpr spec::TensorList inputs(const Config&) {
  return spec::TensorList{}.add(spec::batch_input("x", "D")).add(kParams[0]);
}

}  // namespace scaleref::norm::rmsnorm
