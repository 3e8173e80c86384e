// The activation sigma of SeeDNorm (seednorm eq. 4) and its ablations
// (seednorm Sec. 4.3, Figure 4): tanh (the default), sigmoid, hardtanh and
// softsign are bounded; GELU (tanh form) and Swish (= SiLU, x sigmoid(x)) are
// the unbounded ablation under which the paper reports training diverges.
#pragma once

#include <array>
#include <boost/math/constants/constants.hpp>
#include <cmath>
#include <scaleref/error.hpp>
#include <scaleref/types.hpp>
#include <string_view>

namespace scaleref::norm {

enum class Activation { tanh, sigmoid, hardtanh, softsign, gelu, swish };

inline constexpr std::array<Activation, 6> kActivations{Activation::tanh,     Activation::sigmoid,
                                                        Activation::hardtanh, Activation::softsign,
                                                        Activation::gelu,     Activation::swish};

inline std::string_view name(Activation a) {
  switch (a) {
    case Activation::tanh:
      return "tanh";
    case Activation::sigmoid:
      return "sigmoid";
    case Activation::hardtanh:
      return "hardtanh";
    case Activation::softsign:
      return "softsign";
    case Activation::gelu:
      return "gelu";
    case Activation::swish:
      return "swish";
  }
  return "?";
}

// sigma(z).
template <class S>
S activate(Activation a, const S& z) {
  using std::abs;
  using std::exp;
  using std::sqrt;
  using std::tanh;
  switch (a) {
    case Activation::tanh:
      return tanh(z);
    case Activation::sigmoid:
      return S(1) / (S(1) + exp(-z));
    case Activation::hardtanh:
      return z < S(-1) ? S(-1) : (z > S(1) ? S(1) : z);
    case Activation::softsign:
      return z / (S(1) + abs(z));
    case Activation::gelu: {
      const S c = sqrt(S(2) / boost::math::constants::pi<S>());
      return S(0.5) * z * (S(1) + tanh(c * (z + from_decimal<S>("0.044715") * z * z * z)));
    }
    case Activation::swish:
      return z / (S(1) + exp(-z));
  }
  fail("norm::activate: unknown activation");
}

// sigma'(z). hardtanh: 1 strictly inside (-1, 1), 0 at and beyond +-1 (PyTorch's convention).
template <class S>
S activate_derivative(Activation a, const S& z) {
  using std::abs;
  using std::exp;
  using std::sqrt;
  using std::tanh;
  switch (a) {
    case Activation::tanh: {
      const S t = tanh(z);
      return S(1) - t * t;
    }
    case Activation::sigmoid: {
      const S s = S(1) / (S(1) + exp(-z));
      return s * (S(1) - s);
    }
    case Activation::hardtanh:
      return (z > S(-1) && z < S(1)) ? S(1) : S(0);
    case Activation::softsign: {
      const S d = S(1) + abs(z);
      return S(1) / (d * d);
    }
    case Activation::gelu: {
      const S c = sqrt(S(2) / boost::math::constants::pi<S>());
      const S k = from_decimal<S>("0.044715");
      const S t = tanh(c * (z + k * z * z * z));
      return S(0.5) * (S(1) + t) + S(0.5) * z * (S(1) - t * t) * c * (S(1) + S(3) * k * z * z);
    }
    case Activation::swish: {
      const S s = S(1) / (S(1) + exp(-z));
      return s + z * s * (S(1) - s);
    }
  }
  fail("norm::activate_derivative: unknown activation");
}

}  // namespace scaleref::norm
