// The seednorm paper's claims (see proofs_check/include/scaleref/audit/claim.hpp):
// the section adders, and the helpers several sections share.
//
// Conventions. A Jacobian J of an output F (1 x D) with respect to an input p
// is a matrix with J(k, l) = dF_k / dp_l, as the paper's Appendix B writes it;
// the gradient of a loss is then dL/dp = dy * J (eq. 17). Each backward
// formula of the paper is implemented as written (templated on the scalar, so
// it runs in Real50), turned into a verify::Problem whose forward is SeeDNorm
// itself (eq. 4 / eq. 7 with eps = 0, as Appendix B's eq. 15 writes it), and
// judged by the 50-digit analytic-vs-FD comparison (exact_by_fd50): a typo
// shows as "fails" with its measured distance, and the reference's own
// backward (norm::seednorm::backward) on the same point is measured beside it
// as "reference_err".
//
// Files (the paper's sections, in its order): forward.cpp (eq. 2-4, 7, 8 and
// Algorithms 1-3), analysis.cpp (Sec. 3.1: eq. 5 and the gradient
// discussion), param_grads.cpp (eq. 6 and Appendix B.1-B.3), input_grads.cpp
// (Appendix B.4-B.5: eq. 24-29), prop_a1.cpp (Appendix A: eq. 9-14),
// variance.cpp (Theorem 3.2, B.6), cost.cpp (Appendix E), tables.cpp (Sec. 4.3's
// activations and the tables' own arithmetic), prose.cpp (the sentences that
// summarize the tables); tables.hpp holds the transcribed tables;
// readings.hpp the notation readings; all.cpp registers them in order.
//
// Every random draw derives from Context::seed; tensor ids 0x5EED0000 + n,
// each claim its own.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <scaleref/eigen_dense.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "claims/support.hpp"

namespace scaleref::audit {

void add_seednorm_forward_claims(Registrar& r);
void add_seednorm_analysis_claims(Registrar& r);
void add_seednorm_param_grads_claims(Registrar& r);
void add_seednorm_input_grads_claims(Registrar& r);
void add_seednorm_prop_a1_claims(Registrar& r);
void add_seednorm_variance_claims(Registrar& r);
void add_seednorm_cost_claims(Registrar& r);
void add_seednorm_tables_claims(Registrar& r);
void add_seednorm_prose_claims(Registrar& r);

namespace seednorm_claims {

constexpr std::uint32_t kTid = 0x5EED0000u;

template <class M>
using ScalarOf = typename std::decay_t<M>::Scalar;

// max |a - b| / max(max |b|, tiny): the normwise relative distance of two matrices.
template <class S>
double rel_dist(const Mat<S>& a, const Mat<S>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return std::numeric_limits<double>::infinity();
  return max_abs<S>(Mat<S>(a - b)) / std::max(max_abs<S>(b), 1e-300);
}

// ---- SeeDNorm as the paper writes it (eq. 4, eq. 7), one token ---------------------

// The head of column k with H heads of D / H.
inline long head_of(long k, long d, long heads) { return k / (d / heads); }

template <class S>
S rms_of(const Mat<S>& x, double eps) {
  using std::sqrt;
  return sqrt(x.squaredNorm() / S(static_cast<long>(x.cols())) + S(eps));
}

// z_h = x_h . beta_h^T for each head (1 x H).
template <class S>
Mat<S> head_dots(const Mat<S>& x, const Mat<S>& beta, long heads) {
  const long d = x.cols(), w = d / heads;
  Mat<S> z(1, heads);
  for (long h = 0; h < heads; ++h) {
    S acc = 0;
    for (long j = h * w; j < (h + 1) * w; ++j) acc += x(0, j) * beta(0, j);
    z(0, h) = acc;
  }
  return z;
}

// s_k = sigma(z_h(k)) alpha_k (eq. 4 with one head, eq. 7 with H).
template <class S>
Mat<S> self_scale(const Mat<S>& x, const Mat<S>& alpha, const Mat<S>& beta, long heads) {
  using std::tanh;
  const Mat<S> z = head_dots(x, beta, heads);
  Mat<S> s(1, x.cols());
  for (long k = 0; k < x.cols(); ++k)
    s(0, k) = tanh(z(0, head_of(k, x.cols(), heads))) * alpha(0, k);
  return s;
}

// eq. 4 (heads = 1) and eq. 7 (heads = H) for each row of x, sigma = tanh.
template <class S>
Mat<S> seednorm_eq(const Mat<S>& x, const Mat<S>& alpha, const Mat<S>& beta, const Mat<S>& gamma,
                   long heads, double eps) {
  Mat<S> y(x.rows(), x.cols());
  for (long i = 0; i < x.rows(); ++i) {
    const Mat<S> xi = x.row(i);
    const S rms = rms_of<S>(xi, eps);
    const Mat<S> s = self_scale<S>(xi, alpha, beta, heads);
    for (long k = 0; k < x.cols(); ++k) y(i, k) = (s(0, k) + gamma(0, k)) * xi(0, k) / rms;
  }
  return y;
}

// ---- a point (x, alpha, beta, gamma) and per-input Jacobian problems ------------------

struct Point {
  Mat<double> x, alpha, beta, gamma;  // each 1 x D
  long heads = 1;
};

enum class Wrt { x, alpha, beta, gamma };

const char* wrt_name(Wrt w);
const Mat<double>& input_of(const Point& p, Wrt w);

template <class S>
struct PointS {
  Mat<S> x, alpha, beta, gamma;
  long heads = 1;
  long d() const { return x.cols(); }
  S rms() const { return rms_of<S>(x, 0.0); }
  Mat<S> r() const { return Mat<S>(x / rms()); }
  Mat<S> z() const { return head_dots<S>(x, beta, heads); }
  Mat<S> s() const { return self_scale<S>(x, alpha, beta, heads); }
};

template <class S>
PointS<S> point_with(const Point& p, Wrt w, const Mat<S>& v) {
  PointS<S> q{cast<S>(p.x), cast<S>(p.alpha), cast<S>(p.beta), cast<S>(p.gamma), p.heads};
  switch (w) {
    case Wrt::x:
      q.x = v;
      break;
    case Wrt::alpha:
      q.alpha = v;
      break;
    case Wrt::beta:
      q.beta = v;
      break;
    case Wrt::gamma:
      q.gamma = v;
      break;
  }
  return q;
}

// A problem with one input (w); the rest of the point is held fixed. `out`
// maps the point to the function's value (1 x m), `jac` to the paper's
// Jacobian (m x D) of it; the backward is dy * jac.
template <class Out, class Jac>
verify::Problem jacobian_problem(const std::string& name, const Point& p, Wrt w, Out out, Jac jac) {
  auto fwd = [p, w, out](const auto& in) {
    using S = ScalarOf<decltype(in[0])>;
    return Mat<S>(out(point_with<S>(p, w, in[0])));
  };
  auto bwd = [p, w, jac](const auto& in, const auto& dy) {
    using S = ScalarOf<decltype(in[0])>;
    const Mat<S> j = jac(point_with<S>(p, w, in[0]));
    return std::vector<Mat<S>>{Mat<S>(dy * j)};
  };
  return verify::Problem::make(name, {wrt_name(w)}, fwd, bwd);
}

// SeeDNorm (eq. 4 / 7, eps = 0) of a point.
inline auto seednorm_out = [](const auto& q) {
  using S = ScalarOf<decltype(q.x)>;
  return seednorm_eq<S>(q.x, q.alpha, q.beta, q.gamma, q.heads, 0.0);
};

// The standard point under `seed`: x ~ N(0, 1), alpha ~ 1 + N(0, 0.5^2),
// beta ~ N(0, 0.4^2), gamma ~ 1 + N(0, 0.3^2), D = 8: x . beta ~ N(0, 1.3), so
// tanh is neither linear nor saturated and every term of the gradients matters.
Point standard_point(std::uint64_t seed, long d, long heads, std::uint32_t tid);

// The reference's own backward at the same point (all inputs, eps = 0), by the
// same 50-digit comparison: the contrast to a paper formula that fails.
double reference_err(const Point& p);

// exact_by_fd50 on one paper formula, with the reference's error beside it.
Verdict formula_verdict(const verify::Problem& prob, const Point& p, Wrt w,
                        const std::string& regime, Fault fault = Fault::math_error);

std::string point_regime(const Point& p);

// The inputs text of a claim checked at the standard point.
inline std::string point_inputs(long heads, std::uint32_t tid) {
  return "one token, D = 8, H = " + std::to_string(heads) +
         ": x ~ N(0, 1), alpha ~ 1 + N(0, 0.5^2), beta ~ N(0, 0.4^2), gamma ~ 1 + N(0, 0.3^2) "
         "(standard point, tensors " +
         std::to_string(tid - kTid) + "-" + std::to_string(tid - kTid + 3) +
         " after 0x5EED0000, seed ctx.seed); eps = 0";
}

// The threshold text of exact_by_fd50.
inline constexpr const char* kFd50Threshold =
    "holds if the worst normwise error against the 50-digit central FD is <= 1e-20 (the FD's "
    "own error ~1e-35); fails otherwise";

// ---- the paper's Jacobians, as written ------------------------------------------------

template <class S>
Mat<S> diag_of(const Mat<S>& v) {
  Mat<S> m = Mat<S>::Zero(v.cols(), v.cols());
  for (long k = 0; k < v.cols(); ++k) m(k, k) = v(0, k);
  return m;
}

template <class S>
S sech2(const S& z) {
  using std::tanh;
  const S t = tanh(z);
  return S(1) - t * t;
}

// The last two terms of eq. 26 / eq. 6's x line:
// diag(s + gamma) / RMS - (s + gamma)^T 1 (.) (x^T x) / (D RMS^3).
template <class S>
Mat<S> rms_terms(const PointS<S>& q) {
  const Mat<S> g = q.s() + q.gamma;
  const S rms = q.rms(), d = S(q.d());
  const Mat<S> outer = Mat<S>(g.transpose()) * Mat<S>::Ones(1, q.d());
  const Mat<S> xx = Mat<S>(q.x.transpose()) * q.x;
  return Mat<S>(diag_of<S>(g) / rms - Mat<S>(outer.cwiseProduct(xx)) / (d * rms * rms * rms));
}

// (alpha (.) r)^T (a column).
template <class S>
Mat<S> alpha_r_col(const PointS<S>& q) {
  return Mat<S>(q.alpha.cwiseProduct(q.r()).transpose());
}

// The block mask delta_ij of heads: 1 where columns k and l share a head.
template <class S>
Mat<S> head_mask(long d, long heads) {
  Mat<S> m(d, d);
  for (long k = 0; k < d; ++k)
    for (long l = 0; l < d; ++l) m(k, l) = head_of(k, d, heads) == head_of(l, d, heads) ? 1 : 0;
  return m;
}

// [sigma'(z_1) v_h1, ..., sigma'(z_n) v_hn] as a 1 x D row.
template <class S>
Mat<S> per_head_sech2_times(const PointS<S>& q, const Mat<S>& v) {
  const Mat<S> z = q.z();
  Mat<S> row(1, q.d());
  for (long l = 0; l < q.d(); ++l) row(0, l) = sech2<S>(z(0, head_of(l, q.d(), q.heads))) * v(0, l);
  return row;
}

// dF_k/dalpha_l = sigma(z_h(k)) r_k delta_kl: eq. 18's fifth line (one head),
// eq. 19's second to fourth lines (H heads), and the D x D matrix that
// kAlphaJacobianReading reads "r . [sigma I]" as.
inline auto jac_alpha_entrywise = [](const auto& q) {
  using S = ScalarOf<decltype(q.x)>;
  using std::tanh;
  const Mat<S> z = q.z();
  Mat<S> j = Mat<S>::Zero(q.d(), q.d());
  const Mat<S> r = q.r();
  for (long k = 0; k < q.d(); ++k) j(k, k) = tanh(z(0, head_of(k, q.d(), q.heads))) * r(0, k);
  return j;
};

// The worst of several verdicts (fails < holds approximately < holds).
Verdict combine_min(const std::vector<Verdict>& vs);

// ---- forward comparisons ------------------------------------------------------------

// Reference forward vs the paper's equation, in Real50: agreement to 1e-40
// (50-digit arithmetic; these maps are well conditioned, ~10 operations deep).
inline constexpr double kForwardTol = 1e-40;

Verdict forward_verdict(double err, const std::string& regime);

inline constexpr const char* kForwardThreshold =
    "holds if the max relative difference (normwise, max |a - b| / max |b|) is <= 1e-40 in "
    "Real50; fails otherwise";

// ---- the Jacobian with respect to x, and norms --------------------------------------

double frob(const Mat<Real50>& m);

// The Jacobian d SeeDNorm / dx at a point, from the reference's backward
// (dy = e_k gives row k), in Real50.
Mat<Real50> ref_jacobian_x(const Point& p, const Mat<Real50>& x, double eps);

}  // namespace seednorm_claims
}  // namespace scaleref::audit
