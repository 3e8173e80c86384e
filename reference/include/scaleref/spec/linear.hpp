// The plain fully-connected layer's spec (sdd eq. 1), the baseline SDD is
// compared with: its tensors. The layer is scaleref/linear/plain.hpp.
#pragma once

#include <scaleref/spec/common.hpp>

namespace scaleref::linear {

inline constexpr std::array<spec::Tensor, 1> kParams{spec::Tensor{
    "W", {"d_out", "d_in"}, true, "a linear map's weight: decayed like any weight matrix"}};

// x, W.
constexpr spec::TensorList inputs() {
  return spec::TensorList{}.add(spec::batch_input("x", "d_in")).add(kParams[0]);
}

}  // namespace scaleref::linear
