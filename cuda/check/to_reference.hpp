// SeeDNorm's option enums of the GPU API as the reference's (host code for
// cuda_check and the GPU tests): the reference's live in headers that pull in
// Eigen and Boost, which the .cu files do not. (The scale-vector strategies
// are one enum, scaleref/scalevec/strategy.hpp, on both sides.)
#pragma once

#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/error.hpp>
#include <scaleref/norm/seednorm.hpp>

namespace scaleref::cuda::check {

inline norm::Activation to_reference(seednorm::Activation a) {
  switch (a) {
    case seednorm::Activation::tanh:
      return norm::Activation::tanh;
    case seednorm::Activation::sigmoid:
      return norm::Activation::sigmoid;
    case seednorm::Activation::hardtanh:
      return norm::Activation::hardtanh;
    case seednorm::Activation::softsign:
      return norm::Activation::softsign;
    case seednorm::Activation::gelu:
      return norm::Activation::gelu;
    case seednorm::Activation::swish:
      return norm::Activation::swish;
  }
  fail("cuda::check::to_reference: unknown activation");
}

inline norm::seednorm::AlphaForm to_reference(seednorm::AlphaForm a) {
  switch (a) {
    case seednorm::AlphaForm::vector:
      return norm::seednorm::AlphaForm::vector;
    case seednorm::AlphaForm::scalar:
      return norm::seednorm::AlphaForm::scalar;
    case seednorm::AlphaForm::none:
      return norm::seednorm::AlphaForm::none;
  }
  fail("cuda::check::to_reference: unknown alpha form");
}

}  // namespace scaleref::cuda::check
