// Weight rescaling during training (rescale Sec. 2.4), as pure functions of one
// weight matrix W, and the schedule a trainer consults after every optimizer step.
//
//   UWR  (eq. 17)      W <- W / ||W||                     Unit Weight Rescaling
//   ZWR  (eq. 19-20)   z = (W - mu(W)) / sigma(W)         Z-Score Weight Rescaling
//                      W <- z sigma_init + mu(W)
//   TVR  (eq. 21)      W <- z sigma_target + mu(W)        Target Variance Rescaling,
//                                                         z from eq. 19
//
// mu(W) is the mean of W's n entries, sigma(W) their standard deviation,
// sigma_init the std the initialization gave the layer, sigma_target the std TVR
// aims for. ZWR and TVR are one formula: only the target's name and when it is
// applied differ (ZWR after every epoch, TVR within the epoch). After either, W
// has mean mu(W) and std exactly the target, and every entry keeps its z-score;
// W is only scaled (its direction kept) when mu(W) = 0, since
// W' = f W + (1 - f) mu(W) 1 with f = target / sigma(W).
//
// The paper does not say which standard deviation sigma(W) is; two are offered:
//   StdKind::population  sqrt(sum_i (w_i - mu)^2 / n): the std of the n entries
//                        taken as a distribution. The paper's forms (uwr aside) use
//                        it by default: with it eq. 19's z has unit std and eq. 21
//                        leaves W with std exactly sigma_target in the same sense.
//   StdKind::unbiased    sqrt(sum_i (w_i - mu)^2 / (n - 1)): torch.std's default,
//                        which the authors' code uses (callbacks/tvr.py, and
//                        Bessel's correction in its sharded mean/std). It needs n >= 2.
// They differ by the factor sqrt(n / (n - 1)): 1 + 1.2e-7 for a 2048 x 2048
// matrix, sqrt(2) for n = 2.
//
// ||W|| in eq. 17 is read as the Frobenius norm of the whole matrix (the paper
// does not name the norm).
//
// The authors' TVR (tvr_authors_code, and Schedule::tvr_authors_code) differs
// from eq. 21: it uses the unbiased std; it rescales only when
// sigma(W) / sigma_target > threshold (1.2 by default), so it only ever shrinks
// W's spread and leaves every other matrix untouched; it runs every k optimizer
// steps (50 by default in their code, "every 1 billion tokens" in the paper's
// Sec. 4.2); and it optionally divides sigma_target by sqrt(l) for the l-th
// decoder layer, l = 1, 2, ... (scale_with_depth, LIR's factor of eq. 16, the
// ablation of Appendix 6.2.5). Their code also zeroes a rescaled layer's bias;
// the matrices here carry none.
//
// Conventions. Every function returns a new matrix and never changes its
// argument; where a rule decides not to rescale, the result is an exact copy.
// Statistics are sums in storage (row-major) order on one thread, so results
// are bitwise reproducible. Means, stds and norms are the metrics' (on W 2^-e,
// metrics/common.hpp), so matrices near S's overflow or underflow threshold
// keep their norm and std. Bad input throws scaleref::Error naming the function:
// an empty or non-finite W, sigma_target <= 0, a W without spread (entries all
// equal, or an std at rounding level: metrics::has_spread; ZWR, TVR in the
// paper's form; the authors' rule leaves such a W alone) or whose norm is 0 (UWR), fewer than 2
// entries for the unbiased std, threshold < 1, k <= 0, step <= 0, layer <= 0, a result that
// overflows S. Nothing is clamped.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <scaleref/error.hpp>
#include <scaleref/metrics/common.hpp>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/spec/rescale.hpp>
#include <scaleref/types.hpp>

namespace scaleref::rescale {

// The statistics are the metrics' (metrics/weights.hpp, metrics/common.hpp):
// one mean and std, computed on W 2^-e so that nothing overflows.
using metrics::StdKind;
template <class S>
using Moments = metrics::MeanStd<S>;  // {mean: mu(W), std: sigma(W) of the kind asked for}

namespace detail {

// The storage index of W's first non-finite entry, or -1.
template <class S>
Eigen::Index first_non_finite(const Mat<S>& W) {
  using std::isfinite;
  for (Eigen::Index i = 0; i < W.size(); ++i)
    if (!isfinite(W.data()[i])) return i;
  return -1;
}

template <class S>
void check_matrix(const char* where, const Mat<S>& W) {
  require(W.size() > 0, where, "expected a non-empty matrix W, got W ", shape_str(W));
  const Eigen::Index i = first_non_finite(W);
  if (i >= 0)
    fail(where, ": expected a finite W, got ", W.data()[i], " at (", i / W.cols(), ", ",
         i % W.cols(), ") of W ", shape_str(W));
}

inline void check_target(const char* where, const char* name, double sigma) {
  require(std::isfinite(sigma) && sigma > 0, where, "expected ", name, " > 0 and finite, got ",
          sigma);
}

inline void check_threshold(const char* where, double threshold) {
  require(std::isfinite(threshold) && threshold >= 1, where,
          "expected threshold >= 1 and finite (the authors' TVR rescales when "
          "std / sigma_target > threshold and so only shrinks; below 1 it would also grow W), got ",
          threshold);
}

// mu(W) and sigma(W) of a checked W; throws when the unbiased std lacks a second entry.
template <class S>
Moments<S> moments(const char* where, const Mat<S>& W, StdKind kind) {
  require(kind == StdKind::population || W.size() >= 2, where,
          "expected at least 2 entries for the unbiased std (it divides by n - 1), got W ",
          shape_str(W));
  return metrics::mean_std(W, kind);
}

// Whether W has a spread z-scores can use (metrics::has_spread: not all equal,
// std above rounding level).
template <class S>
bool has_spread(const Mat<S>& W, const Moments<S>& m) {
  return metrics::has_spread(S(W.minCoeff()), S(W.maxCoeff()), m.std, static_cast<double>(W.size()),
                             S(std::numeric_limits<S>::epsilon() / 2));
}

template <class S>
void check_spread(const char* where, const Mat<S>& W, const Moments<S>& m) {
  if (has_spread(W, m)) return;
  const S lo = W.minCoeff(), hi = W.maxCoeff();
  require(lo != hi, where, "expected W with a nonzero standard deviation, got all ", W.size(),
          " entries of W ", shape_str(W), " equal to ", lo,
          ": its z-scores (eq. 19) are undefined");
  fail(where,
       ": expected W with a nonzero standard deviation, got a spread at rounding level: ", "std ",
       m.std, " <= (n + 4) u max|W| for the ", W.size(), " entries of W ", shape_str(W), " (from ",
       lo, " to ", hi, "): its z-scores (eq. 19) would be rounding noise");
}

// z_i target + shift for every entry, z_i = (w_i - mu) / sigma (eq. 19); with
// shift = mu this is eq. 20 (target sigma_init) and eq. 21 (target sigma_target).
template <class S>
Mat<S> rescale_to(const char* where, const Mat<S>& W, const Moments<S>& m, const S& target,
                  const S& shift) {
  using std::isfinite;
  Mat<S> out(W.rows(), W.cols());
  for (Eigen::Index i = 0; i < W.size(); ++i) {
    const S z = (W.data()[i] - m.mean) / m.std;  // eq. 19
    out.data()[i] = z * target + shift;          // eq. 20, eq. 21
    require(isfinite(out.data()[i]), where, "the rescaled entry at (", i / W.cols(), ", ",
            i % W.cols(), ") overflows: z = ", z, ", target std ", target, ", mean ", shift);
  }
  return out;
}

// Eq. 17 for a checked W.
template <class S>
Mat<S> uwr(const char* where, const Mat<S>& W) {
  const S norm = metrics::frobenius_norm(W);
  require(norm > 0, where, "expected W != 0, got an all-zero W ", shape_str(W),
          ": ||W||_F = 0 cannot be rescaled to 1");
  Mat<S> out(W.rows(), W.cols());
  for (Eigen::Index i = 0; i < W.size(); ++i) out.data()[i] = W.data()[i] / norm;
  return out;
}

// The authors' rule for a checked W, with m its unbiased moments: rescale iff
// m.std / target > threshold (a std of 0 never does).
template <class S>
bool above_threshold(const Moments<S>& m, const S& target, double threshold) {
  return S(m.std / target) > S(threshold);
}

// Eq. 20 and eq. 21 are one map, W <- z target + mu(W), with the target named
// sigma_init (ZWR) or sigma_target (TVR): checked input, nonzero spread.
template <class S>
Mat<S> to_target_std(const char* where, const char* target_name, const Mat<S>& W, double target,
                     StdKind kind) {
  check_target(where, target_name, target);
  check_matrix(where, W);
  const Moments<S> m = moments(where, W, kind);
  check_spread(where, W, m);
  return rescale_to(where, W, m, S(target), m.mean);
}

}  // namespace detail

// mu(W) and sigma(W) (population or unbiased), for callers that report them.
template <class S>
Moments<S> moments(const Mat<S>& W, StdKind kind = StdKind::population) {
  constexpr const char* where = "rescale::moments";
  detail::check_matrix(where, W);
  return detail::moments(where, W, kind);
}

// ||W||_F = sqrt(sum_ij W_ij^2).
template <class S>
S frobenius_norm(const Mat<S>& W) {
  detail::check_matrix("rescale::frobenius_norm", W);
  return metrics::frobenius_norm(W);
}

// UWR, eq. 17: W <- W / ||W||, ||.|| the Frobenius norm. Each entry is divided
// by the one computed norm, so the result is W times one positive factor: the
// signs, the ratios between entries and the z-scores are kept, the mean scales
// with W, and ||W'||_F = 1. Needs W != 0.
template <class S>
Mat<S> uwr(const Mat<S>& W) {
  constexpr const char* where = "rescale::uwr";
  detail::check_matrix(where, W);
  return detail::uwr(where, W);
}

// Eq. 19: z = (W - mu(W)) / sigma(W), the z-scores: mean 0, std 1 (of `kind`).
// Population std by default (the paper's sigma(W), read as the std of the
// entries); needs W's entries not all equal.
template <class S>
Mat<S> standardize(const Mat<S>& W, StdKind kind = StdKind::population) {
  constexpr const char* where = "rescale::standardize";
  detail::check_matrix(where, W);
  const Moments<S> m = detail::moments(where, W, kind);
  detail::check_spread(where, W, m);
  return detail::rescale_to(where, W, m, S(1), S(0));
}

// ZWR, eq. 19-20: W <- z sigma_init + mu(W). Afterwards mean(W) = mu(W),
// sigma(W) = sigma_init (of `kind`, population by default as in the paper's
// reading) and every z-score is kept. mu(W) is W's mean now, as eq. 20 writes it
// (its prose says "the initial mean of the weights", which after a zero-mean
// initialization would be 0: the paper is ambiguous here).
template <class S>
Mat<S> zwr(const Mat<S>& W, double sigma_init, StdKind kind = StdKind::population) {
  return detail::to_target_std("rescale::zwr", "sigma_init", W, sigma_init, kind);
}

// TVR in the paper's form, eq. 21: W <- z sigma_target + mu(W), every time it is
// applied, whether that shrinks or grows W's spread. Afterwards mean(W) = mu(W),
// sigma(W) = sigma_target (population std by default, the paper's sigma read as
// the entries' std; pass StdKind::unbiased to match torch.std) and every z-score
// is kept.
template <class S>
Mat<S> tvr(const Mat<S>& W, double sigma_target, StdKind kind = StdKind::population) {
  return detail::to_target_std("rescale::tvr", "sigma_target", W, sigma_target, kind);
}

// TVR as the authors' code runs it on one matrix: with sigma the unbiased std
// (torch.std), W <- z sigma_target + mu(W) (eq. 21) only when
// sigma / sigma_target > threshold (strictly, as their code compares), else W is
// returned unchanged, bit for bit (so is a W without spread, metrics::has_spread:
// entries all equal, or an std at rounding level, which a tiny sigma_target could
// otherwise find above the threshold). With threshold >= 1 it only ever shrinks W's
// spread: afterwards the unbiased std is sigma_target < sigma. The every-k-steps
// timing and the depth scaling of sigma_target are the Schedule's.
template <class S>
Mat<S> tvr_authors_code(const Mat<S>& W, double sigma_target, double threshold = 1.2) {
  constexpr const char* where = "rescale::tvr_authors_code";
  detail::check_target(where, "sigma_target", sigma_target);
  detail::check_threshold(where, threshold);
  detail::check_matrix(where, W);
  const Moments<S> m = detail::moments(where, W, StdKind::unbiased);
  const S target = S(sigma_target);
  if (!detail::has_spread(W, m) || !detail::above_threshold(m, target, threshold)) return W;
  return detail::rescale_to(where, W, m, target, m.mean);
}

// ---- The schedule: when and how a trainer rescales --------------------------

// Method, Form and Schedule: scaleref/spec/rescale.hpp.

// Throws Error (naming `where`) unless s is complete and consistent.
inline void check_schedule(const char* where, const Schedule& s) {
  require(s.every_k_steps >= 1, where, "expected every_k_steps (k) >= 1, got ", s.every_k_steps);
  require(s.form == Form::paper || s.method == Method::TVR, where, "expected Form::paper for ",
          spec::name_of(kMethods, s.method),
          " (the authors' code has a form of TVR only), got Form::authors_code");
  if (s.method != Method::UWR)
    detail::check_target(where, s.method == Method::ZWR ? "sigma_init" : "sigma_target",
                         s.sigma_target);
  if (s.method == Method::TVR && s.form == Form::authors_code)
    detail::check_threshold(where, s.threshold);
}

// Whether the rule runs after optimizer step `step` (>= 1): step is a multiple of k.
inline bool is_due(const Schedule& s, long step) {
  constexpr const char* where = "rescale::is_due";
  check_schedule(where, s);
  require(step >= 1, where, "expected step >= 1 (optimizer steps taken, counted from 1), got ",
          step);
  return step % s.every_k_steps == 0;
}

// The target std at decoder layer l (>= 1): sigma_target, or sigma_target / sqrt(l)
// when depth_scaled (LIR's factor, eq. 16; the authors' 1 / layer_index**0.5).
template <class S>
S target_at(const Schedule& s, int layer) {
  constexpr const char* where = "rescale::target_at";
  check_schedule(where, s);
  require(layer >= 1, where, "expected layer >= 1 (decoder layers count from l = 1, ",
          "as LIR's 1 / sqrt(l) does), got ", layer);
  using std::sqrt;
  const S sigma = S(s.sigma_target);
  return s.depth_scaled ? S(sigma / sqrt(S(layer))) : sigma;
}

template <class S>
struct Outcome {
  bool due = false;       // step is a multiple of k: the rule was consulted
  bool rescaled = false;  // W changed: always when due, except the authors' TVR at or
                          // under its threshold
  S target = 0;           // this layer's sigma_target (ZWR: sigma_init); 0 for UWR
  S before = 0;           // what the rule read: ||W||_F (UWR) or sigma(W) (ZWR, TVR:
                          // population for the paper's forms, unbiased for the
                          // authors'); 0 when not due
  Mat<S> W;               // the matrix to keep: rescaled, or an exact copy of the input
};

// Called by a trainer after every optimizer step for every decoder-layer weight
// matrix W of layer l: runs the schedule's rule when the step is due and says
// what it did.
template <class S>
Outcome<S> on_step(const Schedule& s, long step, int layer, const Mat<S>& W) {
  constexpr const char* where = "rescale::on_step";
  check_schedule(where, s);
  require(step >= 1, where, "expected step >= 1 (optimizer steps taken, counted from 1), got ",
          step);
  require(layer >= 1, where, "expected layer >= 1 (decoder layers count from l = 1, ",
          "as LIR's 1 / sqrt(l) does), got ", layer);
  detail::check_matrix(where, W);
  Outcome<S> out;
  out.due = step % s.every_k_steps == 0;
  if (s.method != Method::UWR) out.target = target_at<S>(s, layer);
  if (!out.due) {
    out.W = W;
    return out;
  }
  if (s.method == Method::UWR) {
    out.before = metrics::frobenius_norm(W);
    out.W = detail::uwr(where, W);
    out.rescaled = true;
    return out;
  }
  const bool authors = s.form == Form::authors_code;
  const Moments<S> m = detail::moments(where, W, authors ? StdKind::unbiased : StdKind::population);
  out.before = m.std;
  out.rescaled =
      !authors || (detail::has_spread(W, m) && detail::above_threshold(m, out.target, s.threshold));
  if (!out.rescaled) {
    out.W = W;
    return out;
  }
  detail::check_spread(where, W, m);
  out.W = detail::rescale_to(where, W, m, out.target, m.mean);
  return out;
}

}  // namespace scaleref::rescale
