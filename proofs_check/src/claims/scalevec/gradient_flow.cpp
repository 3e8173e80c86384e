// scalevec Sec. 2.1, the theoretical study of training dynamics: Setting 2.1's
// gradients, Theorem 2.2 (the scale vector's flow descends at least as fast),
// the invariant g_j^2 - ||w_j||^2 and the self-amplifying preconditioner. The
// setting's formulas were stripped from the copy: every claim here is the
// project's reading (readings.hpp) or a conformance check of its code.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "claims/scalevec/readings.hpp"
#include "claims/scalevec/scalevec.hpp"

namespace scaleref::audit {
namespace {

using namespace scalevec_claims;

// The gradients of Setting 2.1's losses (dynamics.hpp) that drive every flow.
Verdict setting_gradients(const Context& ctx) {
  const long mm = 3, d = 4;
  const M W_star = gaussian(ctx.seed, mm, d, 1.0, 3200);
  double worst = 0;
  std::vector<Measure> meas;
  for (const auto model : {dyn::Model::without, dyn::Model::with_g, dyn::Model::dp, dyn::Model::md,
                           dyn::Model::md_l2}) {
    // Inputs in the order W, then g / a / r, u as the model uses them.
    auto unpack = [model](const auto& in) {
      using S = typename std::decay_t<decltype(in)>::value_type::Scalar;
      dyn::State<S> s;
      s.W = in[0];
      std::size_t i = 1;
      if (model == dyn::Model::with_g || model == dyn::Model::dp) s.g = in[i++];
      if (model == dyn::Model::dp) s.a = in[i++];
      if (dyn::is_md(model)) {
        s.r = in[i++](0, 0);
        s.u = in[i++];
      }
      return s;
    };
    auto forward = [model, unpack, W_star](const auto& in) {
      using S = typename std::decay_t<decltype(in)>::value_type::Scalar;
      Mat<S> out(1, 1);
      out(0, 0) = dyn::loss(model, unpack(in), Mat<S>(W_star.cast<S>()));
      return out;
    };
    auto backward = [model, unpack, W_star](const auto& in, const auto& dy) {
      using S = typename std::decay_t<decltype(in)>::value_type::Scalar;
      const dyn::State<S> gr = dyn::gradient(model, unpack(in), Mat<S>(W_star.cast<S>()));
      const S c = dy(0, 0);
      std::vector<Mat<S>> out{Mat<S>(c * gr.W)};
      if (model == dyn::Model::with_g || model == dyn::Model::dp) out.push_back(c * gr.g);
      if (model == dyn::Model::dp) out.push_back(c * gr.a);
      if (dyn::is_md(model)) {
        out.push_back(Mat<S>::Constant(1, 1, c * gr.r));
        out.push_back(c * gr.u);
      }
      return out;
    };
    std::vector<std::string> names{"W"};
    verify::Inputs<double> in{gaussian(ctx.seed, mm, d, 0.7, 3201)};
    if (model == dyn::Model::with_g || model == dyn::Model::dp) {
      names.push_back("g");
      in.push_back((gaussian(ctx.seed, 1, d, 0.4, 3202).array() + 1.0).matrix());
    }
    if (model == dyn::Model::dp) {
      names.push_back("a");
      in.push_back((gaussian(ctx.seed, 1, mm, 0.4, 3203).array() + 1.0).matrix());
    }
    if (dyn::is_md(model)) {
      names.push_back("r");
      in.push_back(M::Constant(1, 1, 0.8));
      names.push_back("u");
      in.push_back((gaussian(ctx.seed, 1, d, 0.4, 3204).array() + 1.5).matrix());
    }
    const auto p = verify::Problem::make(std::string("scalevec.dynamics.") + dyn::model_name(model),
                                         names, forward, backward);
    const double e = exact_by_fd50(p, in, "").measured.at(0).value;
    meas.push_back({std::string("normwise_err_50_") + dyn::model_name(model), e});
    worst = std::max(worst, e);
  }
  meas.push_back({"normwise_err_50", worst});
  const std::string regime =
      "W* [3x4] N(0,1), random states; models without, with_g, dp, md, md_l2";
  if (worst <= 1e-20) return holds("err " + sci(worst), regime + ", 50-digit FD", meas);
  return fails(Fault::math_error, "err " + sci(worst),
               regime + ": a gradient is off by " + sci(worst), meas);
}

// Theorem 2.2: the comparison of the two flows (flows.cpp), under the
// reconstruction of its stripped inequality.
Verdict theorem_2_2(const Context& ctx) {
  Verdict v =
      faster_verdict(dyn::Model::with_g, dyn::Model::without, ctx.thorough ? 300 : 60, 3700, ctx);
  v.detail =
      "(the copy stripped Theorem 2.2's inequality) L_with(t) <= "
      "L_without(t) at every t, every teacher; " +
      v.detail;
  return v;
}

// The invariant g_j^2 - ||w_j||^2: its time derivative along the flow is 0 at
// every state (50 digits), and RK4's drift of it falls as h^4.
Verdict invariant(const Context& ctx) {
  double worst = 0;
  for (int k = 0; k < 8; ++k) {
    const std::uint32_t t = 3300 + 10 * static_cast<std::uint32_t>(k);
    const long mm = 1 + k % 4, d = 2 + k % 3;
    const M50 W_star = to50(gaussian(ctx.seed, mm, d, 1.0, t));
    for (const auto model : {dyn::Model::with_g, dyn::Model::dp}) {
      dyn::State<Real50> s;
      s.W = to50(gaussian(ctx.seed, mm, d, 0.8, t + 1));
      s.g = to50(gaussian(ctx.seed, 1, d, 1.0, t + 2));
      if (model == dyn::Model::dp) s.a = to50(gaussian(ctx.seed, 1, mm, 1.0, t + 3));
      const dyn::State<Real50> gr = dyn::gradient(model, s, W_star);
      // d/dt (g_j^2 - ||W_:j||^2) = 2 g_j (-gr.g_j) - 2 sum_i W_ij (-gr.W_ij)
      for (long j = 0; j < d; ++j) {
        const Real50 rate = -2 * s.g(0, j) * gr.g(0, j) + 2 * s.W.col(j).dot(gr.W.col(j));
        const Real50 scale =
            2 * abs(s.g(0, j) * gr.g(0, j)) + 2 * s.W.col(j).cwiseAbs().dot(gr.W.col(j).cwiseAbs());
        worst = std::max(worst, to_double(abs(rate) / scale));
      }
      if (model == dyn::Model::dp)
        for (long i = 0; i < mm; ++i) {
          const Real50 rate = -2 * s.a(0, i) * gr.a(0, i) + 2 * s.W.row(i).dot(gr.W.row(i));
          const Real50 scale = 2 * abs(s.a(0, i) * gr.a(0, i)) +
                               2 * s.W.row(i).cwiseAbs().dot(gr.W.row(i).cwiseAbs());
          worst = std::max(worst, to_double(abs(rate) / scale));
        }
    }
  }
  // RK4 drift of the integrated invariant at h and h/2 (the order check).
  const M W_star = gaussian(ctx.seed, 3, 4, 1.0, 3390);
  const auto times = time_grid(0.1, 4.0);
  auto drift = [&](double h) {
    double e = 0;
    for (const auto& p : dyn::integrate(dyn::Model::with_g, W_star, times, h))
      e = std::max(e, (dyn::g_invariant(p.state).array() - 1).abs().maxCoeff());
    return e;
  };
  const double e1 = drift(0.1), e2 = drift(0.05);
  std::vector<Measure> m{{"rel_rate_50", worst},
                         {"rk4_drift_h0.1", e1},
                         {"rk4_drift_h0.05", e2},
                         {"rk4_drift_ratio", e1 / e2}};
  // Exact: the rate, relative to the size of its two cancelling terms, must be
  // at 50-digit rounding (1e-40 leaves 8 digits of room). The RK4 drift of a
  // conserved quantity is the integrator's error, O(h^4): ratio near 16
  // (12..20 allows the O(h^5) term); a non-conserved quantity would not shrink.
  const bool exact = worst <= 1e-40, order = e1 / e2 > 12 && e1 / e2 < 20;
  const std::string regime =
      "8 random states each of with_g and dp (m 1..4, d 2..4), 50 digits; RK4 drift on W* "
      "[3x4] to t = 4";
  if (exact && order)
    return holds("rate " + sci(worst),
                 regime + "; RK4 drift " + sci(e2) + " at h = 0.05, ratio " + fixed(e1 / e2, 1) +
                     " per halving (h^4)",
                 m);
  return fails(Fault::reconstruction_refuted, "rate " + sci(worst),
               regime + ": d/dt (g_j^2 - |w_j|^2) relative " + sci(worst) + ", drift ratio " +
                   fixed(e1 / e2, 2),
               m);
}

// Effective parameter theta = W diag(g): d theta_j / dt = -(g_j^2 I + w_j w_j^T) m_j
// (the project's reading), and along the flow from the init its smallest
// eigenvalue g_j^2 = 1 + |w_j|^2 >= 1 (self-amplifying).
Verdict preconditioner(const Context& ctx) {
  double worst = 0;
  for (int k = 0; k < 6; ++k) {
    const std::uint32_t t = 3400 + 10 * static_cast<std::uint32_t>(k);
    const long mm = 1 + k % 3, d = 1 + k % 4;
    const M50 W_star = to50(gaussian(ctx.seed, mm, d, 1.0, t));
    dyn::State<Real50> s;
    s.W = to50(gaussian(ctx.seed, mm, d, 0.8, t + 1));
    s.g = to50(gaussian(ctx.seed, 1, d, 1.0, t + 2));
    const dyn::State<Real50> gr = dyn::gradient(dyn::Model::with_g, s, W_star);
    const M50 Mres = s.W * s.g.row(0).asDiagonal() - W_star;
    for (long j = 0; j < d; ++j) {
      // d theta_j/dt = g_j dw_j/dt + w_j dg_j/dt with d/dt = -grad.
      const M50 rate = -(s.g(0, j) * gr.W.col(j) + s.W.col(j) * gr.g(0, j));
      const M50 P =
          s.g(0, j) * s.g(0, j) * M50::Identity(mm, mm) + s.W.col(j) * s.W.col(j).transpose();
      const M50 pred = -(P * Mres.col(j));
      worst = std::max(worst, rel_diff(rate, pred));
    }
  }
  // Along the flow from the init: the smallest eigenvalue of P_j is g_j^2 and
  // its excess over 1 + |w_j|^2 (which the invariant makes exact) is RK4 drift.
  double min_lambda = 1e300, max_gap = 0;
  for (int k = 0; k < 10; ++k) {
    const Instance in = teacher(ctx.seed, k, 3450);
    for (const auto& p : dyn::integrate(dyn::Model::with_g, in.W_star, time_grid(0.5, 6.0), 0.01))
      for (long j = 0; j < p.state.W.cols(); ++j) {
        const M P =
            p.state.g(0, j) * p.state.g(0, j) * M::Identity(p.state.W.rows(), p.state.W.rows()) +
            p.state.W.col(j) * p.state.W.col(j).transpose();
        const double lmin = Eigen::SelfAdjointEigenSolver<M>(P).eigenvalues().minCoeff();
        min_lambda = std::min(min_lambda, lmin);
        // lambda_min = g_j^2 needs a direction across w_j: m >= 2 (for m = 1,
        // P_j = g_j^2 + w_j^2 is a number).
        if (p.state.W.rows() >= 2)
          max_gap = std::max(max_gap, std::abs(lmin - 1 - p.state.W.col(j).squaredNorm()) /
                                          (1 + p.state.W.col(j).squaredNorm()));
      }
  }
  std::vector<Measure> m{{"rel_err_50", worst},
                         {"min_lambda_P_on_flow", min_lambda},
                         {"max_rel_gap_lambda_vs_1_plus_w2", max_gap}};
  // Exact identity at 50 digits (1e-40: rounding of m x d products). On the
  // flow, lambda_min >= 1 up to RK4 error (1e-8: h = 0.01, t <= 6).
  const std::string regime =
      "6 random states (50 digits); 10 teachers' flows to t = 6 (RK4 h = 0.01)";
  if (worst <= 1e-40 && min_lambda >= 1 - 1e-8)
    return holds("rel err " + sci(worst),
                 regime + "; lambda_min(P) on the flow >= " + fixed(min_lambda, 6) +
                     " (= 1 + |w_j|^2 to " + sci(max_gap) + " where m >= 2)",
                 m);
  return fails(Fault::reconstruction_refuted, "rel err " + sci(worst),
               regime + ": identity off by " + sci(worst) +
                   " or lambda_min(P) = " + fixed(min_lambda, 6) + " < 1",
               m);
}

}  // namespace

void add_scalevec_gradient_flow_claims(Registrar& r) {
  r.add({.id = "scalevec.sec.2.1.setting-gradients",
         .location = "Setting 2.1 (project's reading, README 'Gaps in the copies')",
         .statement = "The gradients of L = 1/2 ||W diag(g) - W*||_F^2 and of its without / DP / "
                      "MD variants that drive the gradient flows (dynamics.hpp); the copy states "
                      "no gradient: conformance of scaleref's gradients with its losses",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 115,
         .quote = "Both objectives are optimized by gradient flow (GF): and .",
         .reading = &kSetting21Reading,
         .inputs = "W* 3x4 N(0,1) (tensor 3200); state W 3x4 0.7 N(0,1) (3201), g 1x4 1 + 0.4 "
                   "N(0,1) (3202), a 1x3 1 + 0.4 N(0,1) (3203), MD (both norms) r = 0.8 and u 1x4 "
                   "1.5 + 0.4 N(0,1) (3204)",
         .formula = "dynamics.hpp gradient() of L = 1/2 ||theta - W*||_F^2 with theta = W, W "
                    "diag(g), diag(a) W diag(g), W diag(r u / RMS(u)), W diag(r u / ||u||), "
                    "against the 50-digit "
                    "central FD of dynamics.hpp loss()",
         .threshold = "holds if the worst normwise error over the 5 models <= 1e-20 (the "
                      "verifier's 50-digit tolerance)",
         .against = "50-digit central finite differences of dynamics.hpp loss()",
         .check = setting_gradients});
  r.add({.id = "scalevec.thm.2.2",
         .location = "Theorem 2.2 (Setting 2.1), proof Appendix 8.1",
         .statement = "With the scale vector, gradient flow from W(0) = 0, g(0) = 1 descends at "
                      "least as fast: L_with(t) <= L_without(t) for every t, strictly for t > 0 "
                      "(the project's reconstruction of the stripped inequality)",
         .kind = Kind::theorem,
         .relied_on = false,
         .basis = Basis::reading,
         .quote_line = 115,
         .quote = "Consider Setting 2.1. Then, for every , .",
         .reading = &kFasterDescentReading,
         .reconstructed = true,
         .scope = Scope::reconstruction,
         .sized = true,
         .inputs = "60 teachers (300 with --thorough): m, d uniform in 1..10 (stream tensor "
                   "3700), W* entries s N(0,1), s cycling 0.1, 0.5, 1, 2, 3 (tensors 3701 + k); "
                   "t = 0.05, 0.10, ..., 8",
         .formula = "RK4 gradient flow (h = 0.01 / max(1, s)) of L = 1/2 ||W diag(g) - W*||_F^2 "
                    "from W = 0, g = 1; L_without(t) = 1/2 e^(-2t) ||W*||_F^2 (closed form); "
                    "error estimate |L_h - L_2h| / 15",
         .threshold =
             "holds if no resolved time point has L_with > L_without (resolved: |L_without "
             "- L_with| > 10 x the step-doubling errors + 1e-14 ||W*|| (sqrt(2 L_with) + "
             "sqrt(2 L_without)) + 1e-28 ||W*||^2); a violation on the shrunk teacher "
             "that persists at h / 4 fails (mathematical error), one that does not is "
             "holds approximately",
         .against =
             "RK4 integration of the with-g flow with step-doubling error (<=1.5e-8 of the loss) "
             "against the closed form L_without = 1/2 e^(-2t) ||W*||^2; 60 random teachers",
         .check = theorem_2_2});
  r.add({.id = "scalevec.sec.2.1.invariant",
         .location = "Sec. 2.1, after Theorem 2.2",
         .statement = "Gradient flow preserves g_j^2 - ||w_j||^2 (hence g_j^2 = 1 + ||w_j||^2 from "
                      "the init); for DP also a_i^2 - ||W_i:||^2 (the invariant's formula is "
                      "stripped: the project's reconstruction)",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::reading,
         .quote_line = 115,
         .quote = "Under the practical initialization above, gradient flow preserves the "
                  "invariant and hence .",
         .reading = &kSetting21Reading,
         .reconstructed = true,
         .scope = Scope::reconstruction,
         .inputs = "8 random states per model (with_g, dp): m 1..4, d 2..4, W* N(0,1), W 0.8 "
                   "N(0,1), g and a N(0,1) (tensors 3300 + 10k .. + 3), 50 digits; RK4 flow on W* "
                   "3x4 N(0,1) (tensor 3390) to t = 4 at h = 0.1 and 0.05",
         .formula = "d/dt (g_j^2 - ||W_:j||^2) = -2 g_j dL/dg_j + 2 W_:j . dL/dW_:j (DP also "
                    "a_i^2 - ||W_i:||^2), relative to the sum of its two terms' magnitudes; RK4 "
                    "drift max |g_j^2 - ||w_j||^2 - 1| along the flow from W = 0, g = 1",
         .threshold = "holds if the relative rate <= 1e-40 (50-digit rounding) and the drift "
                      "ratio between h = 0.1 and h = 0.05 is in 12..20 (RK4's h^4)",
         .against = "the hand gradients (themselves matched to 50-digit FD of the loss in "
                    "setting-gradients) in 50 digits, and the RK4 drift of the invariant falling "
                    "as h^4 (ratio 16.8)",
         .check = invariant});
  r.add({.id = "scalevec.sec.2.1.preconditioner",
         .location = "Sec. 2.1, after Theorem 2.2",
         .statement = "The effective parameter theta = W diag(g) follows d theta_j/dt = -(g_j^2 I "
                      "+ w_j w_j^T) m_j, a self-amplifying preconditioner whose smallest "
                      "eigenvalue g_j^2 = 1 + ||w_j||^2 >= 1 along the flow (the formulas are "
                      "stripped: the project's reconstruction)",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::reading,
         .quote_line = 115,
         .quote = "Thus, the scale vector induces the state-dependent preconditioner .",
         .reading = &kSetting21Reading,
         .reconstructed = true,
         .scope = Scope::reconstruction,
         .inputs = "6 random with_g states: m 1..3, d 1..4, W* N(0,1), W 0.8 N(0,1), g N(0,1) "
                   "(tensors 3400 + 10k .. + 2), 50 digits; 10 teachers (tensor base 3450) "
                   "integrated by RK4 h = 0.01, sampled at t = 0.5, 1, ..., 6",
         .formula = "d theta_j/dt = -(g_j dL/dW_:j + W_:j dL/dg_j) against -(g_j^2 I + w_j "
                    "w_j^T) m_j with m = W diag(g) - W*; on the flow lambda_min(g_j^2 I + w_j "
                    "w_j^T) (Eigen, double), and its gap to 1 + ||w_j||^2 where m >= 2 (reported)",
         .threshold = "holds if the identity's relative error <= 1e-40 (50-digit rounding) and "
                      "lambda_min(P_j) >= 1 - 1e-8 (RK4 error) at every sampled flow state",
         .against = "the hand gradients (matched to 50-digit FD of the loss) for d theta_j/dt, and "
                    "Eigen eigenvalues of P_j on RK4 flows of 10 teachers",
         .check = preconditioner});
}

}  // namespace scaleref::audit
