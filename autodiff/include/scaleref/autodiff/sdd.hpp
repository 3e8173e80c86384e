// The SDD layer and the plain linear layer rebuilt from tape primitives, and
// both as gradient-check problems (analytic from reference/, and tape).
// Inputs: SDD {x, V, alpha}; plain {x, W}. Output: y.
#pragma once

#include <scaleref/autodiff/norms.hpp>
#include <scaleref/linear/plain.hpp>
#include <scaleref/sdd/layer.hpp>

namespace scaleref::autodiff {

template <class S>
Var<S> tape_linear(Tape<S>& t, Var<S> x, Var<S> W) {
  return t.matmul(x, t.transpose(W));
}

template <class S>
Var<S> tape_sdd(Tape<S>& t, Var<S> x, Var<S> V, Var<S> alpha, const sdd::Config& c) {
  return t.mul_rowvec(tape_rms_normalize(t, tape_linear(t, x, V), c.eps), alpha);
}

verify::Problem analytic_linear();
verify::Problem tape_linear_problem();
verify::Problem analytic_sdd(const sdd::Config& c);
verify::Problem tape_sdd_problem(const sdd::Config& c);

}  // namespace scaleref::autodiff
