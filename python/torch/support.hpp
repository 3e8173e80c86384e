// What every scaleref torch operator checks of a tensor argument, whichever
// backend runs it: a storage type the kernels have (float32, bfloat16,
// float64), as TypeError naming the argument.
#pragma once

#include <torch/types.h>

namespace scaleref::torch_ops {

inline void check_storage(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK_VALUE(t.defined(), op, ": ", name, " is an undefined tensor");
  const at::ScalarType s = t.scalar_type();
  TORCH_CHECK_TYPE(s == at::kFloat || s == at::kBFloat16 || s == at::kDouble, op, ": ", name,
                   " is ", s, "; expected float32, bfloat16 or float64");
}

}  // namespace scaleref::torch_ops
