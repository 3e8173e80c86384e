// scalevec Sec. 2.2, weight decay for scale vectors: Theorem 2.3 (scalar
// output, SGD as an SDE, weight decay on w; lambda_g = 0 vs lambda_g > 0), by
// simulation: one sample path per seed (stochastic: the runner repeats it).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claims/scalevec/readings.hpp"
#include "claims/scalevec/scalevec.hpp"

namespace scaleref::audit {
namespace {

using namespace scalevec_claims;

// Theorem 2.3 by simulation: the SDE (Euler-Maruyama, step dt well inside
// the stability range, checked by halving it) and discrete minibatch SGD,
// weight decay lambda_W on w; lambda_g = 0 vs lambda_g = lambda_W.
Verdict theorem_2_3(const Context& ctx) {
  M w_star(1, 4);
  w_star << 1.0, -2.0, 0.5, 1.5;
  const double eta = 0.05, lambda = 0.05, dt = 0.005;
  const double T = ctx.thorough ? 8000 : 2000;  // SDE time (= eta x SGD steps)
  struct Run {
    double growth_free, growth_decay, end_free, end_decay, max_decay_late;
  };
  // growth = ||g|| at the end / ||g|| at the half-way record.
  auto summarize = [](const dyn::SgdTrace<double>& free, const dyn::SgdTrace<double>& dec) {
    const std::size_t n = free.g_norm.size(), half = n / 2;
    Run r{};
    r.growth_free = free.g_norm.back() / free.g_norm[half];
    r.growth_decay = dec.g_norm.back() / dec.g_norm[half];
    r.end_free = free.g_norm.back();
    r.end_decay = dec.g_norm.back();
    r.max_decay_late = *std::max_element(dec.g_norm.begin() + half, dec.g_norm.end());
    return r;
  };
  auto sde = [&](double lambda_g, double step) {
    dyn::SdeConfig<double> e;
    e.eta = eta;
    e.batch = 8;
    e.lambda_W = lambda;
    e.lambda_g = lambda_g;
    e.dt = step;
    e.steps = static_cast<std::uint64_t>(std::llround(T / step));
    e.record_every = e.steps / 20;
    e.seed = ctx.seed;
    e.tensor = 3601;
    return dyn::sde(w_star, e);
  };
  ctx.progress("SDE");
  const auto sde_free = sde(0, dt), sde_dec = sde(lambda, dt), sde_free_2dt = sde(0, 2 * dt);
  ctx.progress("SGD");
  dyn::SgdConfig<double> c;
  c.eta = eta;
  c.batch = 8;
  c.lambda_W = lambda;
  c.steps = static_cast<std::uint64_t>(std::llround(T / eta));
  c.record_every = c.steps / 20;
  c.seed = ctx.seed;
  c.tensor = 3600;
  c.lambda_g = 0;
  const auto sgd_free = dyn::sgd(w_star, c);
  c.lambda_g = lambda;
  const auto sgd_dec = dyn::sgd(w_star, c);
  const Run a = summarize(sgd_free, sgd_dec), b = summarize(sde_free, sde_dec);
  // Balance point of the decayed flow: lambda_W w_j^2 = lambda_g g_j^2 with
  // w_j g_j = w*_j gives |g_j| = sqrt(|w*_j|).
  const double balance = w_star.cwiseAbs().cwiseSqrt().norm();
  // Sharpness proxy at the end: tr(H) at the minimum manifold = ||g||^2 + ||w||^2.
  const double tr_free = sde_free.g.squaredNorm() + sde_free.w.squaredNorm();
  const double tr_dec = sde_dec.g.squaredNorm() + sde_dec.w.squaredNorm();
  // Faithfulness of Euler-Maruyama: dt max_j (g_j^2 + w_j^2) (the drift's
  // stiffness) well below 2, and the end value unchanged by doubling dt.
  const double stiff = dt * (sde_free.g.cwiseAbs2() + sde_free.w.cwiseAbs2()).maxCoeff();
  const double dt_change = std::abs(sde_free_2dt.g_norm.back() / sde_free.g_norm.back() - 1);
  std::vector<Measure> m{{"sde_growth_second_half_free", b.growth_free},
                         {"sde_growth_second_half_decay", b.growth_decay},
                         {"sde_g_norm_end_free", b.end_free},
                         {"sde_g_norm_end_decay", b.end_decay},
                         {"sde_dt_times_max_curvature", stiff},
                         {"sde_rel_change_doubling_dt", dt_change},
                         {"sgd_growth_second_half_free", a.growth_free},
                         {"sgd_growth_second_half_decay", a.growth_decay},
                         {"sgd_g_norm_end_free", a.end_free},
                         {"sgd_g_norm_end_decay", a.end_decay},
                         {"balance_g_norm", balance},
                         {"sde_trace_H_end_free", tr_free},
                         {"sde_trace_H_end_decay", tr_dec},
                         {"sde_time", T}};
  // Bounded: with decay on g, ||g|| grows by < 5% over the second half and
  // stays within 2x the balance point. Unbounded (as far as a finite run can
  // show): without it ||g|| still grows by > 10% over the second half (the
  // heuristic g^4 ~ 4 lambda_W w*^2 t gives 2^(1/4) = 1.19) and ends above
  // the decayed run's. The SDE must be resolved: dt x curvature < 0.5 and
  // doubling dt moves the end value by < 2%.
  const bool resolved = stiff < 0.5 && dt_change < 0.02;
  const bool split = b.growth_decay < 1.05 && b.max_decay_late < 2 * balance &&
                     b.growth_free > 1.10 && b.end_free > b.end_decay;
  const std::string regime =
      "SIMULATION, not a proof: w* = (1, -2, 0.5, 1.5), SDE of SGD with eta " + fixed(eta, 2) +
      ", B 8, lambda_W " + fixed(lambda, 2) + ", lambda_g 0 vs " + fixed(lambda, 2) +
      ", t = " + fixed(T, 0) + ", Euler-Maruyama dt " + fixed(dt, 3);
  // Discrete SGD is not the SDE: with eta x curvature near 2 its steps stop
  // resolving the flow and ||g|| can level off (a finite-step effect).
  const double sgd_stiff = eta * (sgd_free.g.cwiseAbs2() + sgd_free.w.cwiseAbs2()).maxCoeff();
  m.push_back({"sgd_eta_times_max_curvature", sgd_stiff});
  const std::string sgd_note =
      "; discrete SGD (eta " + fixed(eta, 2) + ", eta x curvature " + fixed(sgd_stiff, 2) +
      " at the end): ||g|| x" + fixed(a.growth_free, 3) + " vs x" + fixed(a.growth_decay, 3) +
      " over the second half, ends " + fixed(a.end_free, 2) + " vs " + fixed(a.end_decay, 2);
  const std::string fig =
      "||g|| x" + fixed(b.growth_free, 2) + " vs x" + fixed(b.growth_decay, 3) + " (2nd half, SDE)";
  if (resolved && split)
    return holds_approximately(
        fig,
        regime + "; with lambda_g > 0 ||g|| ends at " + fixed(b.end_decay, 3) + " (balance " +
            fixed(balance, 3) + "), without it " + fixed(b.end_free, 3) +
            " and still growing; tr H " + fixed(tr_free, 2) + " vs " + fixed(tr_dec, 2) + sgd_note,
        m);
  // An unresolved SDE decides nothing: the check's own integration error is
  // above what it measures.
  if (!resolved)
    return inconclusive(fig,
                        regime + "; the SDE is not resolved at this dt (dt x curvature " +
                            fixed(stiff, 2) + ", doubling dt moves ||g|| by " + sci(dt_change) +
                            ")" + sgd_note,
                        m);
  return fails(Fault::math_error, fig,
               regime + "; the simulation does not show the split" + sgd_note, m);
}

}  // namespace

void add_scalevec_weight_decay_claims(Registrar& r) {
  r.add({.id = "scalevec.thm.2.3",
         .location = "Theorem 2.3 (Sec. 2.2), Appendix 8.2.1",
         .statement = "Scalar output, SGD (as an SDE) with weight decay on W: with weight decay on "
                      "g, ||g|| stays bounded; without it, ||g|| grows without bound (the "
                      "theorem's symbols are stripped: the project's reading; checked by "
                      "simulation, one sample path per seed)",
         .kind = Kind::theorem,
         .relied_on = false,
         .basis = Basis::reading,
         .quote_line = 119,
         .quote = "If , then remains uniformly bounded over time. Consequently, key Hessian "
                  "sharpness metrics, including , , and , also remain bounded. • If , then "
                  "becomes unbounded along the trajectory.",
         .reading = &kTheorem23Reading,
         .stochastic = true,
         .sized = true,
         .inputs = "w* = (1, -2, 0.5, 1.5); eta 0.05, batch 8, lambda_W 0.05, lambda_g 0 vs 0.05; "
                   "SDE time T = 2000 (8000 with --thorough), Euler-Maruyama dt 0.005 (and 0.01 "
                   "for the free run); discrete SGD T / eta steps; noise from the run's seed, "
                   "tensors 3601 (SDE) and 3600 (SGD); ||g|| recorded 20 times",
         .formula = "dynamics.hpp sde() and sgd() on f(x) = w^T diag(g) x; growth = ||g||(T) / "
                    "||g||(T/2); balance ||g|| = ||sqrt|w*|||; stiffness dt max_j (g_j^2 + "
                    "w_j^2); tr H at the end = ||g||^2 + ||w||^2",
         .threshold = "holds approximately if the SDE is resolved (dt x stiffness < 0.5 and "
                      "doubling dt moves the free run's end ||g|| by < 2%) and the runs split "
                      "(decayed: growth < 1.05 and late max < 2 x balance; free: growth > 1.10 "
                      "and ends above the decayed run); inconclusive if not resolved; fails "
                      "(mathematical error) if resolved without the split",
         .against = "Euler-Maruyama simulation of the SGD SDE (dt-doubling check, dt x curvature < "
                    "0.5) plus discrete minibatch SGD, one path per seed on 3 seeds",
         .check = theorem_2_3});
}

}  // namespace scaleref::audit
