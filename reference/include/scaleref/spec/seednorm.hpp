// SeeDNorm's spec (seednorm eq. 4, 7, 8; Sec. 3.1, 4.3): the activation sigma
// and its derivative (one formula for the reference and the kernels), the
// forms the paper ablates, the settings and the tensors of SeeDNorm and
// AdaSeeDNorm. The layers are scaleref/norm/seednorm.hpp and adaseednorm.hpp
// on the CPU, scaleref/cuda/seednorm.hpp on the GPU.
#pragma once

#include <math.h>  // the float overloads in the global namespace (the emulator's float tanh, exp)

#include <cmath>
#include <scaleref/spec/common.hpp>

namespace scaleref::norm {

// sigma (seednorm eq. 4) and its ablations (Sec. 4.3, Figure 4): tanh (the
// default), sigmoid, hardtanh and softsign are bounded; GELU and Swish (= SiLU,
// x sigmoid(x)) are the unbounded ablation under which the paper reports
// training diverges. GELU is taken in its tanh form and named so, gelu_tanh
// (PyTorch's GELU(approximate='tanh')): PyTorch's default GELU is the erf form,
// which differs from it by up to 1.9e-3.
enum class Activation { tanh, sigmoid, hardtanh, softsign, gelu_tanh, swish };

inline constexpr spec::NameTable<Activation, 6> kActivationNames{
    {{Activation::tanh, "tanh"},
     {Activation::sigmoid, "sigmoid"},
     {Activation::hardtanh, "hardtanh"},
     {Activation::softsign, "softsign"},
     {Activation::gelu_tanh, "gelu_tanh"},
     {Activation::swish, "swish"}}};
inline constexpr std::array<Activation, 6> kActivations = spec::values_of(kActivationNames);

constexpr const char* name(Activation a) { return spec::name_of(kActivationNames, a); }

// GELU's two constants in the precision S: c = sqrt(2 / pi) and k = 0.044715.
// The caller supplies them (the reference evaluates them in S with Boost; a
// kernel uses the literals), so the formulas below need no library.
template <class S>
struct GeluConstants {
  S c;
  S k;
};

// The literals, rounded to S (float or double).
template <class S>
SCALEREF_HOST_DEVICE constexpr GeluConstants<S> gelu_literals() {
  return {S(0.79788456080286535588), S(0.044715)};
}

// sigma(z). S is float, double or Real50; the math functions are found by
// argument-dependent lookup (Boost.Multiprecision) or are the C library's and
// CUDA's. An out-of-range enum gives z.
template <class S>
SCALEREF_HOST_DEVICE S activate(Activation a, const S& z, const GeluConstants<S>& g) {
  switch (a) {
    case Activation::tanh:
      return tanh(z);
    case Activation::sigmoid:
      return S(1) / (S(1) + exp(-z));
    case Activation::hardtanh:
      return z < S(-1) ? S(-1) : (z > S(1) ? S(1) : z);
    case Activation::softsign:
      return z / (S(1) + fabs(z));
    case Activation::gelu_tanh:
      return S(0.5) * z * (S(1) + tanh(g.c * (z + g.k * z * z * z)));
    case Activation::swish:
      return z / (S(1) + exp(-z));
  }
  return z;
}

// sigma'(z). hardtanh: 1 strictly inside (-1, 1), 0 at and beyond +-1
// (PyTorch's convention). An out-of-range enum gives 1.
template <class S>
SCALEREF_HOST_DEVICE S activate_derivative(Activation a, const S& z, const GeluConstants<S>& g) {
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
      const S d = S(1) + fabs(z);
      return S(1) / (d * d);
    }
    case Activation::gelu_tanh: {
      const S t = tanh(g.c * (z + g.k * z * z * z));
      return S(0.5) * (S(1) + t) + S(0.5) * z * (S(1) - t * t) * g.c * (S(1) + S(3) * g.k * z * z);
    }
    case Activation::swish: {
      const S s = S(1) / (S(1) + exp(-z));
      return s + z * s * (S(1) - s);
    }
  }
  return S(1);
}

// The size of the terms sigma'(z) is computed from, for a tolerance: where
// the inner tanh or exp carries a relative error delta (a GPU's tanh and exp
// are not the host's: a few ulps apart), sigma'(z) moves by at most
// 2 |delta| times this. It exceeds |sigma'(z)| where the formula cancels:
// tanh's 1 - t^2 next to t^2 -> 1 for large |z| (1 + t^2 here), likewise
// sigmoid's s (1 - s), GELU's and swish's. hardtanh and softsign call no
// inner function (their |sigma'(z)|). tests/norm_seednorm_test.cpp holds the
// bound against perturbed inner values.
template <class S>
SCALEREF_HOST_DEVICE S activate_derivative_scale(Activation a, const S& z,
                                                 const GeluConstants<S>& g) {
  switch (a) {
    case Activation::tanh: {
      const S t = tanh(z);
      return S(1) + t * t;
    }
    case Activation::sigmoid: {
      const S s = S(1) / (S(1) + exp(-z));
      return s * (S(1) + s);
    }
    case Activation::hardtanh:
    case Activation::softsign:
      return fabs(activate_derivative(a, z, g));
    case Activation::gelu_tanh: {
      const S t = tanh(g.c * (z + g.k * z * z * z));
      return S(0.5) * (S(1) + fabs(t)) +
             S(0.5) * fabs(z) * (S(1) + t * t) * g.c * (S(1) + S(3) * g.k * z * z);
    }
    case Activation::swish: {
      const S s = S(1) / (S(1) + exp(-z));
      return s + fabs(z) * s * (S(1) + s);
    }
  }
  return S(1);
}

}  // namespace scaleref::norm

namespace scaleref::norm::seednorm {

// The forms the paper ablates (Sec. 4.3, Table 4, Figure 4); the layer's
// header says what each computes.
enum class AlphaForm { vector, scalar, none };
enum class BetaForm { dot, elementwise, none };

inline constexpr spec::NameTable<AlphaForm, 3> kAlphaForms{
    {{AlphaForm::vector, "vector"}, {AlphaForm::scalar, "scalar"}, {AlphaForm::none, "none"}}};
inline constexpr spec::NameTable<BetaForm, 3> kBetaForms{
    {{BetaForm::dot, "dot"}, {BetaForm::elementwise, "elementwise"}, {BetaForm::none, "none"}}};

constexpr const char* name(AlphaForm f) { return spec::name_of(kAlphaForms, f); }
constexpr const char* name(BetaForm f) { return spec::name_of(kBetaForms, f); }

struct Config {
  double eps = 1e-6;
  Activation sigma = Activation::tanh;
  int heads = 1;  // multi-head SeeDNorm (eq. 7) when > 1; needs BetaForm::dot or none
  AlphaForm alpha = AlphaForm::vector;
  BetaForm beta = BetaForm::dot;
  bool gamma = true;
  double alpha_init = 1.0;  // Algorithm 1; 0.1, 1 or 10 in Figure 4
};

inline constexpr std::array<spec::Tensor, 3> kParams{
    spec::Tensor{"alpha",
                 {"1", "D"},
                 true,
                 "seednorm Sec. 3.1: 'we also add weight decay to alpha and beta'",
                 spec::Initial::setting,
                 "alpha_init"},
    spec::Tensor{"beta",
                 {"1", "D"},
                 true,
                 "seednorm Sec. 3.1: 'we also add weight decay to alpha and beta'",
                 spec::Initial::zeros},
    spec::Tensor{"gamma",
                 {"1", "D"},
                 false,
                 "seednorm: gamma is RMSNorm's gain and keeps its no-decay rule",
                 spec::Initial::ones}};

// The settings SeeDNorm and AdaSeeDNorm share (AdaSeeDNorm has no gamma).
inline constexpr std::array<spec::Setting, 5> kSharedSettings{
    spec::real_setting("eps", Config{}.eps, "inside the square root of RMS(x)"),
    spec::choice_setting("sigma", kActivationNames, Config{}.sigma,
                         "the self-rescaling activation"),
    spec::integer_setting("heads", Config{}.heads, "multi-head SeeDNorm (eq. 7); must divide D"),
    spec::choice_setting("alpha", kAlphaForms, Config{}.alpha,
                         "alpha's form: 1 x D, 1 x 1, or absent"),
    spec::choice_setting("beta", kBetaForms, Config{}.beta,
                         "beta's form: x . beta^T per head, x (.) beta, or absent")};
inline constexpr spec::Setting kGammaSetting =
    spec::bool_setting("gamma", Config{}.gamma, "the learned gain gamma present");
inline constexpr spec::Setting kAlphaInitSetting =
    spec::real_setting("alpha_init", Config{}.alpha_init, "init only: alpha's initial value");

// alpha, beta and gamma as the configuration has them.
constexpr spec::TensorList params(const Config& c) {
  spec::TensorList t;
  if (c.alpha == AlphaForm::vector) t.add(kParams[0]);
  if (c.alpha == AlphaForm::scalar)
    t.add({"alpha",
           {"1", "1"},
           true,
           kParams[0].source,
           kParams[0].initial,
           kParams[0].initial_setting});
  if (c.beta != BetaForm::none) t.add(kParams[1]);
  if (c.gamma) t.add(kParams[2]);
  return t;
}

// x, then params(c).
constexpr spec::TensorList inputs(const Config& c) {
  spec::TensorList t;
  t.add(spec::batch_input("x", "D"));
  for (const spec::Tensor& p : params(c)) t.add(p);
  return t;
}

}  // namespace scaleref::norm::seednorm

namespace scaleref::norm::adaseednorm {

// AdaSeeDNorm (eq. 8) is SeeDNorm's bracket with the gain fixed at 1
// (Config::gamma is not read), conditioned by gamma(c) and eta(c), one [N, D]
// row per row of x.
using Config = seednorm::Config;

inline constexpr std::array<spec::Tensor, 2> kParams{seednorm::kParams[0], seednorm::kParams[1]};
inline constexpr std::array<spec::Tensor, 2> kConditions{spec::batch_input("gamma_c", "D"),
                                                         spec::batch_input("eta_c", "D")};

// x, alpha and beta as the configuration has them, gamma_c, eta_c.
constexpr spec::TensorList inputs(Config c) {
  c.gamma = false;
  spec::TensorList t = seednorm::inputs(c);
  for (const spec::Tensor& k : kConditions) t.add(k);
  return t;
}

}  // namespace scaleref::norm::adaseednorm
