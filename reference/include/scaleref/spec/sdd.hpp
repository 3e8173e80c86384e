// SDD's spec (sdd eq. 2-3; Sec. 4.1): the layer's settings and tensors, and
// the choices of its initialization. The layer is scaleref/sdd/layer.hpp (CPU)
// and scaleref/cuda/sdd.hpp (GPU); the initialization sdd/init.hpp.
#pragma once

#include <scaleref/spec/common.hpp>

namespace scaleref::sdd {

// The paper's norm has no eps (paper(), the default); the authors' code
// uses 1e-5 or 1e-6 (authors_code()).
struct Config {
  double eps = 0;
  static constexpr Config paper() { return {0.0}; }
  static constexpr Config authors_code(double eps = 1e-6) { return {eps}; }
};

inline constexpr std::array<spec::Tensor, 2> kParams{
    spec::Tensor{
        "V", {"d_out", "d_in"}, true, "a linear map's weight: decayed like any weight matrix"},
    spec::Tensor{"alpha",
                 {"1", "d_out"},
                 true,
                 "the authors' code decays alpha (the paper does not say)",
                 // 1 except on a block's two output projections, 1 / sqrt(L) there (sdd/init.hpp)
                 spec::Initial::ones}};

inline constexpr std::array<spec::Setting, 1> kSettings{
    spec::real_setting("eps", Config{}.eps, "the paper's norm has none; authors' code 1e-6")};

// x, V, alpha.
constexpr spec::TensorList inputs(const Config&) {
  return spec::TensorList{}.add(spec::batch_input("x", "d_in")).add(kParams[0]).add(kParams[1]);
}

// alpha's initial value on the output projections: 1/sqrt(L) (paper) or
// 1/sqrt(2L) (authors' code).
enum class AlphaRule { paper, authors_code };
inline constexpr spec::NameTable<AlphaRule, 2> kAlphaRules{
    {{AlphaRule::paper, "paper"}, {AlphaRule::authors_code, "authors_code"}}};

// How N(0, 1 / sqrt(2.5 d_model)) is read: that number as the std or as the variance.
enum class VReading { std, variance };

}  // namespace scaleref::sdd
