// Shared by the normalization tests: generators for inputs and for parameters
// away from their initial values, and the three-way gradient check
// (analytic vs tape vs finite differences).
#pragma once

#include <rapidcheck.h>

#include <cmath>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/verify/generators.hpp>
#include <vector>

namespace scaleref::test {

using verify::Inputs;
using M = Mat<double>;

// An [n, d] input at a common scale between 1e-8 and 1e8 (each entry within a
// decade of it, either sign, never 0).
inline rc::Gen<M> input(long n, long d) {
  return verify::gen::matrix(n, d, verify::gen::decades(-8, 8, 1));
}

// A 1 x d parameter far from 0 and 1: entries +-10^u, u in [-1, 1].
inline rc::Gen<M> parameter(long d) {
  return verify::gen::matrix(1, d, verify::gen::decades(-1, 1, 0.5));
}

// eps in {0, 1e-12, 1e-6, 1e-2, 1}: from none to one that swamps small inputs.
inline rc::Gen<double> eps() { return rc::gen::element(0.0, 1e-12, 1e-6, 1e-2, 1.0); }

inline double rms_of(const M& x) {
  return std::sqrt(x.squaredNorm() / static_cast<double>(x.size()));
}

// An output gradient: entries +-10^u, u in [-1, 1].
inline rc::Gen<M> output_gradient(long n, long d) {
  return verify::gen::matrix(n, d, verify::gen::decades(0, 0, 1));
}

// max over columns of sum over rows of |m|: the scale of a parameter gradient
// summed over rows (a running-error bound for that sum).
inline double column_abs_sum(const M& m) { return m.cwiseAbs().colwise().sum().maxCoeff(); }

// Runs the analytic problem through every check, compares it with the tape in
// double on output gradient dy (term_scale: see verify::agreement), and checks
// the tape against 50-digit finite differences; logs what a failure needs.
inline void check_three_ways(const verify::Problem& analytic, const verify::Problem& tape,
                             const Inputs<double>& in, const M& dy,
                             const std::vector<double>& term_scale) {
  for (std::size_t p = 0; p < in.size(); ++p)
    RC_LOG() << analytic.input_names[p] << " = " << verify::matrix_text(in[p]);
  RC_LOG() << "dy = " << verify::matrix_text(dy);
  const verify::Report a = verify::check(analytic, in);
  RC_LOG() << a.str();
  RC_ASSERT(a.ok());
  for (const auto& c : verify::agreement(analytic, tape, in, dy, 1e-12, term_scale)) {
    RC_LOG() << c.str() << '\n';
    RC_ASSERT(c.ok());
  }
  verify::Options only_50;
  only_50.fd_double = only_50.transpose = only_50.taylor = false;
  const verify::Report t = verify::check(tape, in, only_50);
  RC_LOG() << t.str();
  RC_ASSERT(t.ok());
}

}  // namespace scaleref::test
