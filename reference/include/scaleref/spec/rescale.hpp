// Weight rescaling's spec (rescale Sec. 2.4): the rules and their forms by
// name, which standard deviation sigma(W) is, the schedule a trainer follows,
// and each rule's settings. The rules are scaleref/init/rescale.hpp (CPU) and
// scaleref/cuda/rescale.hpp (GPU); the metrics compute sigma(W) the same way.
#pragma once

#include <scaleref/spec/common.hpp>

namespace scaleref::metrics {

// sigma(W): the paper does not say which (init/rescale.hpp weighs the two).
enum class StdKind {
  population,  // sqrt(sum (w - mu)^2 / n): the entries' std, the paper's forms' default
  unbiased     // sqrt(sum (w - mu)^2 / (n - 1)): torch.std, the rescale authors' code
};
inline constexpr spec::NameTable<StdKind, 2> kStdKinds{
    {{StdKind::population, "population"}, {StdKind::unbiased, "unbiased"}}};

// Whether W, with n entries from lo = min W to hi = max W and a computed std
// `sd`, has a spread that z-scores (rescale eq. 19) can use, in arithmetic of
// unit roundoff u. The CPU rescalers, the GPU's, the metrics and LayerNorm at
// eps = 0 (reference and kernel) apply this one rule. W has none
// - when every entry is equal (hi == lo, an exact test: a sum in any order can
//   leave a constant's mean an ulp off, and its std near 1e-17 instead of 0);
// - when sd <= (n + 4) u max|W|: the computed mean of n entries is off by at
//   most (n - 1) u max|W| (n - 1 roundings of partial sums, each at most
//   n max|W|, then / n), and a constant's computed std is that offset, so a std
//   within it cannot be told from rounding; and deviations of 4 u max|W| (two
//   ulps of the largest entry) are the resolution of W's own entries, the noise
//   of whatever computed them.
template <class S>
SCALEREF_HOST_DEVICE bool has_spread(const S& lo, const S& hi, const S& sd, double n, const S& u) {
  const S largest = -lo > hi ? S(-lo) : hi;
  return hi > lo && sd > S(n + 4) * u * largest;
}

}  // namespace scaleref::metrics

namespace scaleref::rescale {

enum class Method { UWR, ZWR, TVR };
enum class Form { paper, authors_code };  // which TVR: eq. 21, or the authors' code

inline constexpr spec::NameTable<Method, 3> kMethods{
    {{Method::UWR, "UWR"}, {Method::ZWR, "ZWR"}, {Method::TVR, "TVR"}}};
inline constexpr spec::NameTable<Form, 2> kForms{
    {{Form::paper, "paper"}, {Form::authors_code, "authors_code"}}};

// What a trainer applies to each decoder-layer weight matrix after optimizer
// steps k, 2k, 3k, ... (step = the number of optimizer steps taken, counted
// from 1: Lightning's global_step after the update, which the authors' callback
// reads). Build one with the named constructors below.
struct Schedule {
  Method method = Method::TVR;
  Form form = Form::paper;     // TVR only: Form::authors_code = unbiased std + threshold
  long every_k_steps = 0;      // k; no default (the paper gives 1BT of tokens, the code 50)
  double sigma_target = 0.01;  // TVR's sigma_target, ZWR's sigma_init; unused by UWR
  double threshold = 1.2;      // Form::authors_code only
  bool depth_scaled = false;   // target sigma_target / sqrt(l) at decoder layer l (ZWR, TVR)

  // UWR (eq. 17) every k steps ("after a specified number of optimization steps").
  static constexpr Schedule uwr(long k) {
    return {Method::UWR, Form::paper, k, 0.0, Schedule{}.threshold, false};
  }
  // ZWR (eq. 19-20) every k steps (k = one epoch's steps in its original form);
  // depth_scaled gives LIR's sigma_init / sqrt(l).
  static constexpr Schedule zwr(double sigma_init, long k, bool depth_scaled = false) {
    return {Method::ZWR, Form::paper, k, sigma_init, Schedule{}.threshold, depth_scaled};
  }
  // TVR as the paper writes it (eq. 21): unconditional, population std.
  static constexpr Schedule tvr(double sigma_target, long k, bool depth_scaled = false) {
    return {Method::TVR, Form::paper, k, sigma_target, Schedule{}.threshold, depth_scaled};
  }
  // TVR as the authors' code runs it: unbiased std, shrink only above threshold.
  static constexpr Schedule tvr_authors_code(double sigma_target, long k = 50,
                                             double threshold = 1.2, bool depth_scaled = false) {
    return {Method::TVR, Form::authors_code, k, sigma_target, threshold, depth_scaled};
  }
};

// The settings of the rules as functions of one W (the command-line tool's
// uwr, zwr, tvr and tvr_authors_code; UWR has none).
inline constexpr spec::Setting kStdSetting =
    spec::choice_setting("std", metrics::kStdKinds, metrics::StdKind::population,
                         "sigma(W): population (divide by mn) or unbiased (mn - 1)");
inline constexpr std::array<spec::Setting, 2> kZwrSettings{
    spec::real_setting("sigma_init", Schedule{}.sigma_target, "the target std"), kStdSetting};
inline constexpr std::array<spec::Setting, 2> kTvrSettings{
    spec::real_setting("sigma_target", Schedule{}.sigma_target, "the target std"), kStdSetting};
inline constexpr std::array<spec::Setting, 2> kTvrAuthorsCodeSettings{
    spec::real_setting("sigma_target", Schedule{}.sigma_target, "the target std"),
    spec::real_setting("threshold", Schedule{}.threshold,
                       "rescale when std / sigma_target exceeds it")};

}  // namespace scaleref::rescale
