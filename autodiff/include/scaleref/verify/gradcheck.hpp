// The gradient verifier: is a hand-derived (or tape) backward right?
//
// A Problem is a function of several matrix inputs, f(x_1, ..., x_n) -> y,
// with its vector-Jacobian product backward(x, dy) = (J_1^T dy, ..., J_n^T dy),
// given at two precisions (double and Real50) from one generic definition.
// check() runs, and reports with measured numbers:
//
//  fd-double    backward vs central finite differences, both in double.
//  fd-50        backward vs central finite differences, both in 50 digits.
//               Agreement to ~1e-20 shows the formula is exact; an
//               approximate formula shows its true error instead.
//  transpose-*  <u, J^T v> (backward) = <J u, v> (J u by a finite difference
//               along u), for random u, v: one number per pair, any shape.
//  A problem given in double only (f50 left empty: a user's own function, as
//  Python's scaleref.testing.gradcheck makes one) runs fd-double without the
//  50-digit yardstick, transpose-double, and taylor-double (below, with steps
//  t = 1e-2 / 2^k, where double's rounding leaves t^2 well above its floor).
//
//  taylor-50    |f(x + t d) - f(x) - t <g, d>| against t, f = <v, y>: the
//               fitted log-log slope is 2 for a right gradient, 1 for a wrong one.
//               Remainders under the round-off floor (the larger of 1e3 eps
//               times the terms' size and 10 x the remainder measured at
//               t ~ 1e-30) are dropped; with fewer than 3 left, f is flat or
//               linear along d and the test passes as "below round-off".
//
// Jacobian entries: full Jacobians (every output against every input entry)
// while outputs x input entries <= Options::full_jacobian_limit; beyond that,
// random output projections v^T J against a random sample of input entries.
//
// Finite differences. Entry j of input p is stepped by
//     h_j = eta * max(|x_j|, rms(x_p))     (eta = 1 if all of x_p is zero)
// with eta = eps^(1/3) (6.1e-6) in double and 1e-15 in 50 digits. This departs
// from the common eta * max(1, |x_j|): for inputs of scale 1e-8 that step is
// larger than the input itself (docs/design.md, "Finite differences and
// tolerances"). The central quotient is Richardson-
// extrapolated from steps h and 2h:
//     D = (4 D(h) - D(2h)) / 3,   truncation error estimate |D(h) - D(2h)| / 3.
// The entry's tolerance adds the finite difference's own error to the stated
// one below: 4 x (that estimate + eps (|y+| + |y-|) / h + (eps / eta) |D|, the
// rounding of x + h), and, for the double FD, its measured distance from the
// 50-digit FD of the same entry: f evaluated in double can lose more than its
// last place (gelu's tanh form cancels for large negative x), and the double
// check judges the backward, not the finite difference.
//
// Tolerance of entry (a = backward, r = finite difference), per Jacobian block
// (one input p):
//     |a - r| <= rtol * max(max|block|, max|y| / rms(x_p)) + rtol * (|a| + |r|) / 2
//                + FD error estimate
// max|y| / rms(x_p) is the Jacobian's natural size. It matters where the block
// is nearly 0 but f's evaluation is not quiet: LayerNorm at D = 2, eps = 0 is
// flat (dx = 0 exactly), yet x - mean(x) cancels inside f and its finite
// difference keeps rounding noise of that relative size.
//   rtol double 1e-6:  the double FD keeps ~eps^(2/3) = 4e-11 of f's scale,
//                      amplified by f's conditioning (1e4 allowed); a wrong
//                      gradient (sign, factor 2, missing term) is off by O(1).
//   rtol 50   1e-20:   50-digit FD error ~eta^4 + 1e-50/eta ~ 1e-35 times the
//                      conditioning; 1e-20 leaves 15 digits of room.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <scaleref/autodiff/tape.hpp>
#include <scaleref/types.hpp>
#include <scaleref/verify/compare.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace scaleref::verify {

template <class S>
using Inputs = std::vector<Mat<S>>;

// The output and the vector-Jacobian product of one evaluation.
template <class S>
struct Vjp {
  Mat<S> y;
  Inputs<S> grads;  // grads[p] = J_p^T dy, shaped like x[p]
};

// y and the gradients of the inputs present, moved out: an empty gradient (a
// parameter the configuration does not have) is skipped.
template <class S>
Vjp<S> vjp(Mat<S>&& y, std::initializer_list<Mat<S>*> grads) {
  Vjp<S> out{std::move(y), {}};
  for (Mat<S>* g : grads)
    if (g->size() > 0) out.grads.push_back(std::move(*g));
  return out;
}

// A function of matrix inputs with its vector-Jacobian product, at one precision.
template <class S>
struct Differentiable {
  std::function<Mat<S>(const Inputs<S>&)> forward;
  // backward(x, dy)[p] = J_p^T dy, shaped like x[p].
  std::function<Inputs<S>(const Inputs<S>&, const Mat<S>&)> backward;
  // y and backward(x, dy) from one pass where the backward computes y anyway
  // (the analytic layers: forward with a cache, then backward), else from
  // forward and backward in turn. What the command line and Python call.
  std::function<Vjp<S>(const Inputs<S>&, const Mat<S>&)> value_and_backward;
};

struct Problem {
  std::string name;                      // "rmsnorm", "tape.tanh"
  std::vector<std::string> input_names;  // "x", "gamma", in order
  Differentiable<double> f64;
  Differentiable<Real50> f50;

  // From generic lambdas: forward(const Inputs<S>&) -> Mat<S> and
  // backward(const Inputs<S>&, const Mat<S>& dy) -> Inputs<S>, or -> Vjp<S>
  // when the backward has y at hand (then value_and_backward is one pass).
  template <class Forward, class Backward>
  static Problem make(std::string name, std::vector<std::string> input_names, Forward forward,
                      Backward backward);

  // From a generic tape builder: build(Tape<S>&, const std::vector<Var<S>>& x) -> Var<S>.
  // Forward is the tape's value, backward its reverse sweep.
  template <class Build>
  static Problem from_tape(std::string name, std::vector<std::string> input_names, Build build);
};

struct Options {
  std::uint64_t seed = 20261122;
  bool fd_double = true;
  bool fd_50 = true;
  bool transpose = true;
  bool taylor = true;
  long full_jacobian_limit = 4096;  // outputs x input entries, at or below: full Jacobian
  int sampled_entries = 24;         // beyond it: entries sampled per input
  int projections = 3;              // random v (sampled mode) and (u, v) pairs (transpose)
  double rtol_double = 1e-6;        // see the header comment for both
  double rtol_50 = 1e-20;
};

// One Jacobian entry, with everything known about it.
struct Entry {
  std::string input;  // "gamma"
  long input_row = -1, input_col = -1;
  std::string output;              // "y[0,3]" or "v2^T y" (a random projection)
  std::string analytic, fd;        // this check's precision, full digits
  std::string analytic_50, fd_50;  // the 50-digit values of the same entry, when computed
  double abs_err = 0, rel_err = 0, tolerance = 0, step = 0;
};

struct CheckResult {
  std::string check;  // fd-double, fd-50, transpose-double, transpose-50, taylor-50
  std::string input;  // the input it covers, or "all"
  bool ok = false;
  Comparison cmp;      // counts, max abs / rel error, share of tolerance used
  std::string regime;  // "full Jacobian 6x12", "3 projections x 24 sampled entries", ...
  std::optional<Entry> worst;
  double scale = 0;    // fd / transpose: the size errors are judged against
  double slope = 0;    // taylor only
  std::string detail;  // taylor only: the (t, remainder) pairs
};

struct Report {
  std::string problem;
  std::vector<CheckResult> checks;

  bool ok() const;
  // Worst entrywise relative error |a - r| / max(|a|, |r|) over the checks
  // named `check` (0 if none ran); dominated by entries near 0.
  double worst_rel_err(std::string_view check) const;
  // Worst normwise error max|a - r| / scale over those checks: the number to
  // quote for "agrees to ..." (scale: the Jacobian block's size).
  double worst_normwise_err(std::string_view check) const;
  const CheckResult* find(std::string_view check, std::string_view input = "") const;
  // Multi-line: one row per check; for a failing check, its worst entry with
  // every value, absolute and relative error, tolerance and step.
  std::string str() const;
};

Report check(const Problem& problem, const Inputs<double>& x, const Options& options = {});

// Two backward formulations of the same function (analytic vs tape) on the same
// inputs and output gradient dy, in double: the forward first, then one
// Comparison per input, with
//     |a - r| <= rtol * max(max|r|, term_scale[p]) + rtol * (|a| + |r|) / 2.
// rtol = 1e-12 by default (docs/design.md, "Analytic against tape"). term_scale[p] (0 when
// absent) is the size of the terms the gradient of input p is summed from, the
// formula evaluated with absolute values (a running-error bound): where those
// terms cancel, as in RMSNorm's dx at D = 1 where the exact value is 0, both
// formulations keep only rounding noise of that size.
std::vector<Comparison> agreement(const Problem& a, const Problem& b, const Inputs<double>& x,
                                  const Mat<double>& dy, double rtol = 1e-12,
                                  const std::vector<double>& term_scale = {});

// ---- templates ----------------------------------------------------------------

template <class Forward, class Backward>
Problem Problem::make(std::string name, std::vector<std::string> input_names, Forward forward,
                      Backward backward) {
  Problem p{std::move(name), std::move(input_names), {}, {}};
  auto set = [&]<class S>(Differentiable<S>& f) {
    f.forward = [forward](const Inputs<S>& x) { return Mat<S>(forward(x)); };
    using Result =
        decltype(backward(std::declval<const Inputs<S>&>(), std::declval<const Mat<S>&>()));
    if constexpr (std::is_same_v<std::decay_t<Result>, Vjp<S>>) {
      f.backward = [backward](const Inputs<S>& x, const Mat<S>& dy) {
        return std::move(backward(x, dy).grads);
      };
      f.value_and_backward = [backward](const Inputs<S>& x, const Mat<S>& dy) {
        return Vjp<S>(backward(x, dy));
      };
    } else {
      f.backward = [backward](const Inputs<S>& x, const Mat<S>& dy) {
        return Inputs<S>(backward(x, dy));
      };
      f.value_and_backward = [forward, backward](const Inputs<S>& x, const Mat<S>& dy) {
        return Vjp<S>{Mat<S>(forward(x)), Inputs<S>(backward(x, dy))};
      };
    }
  };
  set(p.f64);
  set(p.f50);
  return p;
}

template <class Build>
Problem Problem::from_tape(std::string name, std::vector<std::string> input_names, Build build) {
  // One tape per thread, precision and builder type (a lambda's type: the
  // problems made at one call site share it), cleared for every call: the
  // finite differences call forward thousands of times with the same shapes,
  // and each call reuses the matrices of the one before (tape.hpp, "Storage").
  // A builder must not call its own problem: the inner call would clear the
  // tape under the outer one, whose Vars then fail as stale.
  auto forward = [build](const auto& x) {
    using S = typename std::decay_t<decltype(x)>::value_type::Scalar;
    thread_local autodiff::Tape<S> t;
    t.clear();
    std::vector<autodiff::Var<S>> leaves;
    for (const auto& m : x) leaves.push_back(t.leaf(m));
    return Mat<S>(t.value(build(t, leaves)));
  };
  auto backward = [build](const auto& x, const auto& dy) {
    using S = typename std::decay_t<decltype(x)>::value_type::Scalar;
    thread_local autodiff::Tape<S> t;
    t.clear();
    std::vector<autodiff::Var<S>> leaves;
    for (const auto& m : x) leaves.push_back(t.leaf(m));
    return t.gradients(build(t, leaves), dy, leaves);
  };
  return make(std::move(name), std::move(input_names), forward, backward);
}

}  // namespace scaleref::verify
