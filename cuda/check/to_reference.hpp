// The GPU API's option enums as the reference's (host code for cuda_check and
// the GPU tests): the two sides name the same options, each in its own header
// (the reference's pull in Eigen and Boost, which the .cu files do not).
#pragma once

#include <scaleref/cuda/scalevec.hpp>
#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/error.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/scalevec/linear.hpp>

namespace scaleref::cuda::check {

inline scaleref::scalevec::Strategy to_reference(scalevec::Strategy s) {
  using R = scaleref::scalevec::Strategy;
  switch (s) {
    case scalevec::Strategy::none:
      return R::none;
    case scalevec::Strategy::standard:
      return R::standard;
    case scalevec::Strategy::ap:
      return R::ap;
    case scalevec::Strategy::dp:
      return R::dp;
    case scalevec::Strategy::dnp:
      return R::dnp;
    case scalevec::Strategy::md:
      return R::md;
  }
  fail("cuda::check::to_reference: unknown strategy");
}

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
