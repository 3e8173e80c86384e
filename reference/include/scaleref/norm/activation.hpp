// sigma and sigma' of SeeDNorm (the activations and their names are in
// scaleref/spec/seednorm.hpp) in double or Real50, with GELU's constants
// evaluated in that precision: sqrt(2 / pi) from Boost.Math's pi, 0.044715
// read as a decimal.
#pragma once

#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <scaleref/spec/seednorm.hpp>
#include <scaleref/types.hpp>

namespace scaleref::norm {

// Evaluated once per precision.
template <class S>
const GeluConstants<S>& gelu_constants() {
  using std::sqrt;
  static const GeluConstants<S> g{S(sqrt(S(2) / boost::math::constants::pi<S>())),
                                  from_decimal<S>("0.044715")};
  return g;
}

// sigma(z).
template <class S>
S activate(Activation a, const S& z) {
  return activate(a, z, gelu_constants<S>());
}

// sigma'(z).
template <class S>
S activate_derivative(Activation a, const S& z) {
  return activate_derivative(a, z, gelu_constants<S>());
}

// The size of the terms sigma'(z) is computed from (spec/seednorm.hpp).
template <class S>
S activate_derivative_scale(Activation a, const S& z) {
  return activate_derivative_scale(a, z, gelu_constants<S>());
}

}  // namespace scaleref::norm
