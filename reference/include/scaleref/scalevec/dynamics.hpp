// Training dynamics of scale vectors in a linear teacher-student model: the
// project's reading of Setting 2.1 and Theorems 2.2 / 2.3 of the scale-vectors
// paper. The paper copy lost its formulas; everything below is written from
// ../shared/papers/README.md ("Gaps in the copies ..."), which gives this
// project's definitions, NOT quotations of the paper.
//
// Setting 2.1 (project's reading). x ~ N(0, I_d), teacher y = W* x with
// W* in R^(m x d) whose columns are all nonzero. Students, and their
// population losses L = 1/2 E ||f(x) - y||^2 (E[x x^T] = I turns the
// expectation into a Frobenius norm):
//
//   Model::without  f(x) = W x                   L = 1/2 ||W - W*||_F^2
//   Model::with_g   f(x) = W diag(g) x           L = 1/2 ||W diag(g) - W*||_F^2
//   Model::dp       f(x) = diag(a) W diag(g) x   L = 1/2 ||diag(a) W diag(g) - W*||_F^2
//   Model::md       f(x) = W diag(g) x,  g = r u / RMS(u),  RMS(u) = sqrt(mean(u^2))
//                   (no epsilon here: u = 0 is rejected), parameters (W, r, u)
//   Model::md_l2    the same with g = r u / ||u|| (the usual weight-normalization
//                   form; the alternative reading of Sec. 3.3, see MdNorm)
//
// Initial state W(0) = 0, g(0) = 1, a(0) = 1, r(0) = 1, u(0) = 1 (so g = 1);
// md_l2 starts at r(0) = sqrt(d), u(0) = 1, so that its g(0) = 1 too.
// Gradient flow d(theta)/dt = -grad_theta L, integrated with classical RK4.
//
// Exact gradients. With the residual M (m x d) of each model,
//
//   without: M = W - W*                grad_W = M
//   with_g:  M = W diag(g) - W*        grad_W = M diag(g)
//                                       grad_g_j = sum_i W_ij M_ij  (= w_j . m_j)
//   dp:      M = diag(a) W diag(g) - W*
//                                       grad_W_ij = a_i M_ij g_j
//                                       grad_a_i  = sum_j M_ij W_ij g_j
//                                       grad_g_j  = sum_i M_ij a_i W_ij
//   md:      g = r u / rho, rho = RMS(u) (||u|| for md_l2); with G = grad_g L of
//            with_g at that g,
//                                       grad_W = M diag(g)
//                                       grad_r = J_r^T G,  grad_u = J_u^T G
//            (J_r, J_u below).
//
// Conserved along the with_g flow: g_j^2 - ||w_j||^2 (w_j = column j of W):
//   d/dt g_j^2    = -2 g_j (w_j . m_j)
//   d/dt ||w_j||^2 = 2 w_j . (-g_j m_j) = -2 g_j (w_j . m_j).
// Along the dp flow both g_j^2 - ||W_:j||^2 and a_i^2 - ||W_i:||^2 are conserved
// by the same computation.
//
// Theorem 2.3 (project's reading): scalar output (m = 1), SGD with weight
// decay lambda_W on W and lambda_g on g. This header simulates it as
// DISCRETE MINIBATCH SGD (not an SDE): at step k the batch is
// x_{k,b,j} = random::normal(seed, tensor, (k B + b) d + j), so a run is a pure
// function of its arguments and bitwise reproducible.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <scaleref/error.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/types.hpp>
#include <string>
#include <vector>

namespace scaleref::scalevec::dynamics {

enum class Model { without, with_g, dp, md, md_l2 };

inline const char* model_name(Model m) {
  switch (m) {
    case Model::without:
      return "without";
    case Model::with_g:
      return "with_g";
    case Model::dp:
      return "dp";
    case Model::md:
      return "md";
    case Model::md_l2:
      return "md_l2";
  }
  return "?";
}

// The parameters of every model in one struct; fields a model does not use
// stay empty (0 x 0), r stays 1. Vectors are 1 x n row vectors.
//   without: W          with_g: W, g          dp: W, a (1 x m), g (1 x d)
//   md, md_l2: W, r, u (g is derived: md_scale(r, u, md_norm_of(model)))
// A gradient has the same layout.
// Sec. 3.3's MD divides the direction u by a norm (the copy lost the section).
// rms: RMS(u) = sqrt(mean(u^2)), the project's definition (shared/papers/
// README.md); l2: ||u|| = sqrt(d) RMS(u), the usual weight-normalization form.
// Both give the same set of maps g = r u / norm (r / sqrt(d) of the one is r of
// the other), but not the same gradient flow on (r, u): see md_preconditioner.
enum class MdNorm { rms, l2 };

inline bool is_md(Model m) { return m == Model::md || m == Model::md_l2; }

inline MdNorm md_norm_of(Model m) { return m == Model::md_l2 ? MdNorm::l2 : MdNorm::rms; }

template <class S>
struct State {
  Mat<S> W;
  Mat<S> g;
  Mat<S> a;
  S r = S(1);
  Mat<S> u;
};

namespace detail {

template <class S>
void check_teacher(const Mat<S>& W_star, const char* where) {
  require(W_star.rows() >= 1 && W_star.cols() >= 1, where, "expected a nonempty W*, got ",
          shape_str(W_star));
  require(all_finite(W_star), where, "expected a finite W*");
  for (Eigen::Index j = 0; j < W_star.cols(); ++j)
    require(W_star.col(j).squaredNorm() > S(0), where,
            "expected W* with nonzero columns (Setting 2.1), column ", j, " is zero");
}

template <class S>
void check_vec(const Mat<S>& v, Eigen::Index n, const char* name, const char* where) {
  require(v.rows() == 1 && v.cols() == n, where, "expected ", name, " of shape [1x", n, "], got ",
          shape_str(v));
  require(all_finite(v), where, "expected a finite ", name);
}

template <class S>
void check_state(Model model, const State<S>& s, const Mat<S>& W_star, const char* where) {
  const Eigen::Index m = W_star.rows(), d = W_star.cols();
  require(s.W.rows() == m && s.W.cols() == d, where, "expected W of W*'s shape ", shape_str(W_star),
          ", got ", shape_str(s.W));
  require(all_finite(s.W), where, "expected a finite W");
  if (model == Model::with_g || model == Model::dp) check_vec(s.g, d, "g", where);
  if (model == Model::dp) check_vec(s.a, m, "a", where);
  if (is_md(model)) {
    using std::isfinite;
    require(isfinite(s.r), where, "expected a finite r");
    check_vec(s.u, d, "u", where);
    require(s.u.squaredNorm() > S(0), where, "expected a nonzero u (RMS(u) > 0)");
  }
}

// s + c k over the fields in use.
template <class S>
State<S> axpy(const State<S>& s, const S& c, const State<S>& k) {
  State<S> out = s;
  out.W += c * k.W;
  if (s.g.size()) out.g += c * k.g;
  if (s.a.size()) out.a += c * k.a;
  out.r += c * k.r;
  if (s.u.size()) out.u += c * k.u;
  return out;
}

}  // namespace detail

// RMS(u) = sqrt(mean(u^2)), no epsilon.
template <class S>
S rms(const Mat<S>& u) {
  using std::sqrt;
  return sqrt(u.squaredNorm() / S(u.size()));
}

// u's norm under the form: RMS(u) or ||u||.
template <class S>
S md_norm(const Mat<S>& u, MdNorm form) {
  using std::sqrt;
  return form == MdNorm::rms ? rms(u) : sqrt(u.squaredNorm());
}

namespace detail {

// k = ||u||^2 / norm(u)^2: d for RMS, 1 for ||u||. Every formula below is
// written once in terms of nu = norm(u) and k (the derivation is the same).
template <class S>
S md_k(Eigen::Index d, MdNorm form) {
  return form == MdNorm::rms ? S(d) : S(1);
}

template <class S>
void check_md_u(const Mat<S>& u, const char* where) {
  require(u.rows() == 1 && u.cols() >= 1 && u.squaredNorm() > S(0), where,
          "expected a nonzero u of shape [1xd], got ", shape_str(u));
}

}  // namespace detail

// MD's scale vector g = r u / nu, nu = RMS(u) (the project's definition) or ||u||.
template <class S>
Mat<S> md_scale(const S& r, const Mat<S>& u, MdNorm form = MdNorm::rms) {
  require(u.rows() == 1 && u.cols() >= 1, "scalevec::dynamics::md_scale",
          "expected u of shape [1xd], got ", shape_str(u));
  require(u.squaredNorm() > S(0), "scalevec::dynamics::md_scale", "expected a nonzero u");
  return (r / md_norm(u, form)) * u;
}

// J_r = dg/dr = u / nu = v^T, as a d x 1 column (v = u / nu, ||v||^2 = k).
template <class S>
Mat<S> md_jacobian_r(const S& /*r*/, const Mat<S>& u, MdNorm form = MdNorm::rms) {
  detail::check_md_u(u, "scalevec::dynamics::md_jacobian_r");
  return (u / md_norm(u, form)).transpose();
}

// J_u = dg/du (d x d). With nu = sqrt(||u||^2 / k) (k = d for RMS, 1 for
// ||u||), d nu / d u_k = u_k / (k nu):
//   dg_j/du_q = r (delta_jq / nu - u_j u_q / (k nu^3))
//             = (r / nu) (delta_jq - v_j v_q / k),   v = u / nu.
template <class S>
Mat<S> md_jacobian_u(const S& r, const Mat<S>& u, MdNorm form = MdNorm::rms) {
  detail::check_md_u(u, "scalevec::dynamics::md_jacobian_u");
  const Eigen::Index d = u.cols();
  const S nu = md_norm(u, form);
  const Mat<S> v = u / nu;
  Mat<S> J = -(v.transpose() * v) / detail::md_k<S>(d, form);
  for (Eigen::Index j = 0; j < d; ++j) J(j, j) += S(1);
  return (r / nu) * J;
}

// The MD preconditioner (project's derivation; the paper's formula was lost).
//
// g = g(r, u) depends on (r, u) only, and gradient flow on (r, u) reads
//   dr/dt = -dL/dr = -J_r^T grad_g L,   du/dt = -grad_u L = -J_u^T grad_g L
// by the chain rule (L depends on r, u only through g). Then
//   dg/dt = J_r dr/dt + J_u du/dt = -(J_r J_r^T + J_u J_u^T) grad_g L,
// so dg/dt = -P grad_g L with
//   P(r, u) = J_r J_r^T + J_u J_u^T,
//   J_r = v^T,  J_u = (r / nu) (I - v^T v / k),  v = u / nu (row).
// Since ||v||^2 = k (no epsilon), Q = I - v^T v / k is the orthogonal projector
// off v, and Q Q^T = Q, so in closed form
//   P = v^T v + (r / nu)^2 (I - v^T v / k):
// eigenvalue ||v||^2 = k along g's direction (radial, moved by r) and
// (r / nu)^2 on the d - 1 directions orthogonal to it (moved by u).
//   RMS (nu = rho, k = d): d along g, (r / rho)^2 across: anisotropic unless
//     d = (r / rho)^2. At the init r = 1, u = 1: P = I + (1 - 1/d) 1 1^T.
//   ||u|| (k = 1): 1 along g, (r / ||u||)^2 across. The same g is r_rms =
//     r / sqrt(d) and the same u, so J_u is the RMS form's, but J_r is 1/sqrt(d)
//     of it: the radial eigenvalue is d times smaller. At md_l2's init
//     r = sqrt(d), u = 1 (g = 1): P = I, the plain vector's.
// This function computes P from the explicit Jacobians (J_r J_r^T + J_u J_u^T);
// md_preconditioner_closed_form evaluates the closed form.
template <class S>
Mat<S> md_preconditioner(const S& r, const Mat<S>& u, MdNorm form = MdNorm::rms) {
  const Mat<S> Jr = md_jacobian_r(r, u, form), Ju = md_jacobian_u(r, u, form);
  return Jr * Jr.transpose() + Ju * Ju.transpose();
}

template <class S>
Mat<S> md_preconditioner_closed_form(const S& r, const Mat<S>& u, MdNorm form = MdNorm::rms) {
  const Mat<S> Jr = md_jacobian_r(r, u, form);  // checks u
  const Eigen::Index d = u.cols();
  const S nu = md_norm(u, form), c = (r / nu) * (r / nu);
  Mat<S> P = Jr * Jr.transpose() * (S(1) - c / detail::md_k<S>(d, form));
  for (Eigen::Index j = 0; j < d; ++j) P(j, j) += c;
  return P;
}

// The effective scale vector of a state: g (with_g, dp), r u / RMS(u) (md),
// r u / ||u|| (md_l2), ones (without).
template <class S>
Mat<S> effective_g(Model model, const State<S>& s) {
  switch (model) {
    case Model::without:
      return Mat<S>::Ones(1, s.W.cols());
    case Model::with_g:
    case Model::dp:
      return s.g;
    case Model::md:
    case Model::md_l2:
      return md_scale(s.r, s.u, md_norm_of(model));
  }
  return {};
}

// The initial state of Setting 2.1 for W* of shape m x d:
// W = 0, g = 1, a = 1, r = 1, u = 1 (the fields the model uses); md_l2 has
// r = sqrt(d), so that g(0) = sqrt(d) 1 / ||1|| = 1 as for every other model
// (with r = 1 its g(0) would be 1 / sqrt(d), and a flow compared with the plain
// vector's would start from another point).
template <class S>
State<S> initial_state(Model model, Eigen::Index m, Eigen::Index d) {
  require(m >= 1 && d >= 1, "scalevec::dynamics::initial_state", "expected m, d >= 1, got m = ", m,
          ", d = ", d);
  State<S> s;
  s.W = Mat<S>::Zero(m, d);
  if (model == Model::with_g || model == Model::dp) s.g = Mat<S>::Ones(1, d);
  if (model == Model::dp) s.a = Mat<S>::Ones(1, m);
  if (is_md(model)) s.u = Mat<S>::Ones(1, d);
  if (model == Model::md_l2) {
    using std::sqrt;
    s.r = sqrt(S(d));
  }
  return s;
}

namespace detail {

// The residual M of the model (see the header comment); state checked by callers.
template <class S>
Mat<S> residual(Model model, const State<S>& s, const Mat<S>& W_star) {
  Mat<S> P = s.W;
  if (model != Model::without) P = P * effective_g(model, s).asDiagonal();
  if (model == Model::dp) P = s.a.transpose().asDiagonal() * P;
  return P - W_star;
}

template <class S>
State<S> gradient_unchecked(Model model, const State<S>& s, const Mat<S>& W_star) {
  const Mat<S> M = residual(model, s, W_star);
  State<S> gr;
  gr.r = S(0);
  switch (model) {
    case Model::without:
      gr.W = M;
      break;
    case Model::with_g:
      gr.W = M * s.g.asDiagonal();
      gr.g = (s.W.cwiseProduct(M)).colwise().sum();
      break;
    case Model::dp: {
      gr.W = s.a.transpose().asDiagonal() * M * s.g.asDiagonal();
      const Mat<S> WM = s.W.cwiseProduct(M);  // W_ij M_ij
      gr.a = (WM * s.g.transpose()).transpose();
      gr.g = s.a * WM;
      break;
    }
    case Model::md:
    case Model::md_l2: {
      const MdNorm form = md_norm_of(model);
      const Mat<S> g = md_scale(s.r, s.u, form);
      gr.W = M * g.asDiagonal();
      const Mat<S> G = (s.W.cwiseProduct(M)).colwise().sum();  // grad_g L, 1 x d
      gr.r = (G * md_jacobian_r(s.r, s.u, form))(0, 0);
      gr.u = G * md_jacobian_u(s.r, s.u, form);  // (J_u^T G^T)^T = G J_u
      break;
    }
  }
  return gr;
}

}  // namespace detail

// The population loss L of the model at state s (see the header comment).
template <class S>
S loss(Model model, const State<S>& s, const Mat<S>& W_star) {
  detail::check_teacher(W_star, "scalevec::dynamics::loss");
  detail::check_state(model, s, W_star, "scalevec::dynamics::loss");
  return detail::residual(model, s, W_star).squaredNorm() / S(2);
}

// The exact gradient of loss() in the State layout (fields the model does not
// use stay empty; r's slot is 0 unless md or md_l2).
template <class S>
State<S> gradient(Model model, const State<S>& s, const Mat<S>& W_star) {
  detail::check_teacher(W_star, "scalevec::dynamics::gradient");
  detail::check_state(model, s, W_star, "scalevec::dynamics::gradient");
  return detail::gradient_unchecked(model, s, W_star);
}

// grad_g L of Model::with_g's loss at the state's effective g: the vector that
// the MD preconditioner multiplies (dg/dt = -P grad_g L).
template <class S>
Mat<S> grad_wrt_g(Model model, const State<S>& s, const Mat<S>& W_star) {
  detail::check_teacher(W_star, "scalevec::dynamics::grad_wrt_g");
  detail::check_state(model, s, W_star, "scalevec::dynamics::grad_wrt_g");
  require(model != Model::without, "scalevec::dynamics::grad_wrt_g",
          "expected a model with a scale vector, got 'without'");
  const Mat<S> WM = s.W.cwiseProduct(detail::residual(model, s, W_star));
  if (model == Model::dp) return s.a * WM;
  return WM.colwise().sum();
}

// Conserved quantity of the with_g (and dp) flow: g_j^2 - ||w_j||^2, 1 x d.
template <class S>
Mat<S> g_invariant(const State<S>& s) {
  require(s.g.rows() == 1 && s.g.cols() == s.W.cols(), "scalevec::dynamics::g_invariant",
          "expected g of shape [1x", s.W.cols(), "], got ", shape_str(s.g));
  return s.g.cwiseProduct(s.g) - s.W.colwise().squaredNorm();
}

template <class S>
struct TrajectoryPoint {
  S t;
  S loss;
  State<S> state;
};

// Classical RK4 on the gradient flow d(theta)/dt = -grad L, from `initial`
// (checked) at t = 0, reporting the state and loss at each requested time
// (finite, >= 0, nondecreasing). Between consecutive requested times t0 < t1
// it takes n = ceil((t1 - t0) / h) equal steps of (t1 - t0) / n <= h, so a time
// that is a multiple of h is reached with steps of exactly h. Fixed step, no
// adaptivity: the global error is O(h^4).
template <class S>
std::vector<TrajectoryPoint<S>> integrate(Model model, const Mat<S>& W_star,
                                          const State<S>& initial, const std::vector<S>& times,
                                          const S& h) {
  using std::ceil;
  using std::isfinite;
  constexpr const char* where = "scalevec::dynamics::integrate";
  detail::check_teacher(W_star, where);
  detail::check_state(model, initial, W_star, where);
  require(isfinite(h) && h > S(0), where, "expected a finite step h > 0, got h = ", h);
  S prev(0);
  for (std::size_t k = 0; k < times.size(); ++k) {
    require(isfinite(times[k]) && times[k] >= prev, where,
            "expected finite times >= 0 in nondecreasing order, got times[", k, "] = ", times[k]);
    prev = times[k];
  }
  auto f = [&](const State<S>& s) { return detail::gradient_unchecked(model, s, W_star); };
  std::vector<TrajectoryPoint<S>> out;
  out.reserve(times.size());
  State<S> s = initial;
  S t(0);
  for (const S& target : times) {
    const S span = target - t;
    if (span > S(0)) {
      const S nsteps = ceil(span / h - S(1e-9));  // a multiple of h is not rounded up
      const long n = std::max(1L, static_cast<long>(nsteps));
      const S dt = span / S(n);
      for (long i = 0; i < n; ++i) {
        // k = -grad L at the stage states.
        const State<S> k1 = f(s);
        const State<S> k2 = f(detail::axpy(s, -dt / S(2), k1));
        const State<S> k3 = f(detail::axpy(s, -dt / S(2), k2));
        const State<S> k4 = f(detail::axpy(s, -dt, k3));
        State<S> sum = detail::axpy(k1, S(2), k2);
        sum = detail::axpy(sum, S(2), k3);
        sum = detail::axpy(sum, S(1), k4);
        s = detail::axpy(s, -dt / S(6), sum);
      }
      require(detail::residual(model, s, W_star).allFinite(), where,
              "the flow left the finite range before t = ", target);
    }
    t = target;
    out.push_back({t, detail::residual(model, s, W_star).squaredNorm() / S(2), s});
  }
  return out;
}

// The same, from Setting 2.1's initial state.
template <class S>
std::vector<TrajectoryPoint<S>> integrate(Model model, const Mat<S>& W_star,
                                          const std::vector<S>& times, const S& h) {
  detail::check_teacher(W_star, "scalevec::dynamics::integrate");
  return integrate(model, W_star, initial_state<S>(model, W_star.rows(), W_star.cols()), times, h);
}

// Theorem 2.3 (project's reading), simulated as discrete minibatch SGD on the
// scalar-output model f(x) = w . (g o x), w, g in R^(1 x d), teacher w*:
//   e_b = sum_j (w_j g_j - w*_j) x_bj                       (residual of sample b)
//   grad_w_j = (1/B) sum_b e_b g_j x_bj,  grad_g_j = (1/B) sum_b e_b w_j x_bj
//   w <- w - eta (grad_w + lambda_W w),   g <- g - eta (grad_g + lambda_g g)
// (weight decay pulls toward 0), from w = 0, g = 1. The batch of step k is
// x_{k,b,j} = random::normal(seed, tensor, (k B + b) d + j).
template <class S>
struct SgdConfig {
  S eta = S(0.05);
  std::uint64_t batch = 8;
  S lambda_W = S(0.01);
  S lambda_g = S(0);
  std::uint64_t steps = 10000;
  std::uint64_t record_every = 1000;  // ||g|| is recorded at step 0, every this many, and the end
  std::uint64_t seed = 0;
  std::uint32_t tensor = 0;
};

template <class S>
struct SgdTrace {
  std::vector<std::uint64_t> step;
  std::vector<S> g_norm;  // ||g||_2 after `step` updates
  Mat<S> w, g;            // final parameters
};

namespace detail {

// The checks SGD and its SDE share: a [1 x d] teacher with no zero entry,
// eta > 0, batch >= 1, lambda_W, lambda_g >= 0, record_every >= 1.
template <class S, class Config>
void check_scalar_run(const char* where, const Mat<S>& w_star, const Config& c) {
  using std::isfinite;
  require(w_star.rows() == 1, where, "expected a scalar-output teacher w* of shape [1xd], got ",
          shape_str(w_star));
  check_teacher(w_star, where);
  require(isfinite(c.eta) && c.eta > S(0), where, "expected eta > 0, got ", c.eta);
  require(c.batch >= 1, where, "expected batch >= 1, got ", c.batch);
  require(isfinite(c.lambda_W) && c.lambda_W >= S(0), where, "expected lambda_W >= 0, got ",
          c.lambda_W);
  require(isfinite(c.lambda_g) && c.lambda_g >= S(0), where, "expected lambda_g >= 0, got ",
          c.lambda_g);
  require(c.record_every >= 1, where, "expected record_every >= 1, got ", c.record_every);
}

}  // namespace detail

template <class S>
SgdTrace<S> sgd(const Mat<S>& w_star, const SgdConfig<S>& c) {
  constexpr const char* where = "scalevec::dynamics::sgd";
  detail::check_scalar_run(where, w_star, c);
  const Eigen::Index d = w_star.cols();
  const std::uint64_t ud = static_cast<std::uint64_t>(d);
  SgdTrace<S> tr;
  Mat<S> w = Mat<S>::Zero(1, d), g = Mat<S>::Ones(1, d), x(1, d), ex(1, d);
  tr.step.push_back(0);
  tr.g_norm.push_back(g.norm());
  for (std::uint64_t k = 0; k < c.steps; ++k) {
    ex.setZero();  // (sum_b e_b x_b)
    const Mat<S> diff = w.cwiseProduct(g) - w_star;
    for (std::uint64_t b = 0; b < c.batch; ++b) {
      const std::uint64_t base = (k * c.batch + b) * ud;
      for (Eigen::Index j = 0; j < d; ++j)
        x(0, j) = S(random::normal(c.seed, c.tensor, base + static_cast<std::uint64_t>(j)));
      S e(0);
      for (Eigen::Index j = 0; j < d; ++j) e += diff(0, j) * x(0, j);  // fixed order
      ex += e * x;  // times g_j (for w) and w_j (for g) below
    }
    const S inv_b = S(1) / S(c.batch);
    const Mat<S> step_w = inv_b * ex.cwiseProduct(g) + c.lambda_W * w;
    const Mat<S> step_g = inv_b * ex.cwiseProduct(w) + c.lambda_g * g;
    w -= c.eta * step_w;
    g -= c.eta * step_g;
    if ((k + 1) % c.record_every == 0 || k + 1 == c.steps) {
      require(w.allFinite() && g.allFinite(), where, "SGD diverged (non-finite) by step ", k + 1,
              "; lower eta");
      tr.step.push_back(k + 1);
      tr.g_norm.push_back(g.norm());
    }
  }
  tr.w = w;
  tr.g = g;
  return tr;
}

// ---- Theorem 2.3 as an SDE (the project's reading) ------------------------------------
//
// SGD with learning rate eta and batch B on theta = (w, g) (scalar output,
// population loss L = 1/2 ||v||^2 with v = w (.) g - w*) is approximated, to
// first order in eta, by the SDE
//   d theta = -(grad L(theta) + Lambda theta) dt + sqrt(eta / B) Sigma(theta)^(1/2) dB_t,
// with t = eta x (SGD steps), Lambda = diag(lambda_W 1, lambda_g 1), and Sigma
// the covariance of one sample's gradient. One sample x ~ N(0, I_d) gives
// e = v^T x and the gradient e J x with J = [diag(g); diag(w)] (2d x d).
// Isserlis' theorem gives E[e^2 x x^T] = ||v||^2 I + 2 v v^T and E[e x] = v, so
//   Cov[e x] = C = ||v||^2 I + v v^T,        Sigma = J C J^T,
//   C^(1/2) = ||v|| (I + (sqrt(2) - 1) v_hat v_hat^T)   (eigenvalues 2||v||^2 along v, ||v||^2
//   across).
// Euler-Maruyama with step dt, xi ~ N(0, I_d) from the Philox stream:
//   theta <- theta - (grad L + Lambda theta) dt + sqrt(eta dt / B) J C^(1/2) xi.

// Sigma(theta) = J C J^T for theta = (w, g), [2d x 2d], rows and columns ordered (w, g).
template <class S>
Mat<S> sample_gradient_covariance(const Mat<S>& w, const Mat<S>& g, const Mat<S>& w_star) {
  constexpr const char* where = "scalevec::dynamics::sample_gradient_covariance";
  require(w_star.rows() == 1 && w.rows() == 1 && g.rows() == 1 && w.cols() == w_star.cols() &&
              g.cols() == w_star.cols(),
          where, "expected w, g, w* all [1xd], got ", shape_str(w), ", ", shape_str(g), ", ",
          shape_str(w_star));
  const Eigen::Index d = w_star.cols();
  const Mat<S> v = w.cwiseProduct(g) - w_star;
  const Mat<S> C = v.squaredNorm() * Mat<S>::Identity(d, d) + v.transpose() * v;
  Mat<S> J(2 * d, d);
  J.topRows(d) = g.row(0).asDiagonal().toDenseMatrix();
  J.bottomRows(d) = w.row(0).asDiagonal().toDenseMatrix();
  return J * C * J.transpose();
}

template <class S>
struct SdeConfig {
  S eta = S(0.05);  // the SGD learning rate the SDE stands for
  std::uint64_t batch = 8;
  S lambda_W = S(0.01);
  S lambda_g = S(0);
  S dt = S(0.05);  // Euler-Maruyama step in SDE time (dt = eta: one SGD step per step)
  std::uint64_t steps = 10000;
  std::uint64_t record_every = 1000;
  std::uint64_t seed = 0;
  std::uint32_t tensor = 0;
};

// Returns ||g|| at step 0, every record_every steps and the end (step counts EM steps).
template <class S>
SgdTrace<S> sde(const Mat<S>& w_star, const SdeConfig<S>& c) {
  using std::isfinite;
  using std::sqrt;
  constexpr const char* where = "scalevec::dynamics::sde";
  detail::check_scalar_run(where, w_star, c);
  require(isfinite(c.dt) && c.dt > S(0), where, "expected dt > 0, got ", c.dt);
  const Eigen::Index d = w_star.cols();
  const std::uint64_t ud = static_cast<std::uint64_t>(d);
  const S noise = sqrt(S(c.eta * c.dt / S(c.batch)));
  const S root2_minus_1 = sqrt(S(2)) - S(1);
  SgdTrace<S> tr;
  Mat<S> w = Mat<S>::Zero(1, d), g = Mat<S>::Ones(1, d), xi(1, d);
  tr.step.push_back(0);
  tr.g_norm.push_back(g.norm());
  for (std::uint64_t k = 0; k < c.steps; ++k) {
    const Mat<S> v = w.cwiseProduct(g) - w_star;
    for (Eigen::Index j = 0; j < d; ++j)
      xi(0, j) = S(random::normal(c.seed, c.tensor, k * ud + static_cast<std::uint64_t>(j)));
    // C^(1/2) xi = ||v|| (xi + (sqrt 2 - 1) v_hat (v_hat . xi)); 0 when v = 0.
    const S vn = v.norm();
    Mat<S> c_half_xi = Mat<S>::Zero(1, d);
    if (vn > S(0)) {
      const Mat<S> v_hat = v / vn;
      c_half_xi = vn * (xi + root2_minus_1 * v_hat.cwiseProduct(xi).sum() * v_hat);
    }
    const Mat<S> drift_w = v.cwiseProduct(g) + c.lambda_W * w;  // grad_w L = v (.) g
    const Mat<S> drift_g = v.cwiseProduct(w) + c.lambda_g * g;  // grad_g L = v (.) w
    const Mat<S> kick_w = noise * g.cwiseProduct(c_half_xi);    // rows diag(g) of J
    const Mat<S> kick_g = noise * w.cwiseProduct(c_half_xi);    // rows diag(w) of J
    w += -c.dt * drift_w + kick_w;
    g += -c.dt * drift_g + kick_g;
    if ((k + 1) % c.record_every == 0 || k + 1 == c.steps) {
      require(w.allFinite() && g.allFinite(), where, "the SDE diverged (non-finite) by step ",
              k + 1, "; lower dt");
      tr.step.push_back(k + 1);
      tr.g_norm.push_back(g.norm());
    }
  }
  tr.w = w;
  tr.g = g;
  return tr;
}

}  // namespace scaleref::scalevec::dynamics
