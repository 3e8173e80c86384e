// The tiny LM's choices by name (lm/config.hpp describes the model): the block
// norm, its placement, SDD's norm, the scale vectors, the initializer and the
// seven projections of a decoder layer. The configuration parser, the model,
// its tape formulation and the trainer read these tables.
#pragma once

#include <scaleref/spec/common.hpp>
#include <scaleref/spec/scalevec.hpp>

namespace scaleref::lm {

enum class NormKind { rmsnorm, layernorm, dyt, seednorm, seednorm_mh };
inline constexpr spec::NameTable<NormKind, 5> kNormKinds{{{NormKind::rmsnorm, "rmsnorm"},
                                                          {NormKind::layernorm, "layernorm"},
                                                          {NormKind::dyt, "dyt"},
                                                          {NormKind::seednorm, "seednorm"},
                                                          {NormKind::seednorm_mh, "seednorm_mh"}}};
constexpr const char* norm_name(NormKind k) { return spec::name_of(kNormKinds, k); }

enum class Placement { pre, post, none };
inline constexpr spec::NameTable<Placement, 3> kPlacements{
    {{Placement::pre, "pre"}, {Placement::post, "post"}, {Placement::none, "none"}}};
constexpr const char* placement_name(Placement p) { return spec::name_of(kPlacements, p); }

// SDD needs a scale-invariant norm (sdd eq. 5), so only these two.
enum class SddNorm { rmsnorm, layernorm };
inline constexpr spec::NameTable<SddNorm, 2> kSddNorms{
    {{SddNorm::rmsnorm, "rmsnorm"}, {SddNorm::layernorm, "layernorm"}}};

// The scale vectors of a model: a strategy of scalevec::Strategy applied to
// every map that reads a Pre-Norm output, or HG, which gives each of those
// maps its own input-side g (scalevec/linear.hpp, forward_hg): a choice that
// exists only where several maps read one norm.
enum class ScaleVectors { none, standard, hg, ap, dp, dnp, md };
inline constexpr spec::NameTable<ScaleVectors, 7> kScaleVectorChoices{
    {{ScaleVectors::none, scalevec::strategy_name(scalevec::Strategy::none)},
     {ScaleVectors::standard, scalevec::strategy_name(scalevec::Strategy::standard)},
     {ScaleVectors::hg, "HG"},
     {ScaleVectors::ap, scalevec::strategy_name(scalevec::Strategy::ap)},
     {ScaleVectors::dp, scalevec::strategy_name(scalevec::Strategy::dp)},
     {ScaleVectors::dnp, scalevec::strategy_name(scalevec::Strategy::dnp)},
     {ScaleVectors::md, scalevec::strategy_name(scalevec::Strategy::md)}}};
constexpr const char* scale_vectors_name(ScaleVectors s) {
  return spec::name_of(kScaleVectorChoices, s);
}

// The strategy each map applies (HG: the standard one, with its own g).
constexpr scalevec::Strategy per_map_strategy(ScaleVectors s) {
  switch (s) {
    case ScaleVectors::none:
      return scalevec::Strategy::none;
    case ScaleVectors::standard:
    case ScaleVectors::hg:
      return scalevec::Strategy::standard;
    case ScaleVectors::ap:
      return scalevec::Strategy::ap;
    case ScaleVectors::dp:
      return scalevec::Strategy::dp;
    case ScaleVectors::dnp:
      return scalevec::Strategy::dnp;
    case ScaleVectors::md:
      return scalevec::Strategy::md;
  }
  return scalevec::Strategy::standard;
}

// One g shared by the maps that read a norm (the norm's gain), and a per-map
// output-side a.
constexpr bool uses_shared_g(ScaleVectors s) {
  return s != ScaleVectors::hg && scalevec::uses_g(per_map_strategy(s));
}
constexpr bool uses_output_a(ScaleVectors s) { return scalevec::uses_a(per_map_strategy(s)); }

enum class InitMethod {
  gaussian,
  xavier_normal,
  xavier_uniform,
  kaiming_normal,
  kaiming_uniform,
  ds_init,
  gamma
};
inline constexpr spec::NameTable<InitMethod, 7> kInitMethods{
    {{InitMethod::gaussian, "gaussian"},
     {InitMethod::xavier_normal, "xavier_normal"},
     {InitMethod::xavier_uniform, "xavier_uniform"},
     {InitMethod::kaiming_normal, "kaiming_normal"},
     {InitMethod::kaiming_uniform, "kaiming_uniform"},
     {InitMethod::ds_init, "ds_init"},
     {InitMethod::gamma, "gamma"}}};

// The seven projections of a decoder layer, in parameter order.
enum class Proj { q, k, v, o, gate, up, down };
inline constexpr spec::NameTable<Proj, 7> kProjNames{{{Proj::q, "q"},
                                                      {Proj::k, "k"},
                                                      {Proj::v, "v"},
                                                      {Proj::o, "o"},
                                                      {Proj::gate, "gate"},
                                                      {Proj::up, "up"},
                                                      {Proj::down, "down"}}};
inline constexpr std::array<Proj, 7> kProjs = spec::values_of(kProjNames);
constexpr const char* proj_name(Proj p) { return spec::name_of(kProjNames, p); }

constexpr bool in_attention(Proj p) {
  return p == Proj::q || p == Proj::k || p == Proj::v || p == Proj::o;
}
// The maps that read a norm's output (Pre-Norm), where scale vectors act.
constexpr bool reads_norm(Proj p) { return p != Proj::o && p != Proj::down; }

}  // namespace scaleref::lm
