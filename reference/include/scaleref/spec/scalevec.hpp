// The scale-vector strategies' spec (scale_vectors paper; the formulas are the
// project's reading, scaleref/scalevec/linear.hpp): the strategies by the names
// the paper uses, which scale vectors each one learns, which side of the map
// each vector sits on, the weight-decay policies, and the layer's settings.
// The CPU reference (scalevec/linear.hpp), the GPU kernels
// (scaleref/cuda/scalevec.hpp), the command-line tool and the LM read it.
#pragma once

#include <cstddef>
#include <scaleref/spec/common.hpp>

namespace scaleref::scalevec {

enum class Strategy { none, standard, ap, dp, dnp, md };

inline constexpr spec::NameTable<Strategy, 6> kStrategyNames{{{Strategy::none, "none"},
                                                              {Strategy::standard, "standard"},
                                                              {Strategy::ap, "AP"},
                                                              {Strategy::dp, "DP"},
                                                              {Strategy::dnp, "DNP"},
                                                              {Strategy::md, "MD"}}};
inline constexpr std::array<Strategy, 6> kStrategies = spec::values_of(kStrategyNames);

constexpr const char* strategy_name(Strategy s) { return spec::name_of(kStrategyNames, s); }

// Which parameters a strategy reads (W always; MD reads r and u).
constexpr bool uses_g(Strategy s) {
  return s == Strategy::standard || s == Strategy::dp || s == Strategy::dnp;
}
constexpr bool uses_a(Strategy s) {
  return s == Strategy::ap || s == Strategy::dp || s == Strategy::dnp;
}

struct Config {
  Strategy strategy = Strategy::standard;
  double eps = 1e-6;
  std::ptrdiff_t heads = 1;  // DNP only: n_h's blocks; must divide d_out
};

inline constexpr std::array<spec::Setting, 3> kSettings{
    spec::choice_setting("strategy", kStrategyNames, Config{}.strategy,
                         "which scale vectors, where"),
    spec::real_setting("eps", Config{}.eps, "inside the square root of RMS(x) (and DNP's n_h)"),
    spec::integer_setting("heads", Config{}.heads, "DNP only: n_h's blocks; divides d_out")};

// Input-Norm scale vectors feed a linear map; Output-Norm ones scale its output.
enum class Placement { input_norm, output_norm };

// IWD: decay Input-Norm vectors, not Output-Norm ones (README "IWD").
enum class DecayPolicy { iwd, decay_all, decay_none };
inline constexpr spec::NameTable<DecayPolicy, 3> kDecayPolicies{
    {{DecayPolicy::iwd, "iwd"},
     {DecayPolicy::decay_all, "decay_all"},
     {DecayPolicy::decay_none, "decay_none"}}};

struct ScaleVectorSpec {
  std::string_view name;
  Placement placement;
  std::string_view role;
};

// Every named scale vector (project's reading of the paper's classification).
inline constexpr std::array<ScaleVectorSpec, 9> kScaleVectors{
    ScaleVectorSpec{"g", Placement::input_norm, "scales n(x) before W (standard, DP, DNP)"},
    ScaleVectorSpec{"a", Placement::output_norm, "scales W's output (AP, DP, DNP)"},
    ScaleVectorSpec{"r", Placement::input_norm, "MD magnitude of the input-side g"},
    ScaleVectorSpec{"u", Placement::input_norm, "MD direction of the input-side g"},
    ScaleVectorSpec{"g_q", Placement::input_norm, "HG: query branch's input-side g"},
    ScaleVectorSpec{"g_k", Placement::input_norm, "HG: key branch's input-side g"},
    ScaleVectorSpec{"g_v", Placement::input_norm, "HG: value branch's input-side g"},
    ScaleVectorSpec{"g_gate", Placement::input_norm, "HG: FFN gate branch's input-side g"},
    ScaleVectorSpec{"g_up", Placement::input_norm, "HG: FFN up branch's input-side g"}};

inline constexpr spec::Tensor kW{
    "W", {"d_out", "d_in"}, true, "a linear map's weight: decayed like any weight matrix"};

// A scale vector with its shape; weight_decay is the answer of IWD, the
// policy the paper proposes (Input-Norm vectors decayed, Output-Norm ones not).
constexpr spec::Tensor scale_vector(std::string_view name, std::string_view cols) {
  for (const ScaleVectorSpec& v : kScaleVectors)
    if (v.name == name) {
      const bool in = v.placement == Placement::input_norm;
      return {name,
              {"1", cols},
              in,
              in ? "IWD (scale_vectors paper): an Input-Norm vector is decayed"
                 : "IWD (scale_vectors paper): an Output-Norm vector is not decayed",
              spec::Initial::ones};  // every scale vector starts at 1 (MD: r = 1, u = 1)
    }
  return {name, {"1", cols}, false, "not a scale vector of this header"};
}

// W and the scale vectors a strategy learns.
constexpr spec::TensorList params(Strategy s) {
  spec::TensorList t;
  t.add(kW);
  if (uses_g(s)) t.add(scale_vector("g", "d_in"));
  if (uses_a(s)) t.add(scale_vector("a", "d_out"));
  if (s == Strategy::md) t.add(scale_vector("r", "1")).add(scale_vector("u", "d_in"));
  return t;
}

// x, then params(c.strategy).
constexpr spec::TensorList inputs(const Config& c) {
  spec::TensorList t;
  t.add(spec::batch_input("x", "d_in"));
  for (const spec::Tensor& p : params(c.strategy)) t.add(p);
  return t;
}

}  // namespace scaleref::scalevec
