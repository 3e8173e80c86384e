// smallinit Sec. 4, Method: gamma-init's "standard scale" at gamma = 1/2 (Sec.
// 4.2), the stable rank (eq. 7, Sec. 4.7) and the symmetric probability gap
// (Sec. 4.7).
#include <algorithm>
#include <cmath>
#include <scaleref/metrics/tokens.hpp>
#include <scaleref/metrics/weights.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "claims/smallinit/readings.hpp"
#include "claims/smallinit/smallinit.hpp"

namespace scaleref::audit {
namespace {

using namespace smallinit_claims;

// ---- Sec. 4.2: gamma = 1/2 is the standard scale ---------------------------------

Verdict gamma_half_is_xavier(const Context&) {
  // "gamma = 1/2 ... Var(W_ij) = d_in^-1, which corresponds to the conventional
  // Xavier-like scaling", read (kXavierReading) as the same rate in the width
  // as Xavier's variance 2 / (d_in + d_out). For the LM's shapes at a fixed
  // aspect ratio (square maps, and the FFN's 4d x d and d x 4d), over d =
  // 256..4096: the variance d_in^(-2 gamma) at gamma = 1/2 (against d_in^-1,
  // the paper's arithmetic), its ratio to Xavier's and that ratio's spread over
  // d, and the log-log slopes of both variances in d.
  const double gamma = 0.5;
  const std::vector<double> ds{256, 512, 1024, 2048, 4096};
  double arithmetic = 0;  // |d_in^(-2 gamma) - 1 / d_in| * d_in
  double worst = 1;       // the ratio farthest from 1, as max(r, 1/r)
  double spread = 0;      // max over shapes of the ratio's relative spread over d
  double slope_gap = 0;   // max over shapes of |slope(gamma-init) - slope(Xavier)|
  std::vector<Measure> m;
  std::string ratios;
  for (auto [out_mult, in_mult, name] :
       {std::tuple{1.0, 1.0, "square"}, std::tuple{4.0, 1.0, "up/gate"},
        std::tuple{1.0, 4.0, "down"}}) {
    std::vector<double> x, v_gamma, v_xavier;
    double r_min = 1e300, r_max = 0;
    for (double d : ds) {
      const double d_out = out_mult * d, d_in = in_mult * d;
      const double vg = std::pow(d_in, -2 * gamma), vx = 2 / (d_in + d_out);
      arithmetic = std::max(arithmetic, std::abs(vg - 1 / d_in) * d_in);
      x.push_back(d);
      v_gamma.push_back(vg);
      v_xavier.push_back(vx);
      r_min = std::min(r_min, vg / vx);
      r_max = std::max(r_max, vg / vx);
    }
    const double sg = loglog_fit(x, v_gamma).slope, sx = loglog_fit(x, v_xavier).slope;
    slope_gap = std::max(slope_gap, std::abs(sg - sx));
    spread = std::max(spread, (r_max - r_min) / r_min);
    worst = std::max(worst, std::max(r_max, 1 / r_min));
    const std::string tag = std::string(name) == "up/gate" ? "up_gate" : name;
    m.push_back({"ratio_" + tag, r_max});
    m.push_back({"slope_gamma_half_" + tag, sg});
    m.push_back({"slope_xavier_" + tag, sx});
    ratios += (ratios.empty() ? "" : ", ") + std::string(name) + " " + fixed(r_max, 3);
  }
  m.push_back({"max_ratio", worst});
  m.push_back({"ratio_spread_over_d", spread});
  m.push_back({"max_slope_gap", slope_gap});
  m.push_back({"arithmetic_rel_err", arithmetic});
  // The arithmetic and the slopes are double-precision evaluations of exact
  // expressions: 1e-12 is ~1e4 ulps.
  const std::string regime =
      "d = 256..4096, variance d_in^(-2 gamma) at gamma = 1/2 vs Xavier's "
      "2 / (d_in + d_out); ratio " +
      ratios + "; log-log slopes equal to " + sci(slope_gap) + ", ratio constant in d to " +
      sci(spread);
  const std::string fig = "max ratio " + fixed(worst, 2);
  if (arithmetic > 1e-12)
    return fails(Fault::math_error, "err " + sci(arithmetic),
                 "d_in^(-2 gamma) at gamma = 1/2 is not d_in^-1", m);
  if (slope_gap > 1e-12 || spread > 1e-12)
    return fails(Fault::math_error, fig, regime + ": not the same rate in d as Xavier's", m);
  if (worst - 1 <= 1e-12)
    return holds(fig, regime + ": equal to Xavier's variance for every shape", m);
  return holds_approximately(
      fig,
      regime +
          ": the same d^-1 rate as Xavier's; equal for square maps, a constant factor (d_in + "
          "d_out) / (2 d_in) away otherwise (d_in^-1 is LeCun's fan-in variance)",
      m);
}

// ---- eq. 7: stable rank ----------------------------------------------------------------

Verdict stable_rank_identity(const Context& ctx) {
  // ||W||_F^2 / ||W||_2^2 = sum_i sigma_i^2 / sigma_max^2 (eq. 7), in 50
  // digits by an SVD: exact means agreement to 1e-40 (the SVD's accuracy in
  // 50 digits, ~1e-48 times the condition of these small matrices). The sum
  // runs over the min(m, n) singular values; the paper writes i = 1..d.
  // Also the power-iteration estimate (metrics::stable_rank, double) against it.
  double worst50 = 0, worst_power = 0;
  for (auto [rows, cols] : {std::pair{6L, 4L}, {5L, 8L}, {7L, 7L}}) {
    const Mat<Real50> w =
        gaussian<Real50>(ctx.seed, rows, cols, 1.0, 150 + static_cast<std::uint32_t>(rows));
    Eigen::JacobiSVD<Eigen::Matrix<Real50, Eigen::Dynamic, Eigen::Dynamic>> svd(w);
    const auto sv = svd.singularValues();
    const Real50 lhs = w.squaredNorm() / (sv(0) * sv(0));
    const Real50 rhs = sv.squaredNorm() / (sv(0) * sv(0));
    worst50 = std::max(worst50, static_cast<double>(abs(lhs - rhs) / rhs));
    metrics::PowerOptions<double> o;
    o.tol = 1e-14;
    const double power = metrics::stable_rank(w.cast<double>().eval(), o).value;
    worst_power = std::max(worst_power,
                           std::abs(power - static_cast<double>(rhs)) / static_cast<double>(rhs));
  }
  std::vector<Measure> m{{"rel_err_50", worst50}, {"power_iteration_rel_err", worst_power}};
  const std::string detail =
      "6x4, 5x8, 7x7 Gaussian W, SVD in 50 digits (the sum runs over min(m, n) "
      "singular values); power iteration in double to " +
      sci(worst_power);
  if (worst50 <= 1e-40) return holds("rel err " + sci(worst50), detail, m);
  return fails(Fault::math_error, "rel err " + sci(worst50), detail, m);
}

// ---- Sec. 4.7: the symmetric probability gap -------------------------------------

Verdict sym_gap(const Context& ctx) {
  // Delta^sym p = 2 (p_s - p_t) / (p_s + p_t) is "positive when the small-init
  // model assigns a higher probability": with l = -log p it equals
  // -2 tanh((l_s - l_t) / 2), a monotone function of the loss difference
  // bounded in (-2, 2). Checked on probabilities spread over 1e-30..1 in 50
  // digits against metrics::sym_prob_gap; exact means 1e-45.
  const int n = 64;
  Mat<Real50> ps(n, 1), pt(n, 1);
  const Mat<double> z = gaussian(ctx.seed, 2, n, 1.0, 160);
  for (int j = 0; j < n; ++j) {
    ps(j, 0) = exp(Real50(-std::abs(z(0, j)) * 20));
    pt(j, 0) = exp(Real50(-std::abs(z(1, j)) * 20));
  }
  const Mat<Real50> gap = metrics::sym_prob_gap(ps, pt);
  double worst = 0;
  bool sign_ok = true, bounded = true;
  for (int j = 0; j < n; ++j) {
    const Real50 dl = -log(ps(j, 0)) + log(pt(j, 0));
    const Real50 closed = -2 * tanh(dl / 2);
    worst = std::max(worst, static_cast<double>(abs(gap(j, 0) - closed)));
    sign_ok = sign_ok && ((gap(j, 0) > 0) == (ps(j, 0) > pt(j, 0)));
    bounded = bounded && abs(gap(j, 0)) < 2;
  }
  std::vector<Measure> m{{"abs_err_50", worst},
                         {"sign_matches", sign_ok ? 1.0 : 0.0},
                         {"bounded", bounded ? 1.0 : 0.0}};
  const std::string detail =
      "64 pairs, p in 1e-30..1: Delta^sym p = -2 tanh(Delta l / 2), in (-2, 2)";
  if (worst <= 1e-45 && sign_ok && bounded) return holds("abs err " + sci(worst), detail, m);
  return fails(Fault::math_error, "abs err " + sci(worst), detail, m);
}

}  // namespace

void add_smallinit_method_claims(Registrar& r) {
  r.add(
      {.id = "smallinit.sec.4.2-gamma-half",
       .location = "Sec. 4.2",
       .statement = "gamma = 1/2 recovers the standard (Xavier-like) initialization scale: "
                    "Var(W_ij) = d_in^-1",
       .kind = Kind::numeric,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 138,
       .quote =
           R"q(In particular, whenγ=12\\gamma=\\frac\{1\}\{2\}, the variance becomesVar\(𝑾i,j\)=din−1\\mathrm\{Var\}\(\\bm\{W\}\_\{i,j\}\)=d\_\{\\mathrm\{in\}\}^\{\-1\}, which corresponds to the conventional Xavier\-like scaling\.)q",
       .reading = &kXavierReading,
       .inputs = "shapes d_out x d_in = d x d, 4d x d (up/gate), d x 4d (down) for d = 256, 512, "
                 "1024, 2048, 4096 (no sampling)",
       .formula = "gamma-init variance d_in^(-2 gamma) at gamma = 1/2 against d_in^-1 and "
                  "against Xavier's 2 / (d_in + d_out): ratio per shape and its spread over d; "
                  "least-squares log-log slopes of both variances in d",
       .threshold = "fails if d_in^(-2 gamma) != d_in^-1 (> 1e-12 relative) or the slopes "
                    "differ or the ratio varies with d (> 1e-12); holds if the ratio is 1 for "
                    "every shape (to 1e-12); holds approximately if only a shape-dependent "
                    "constant ratio separates them",
       .against = "Glorot-Xavier variance 2 / (d_in + d_out) evaluated for the LM's shapes (d x d, "
                  "4d x d, d x 4d; d = 256..4096)",
       .check = gamma_half_is_xavier});
  r.add({.id = "smallinit.eq.7",
         .location = "eq. 7, Sec. 4.7",
         .statement = "StableRank(W) = ||W||_F^2 / ||W||_2^2 = sum_i sigma_i^2 / sigma_max^2: an "
                      "identity of the definitions, checked with scaleref's SVD and power "
                      "iteration (conformance: it cannot come out otherwise)",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 213,
         .quote = R"q(StableRank\(𝑾\)=‖𝑾‖F2‖𝑾‖22=∑i=1dσi2σmax2,)q",
         .reading = &kStableRankIndexReading,
         .inputs = "Gaussian W 6x4, 5x8, 7x7 N(0,1) (tensors 156, 155, 157), 50 digits",
         .formula = "||W||_F^2 / sigma_max^2 against sum_i sigma_i^2 / sigma_max^2 over the "
                    "min(m, n) singular values of a 50-digit JacobiSVD; metrics::stable_rank "
                    "(power iteration, tol 1e-14, double) against the same",
         .threshold = "holds if the 50-digit relative difference <= 1e-40, fails otherwise; the "
                      "power iteration's error is reported",
         .against = "50-digit JacobiSVD singular values against the entrywise Frobenius norm; "
                    "power iteration in double against the same",
         .check = stable_rank_identity});
  r.add(
      {.id = "smallinit.sec.4.7-sym-gap",
       .location = "Sec. 4.7",
       .statement = "the symmetric gap Delta^sym p is positive exactly when the small-init model "
                    "assigns the higher probability (it equals -2 tanh(Delta l / 2))",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::paper,
       .quote_line = 197,
       .quote =
           R"q(It is positive when the small\-initialization model assigns a higher probability to the ground\-truth token,)q",
       .inputs = "64 pairs p_small, p_std = exp(-20 |z|), z N(0,1) 2x64 (tensor 160): p in "
                 "1e-30..1, 50 digits",
       .formula = "metrics::sym_prob_gap = 2 (p_s - p_t) / (p_s + p_t) against -2 tanh((l_s - "
                  "l_t) / 2), l = -log p; its sign against that of p_s - p_t; |gap| < 2",
       .threshold = "holds if the absolute difference <= 1e-45, every sign matches and every "
                    "|gap| < 2; fails otherwise",
       .against = "50-digit identity -2 tanh(Delta l / 2) (an algebraic rewrite of the definition) "
                  "and the sign of p_s - p_t",
       .trivial = "2 (p_s - p_t) / (p_s + p_t) has the sign of p_s - p_t because p_s + p_t > 0: "
                  "true by the paper's definition",
       .check = sym_gap});
}

}  // namespace scaleref::audit
