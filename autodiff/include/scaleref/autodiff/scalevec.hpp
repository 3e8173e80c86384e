// The scale-vector strategies of scalevec/linear.hpp (the project's reading of
// the scale_vectors paper) rebuilt from tape primitives, and each as a
// gradient-check problem (analytic from reference/, and tape).
// Inputs: x, W, then the strategy's parameters in the order g, a, r, u (those
// it reads). HG: x, then W_b, g_b per branch; its output is the branch outputs
// concatenated column-wise.
#pragma once

#include <scaleref/autodiff/norms.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <string>
#include <vector>

namespace scaleref::autodiff {

// DNP's n_h: each of `heads` column blocks normalized on its own.
template <class S>
Var<S> tape_head_normalize(Tape<S>& t, Var<S> z, Eigen::Index heads, double eps) {
  if (heads == 1) return tape_rms_normalize(t, z, eps);
  const Eigen::Index w = t.value(z).cols() / heads;
  std::vector<Var<S>> parts;
  for (Eigen::Index h = 0; h < heads; ++h)
    parts.push_back(tape_rms_normalize(t, t.slice_cols(z, h * w, w), eps));
  return t.concat_cols(parts);
}

// g, a, r, u are ignored where the strategy does not read them.
template <class S>
Var<S> tape_scalevec(Tape<S>& t, Var<S> x, Var<S> W, Var<S> g, Var<S> a, Var<S> r, Var<S> u,
                     const scalevec::Config& c) {
  using scalevec::Strategy;
  const Var<S> n = tape_rms_normalize(t, x, c.eps);
  Var<S> s = n;
  if (c.strategy == Strategy::md)  // g = r u / RMS(u), no eps
    s = t.mul_rowvec(n, t.mul_scalar(tape_rms_normalize(t, u, 0.0), r));
  else if (scalevec::uses_g(c.strategy))
    s = t.mul_rowvec(n, g);
  Var<S> z = t.matmul(s, t.transpose(W));
  if (c.strategy == Strategy::dnp) z = tape_head_normalize(t, z, c.heads, c.eps);
  return scalevec::uses_a(c.strategy) ? t.mul_rowvec(z, a) : z;
}

// v = {x, W_1, g_1, W_2, g_2, ...}: the branch outputs side by side.
template <class S>
Var<S> tape_scalevec_hg(Tape<S>& t, const std::vector<Var<S>>& v, double eps) {
  const Var<S> n = tape_rms_normalize(t, v[0], eps);
  std::vector<Var<S>> ys;
  for (std::size_t b = 1; b + 1 < v.size(); b += 2)
    ys.push_back(t.matmul(t.mul_rowvec(n, v[b + 1]), t.transpose(v[b])));
  return ys.size() == 1 ? ys[0] : t.concat_cols(ys);
}

// The problem's input names for a strategy: x, W, then g / a / r / u as read.
std::vector<std::string> scalevec_inputs(scalevec::Strategy s);

verify::Problem analytic_scalevec(const scalevec::Config& c);
verify::Problem tape_scalevec_problem(const scalevec::Config& c);
// HG with `branches` branches (names x, W_1, g_1, ...).
verify::Problem analytic_scalevec_hg(int branches, double eps);
verify::Problem tape_scalevec_hg_problem(int branches, double eps);

}  // namespace scaleref::autodiff
