// The smallinit paper's claims ("Small Initialization Matters for LLMs"):
// the RMSNorm eps saturation of Sec. 2.1 ("Adjusting the RMSNorm constant"), the scale analysis of
// Appendix A, gamma-init's "standard scale" (Sec. 4.2), the stable-rank identity (eq. 7) and the
// symmetric probability gap (Sec. 4.7).
//
// Setting of Appendix A, as the paper writes it: entries of the embedding e
// and of every d x d weight matrix are N(0, d^(-2 gamma)); a pre-norm block is
// F(h) = W_2 phi(W_1 RMSNorm(h)) with RMSNorm(h) = h / RMS(h) (no eps, no
// gain) and phi an activation contributing an O(1) factor (SiLU here, the
// FFN's activation in scaleref's LM).
#include <cmath>
#include <scaleref/audit/registry.hpp>
#include <scaleref/eigen_dense.hpp>
#include <scaleref/metrics/activations.hpp>
#include <scaleref/metrics/tokens.hpp>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/norm/activation.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <string>
#include <vector>

#include "support.hpp"

namespace scaleref::audit {
namespace {

constexpr long kD = 2048;  // the paper's d in Sec. 2.1 and Fig. 1c

// sigma^2(h) = d^(-2 gamma) (Sec. 2.1).
double sigma2(double d, double gamma) { return std::pow(d, -2 * gamma); }

// The RMSNorm factor (sigma^2 + eps)^(-1/2) relative to the eps-free sigma^-1:
// 1 - sigma / sqrt(sigma^2 + eps), the share by which eps shrinks the factor.
double departure(double s2, double eps) { return 1 - std::sqrt(s2 / (s2 + eps)); }

// The gamma at which eps shrinks the factor by the share delta, at width d:
// sigma^2 / (sigma^2 + eps) = (1 - delta)^2  <=>  sigma^2 = eps / ((1 - delta)^-2 - 1).
double gamma_at_departure(double d, double eps, double delta) {
  const double s2 = eps / (1 / ((1 - delta) * (1 - delta)) - 1);
  return -std::log(s2) / (2 * std::log(d));
}

// RMSNorm without gain, by the reference module: h / sqrt(mean(h^2) + eps).
Mat<double> rms_normalize(const Mat<double>& h, double eps) {
  const auto p = norm::rmsnorm::init<double>(h.cols());
  return norm::rmsnorm::forward(p, norm::rmsnorm::Config{eps}, h);
}

// Residual flow ||h_L - e|| / ||e|| of an L-layer pre-norm stack
// h_{l+1} = h_l + W2_l silu(W1_l RMSNorm(h_l)) at width d, on `rows` tokens,
// every entry N(0, d^(-2 gamma)); the Frobenius norm over the tokens.
double residual_flow(long d, double gamma, int layers, long rows, double eps,
                     std::uint32_t tensor) {
  const double std = std::pow(static_cast<double>(d), -gamma);
  const Mat<double> e = gaussian(rows, d, std, tensor);
  Mat<double> h = e;
  for (int l = 0; l < layers; ++l) {
    const Mat<double> w1 = gaussian(d, d, std, tensor + 1 + 2 * l);
    const Mat<double> w2 = gaussian(d, d, std, tensor + 2 + 2 * l);
    const Mat<double> u = matmul<double>(rms_normalize(h, eps), w1.transpose());
    const Mat<double> a = u.unaryExpr([](double z) { return z / (1 + std::exp(-z)); });
    h += matmul<double>(a, w2.transpose());
  }
  return metrics::residual_flow_ratio(h, e, metrics::TokenReduction::ratio_of_norms);
}

Claim make(std::string id, std::string location, std::string statement, Kind kind,
           std::function<Verdict(const Context&)> check, bool relied_on = false) {
  return Claim{std::move(id), "smallinit", std::move(location), std::move(statement),
               kind,          relied_on,   std::move(check)};
}

// ---- Sec. 2.1 -----------------------------------------------------------------------

Verdict sigma2_values(const Context&) {
  // The paper's figures, as printed, against d^(-2 gamma) at d = 2048, and a
  // sampled h against the formula: mean(h^2) of d Gaussian entries has relative
  // standard error sqrt(2 / d) (3.1% at d = 2048); accepted within 5 of them.
  const double exact_half = sigma2(kD, 0.5), exact_one = sigma2(kD, 1.0);
  const double paper_half = 4.8e-4, paper_one = 2.4e-7;
  const double err_half = std::abs(paper_half - exact_half) / exact_half;
  const double err_one = std::abs(paper_one - exact_one) / exact_one;
  double worst_z = 0;
  for (double gamma : {0.5, 1.0}) {
    const Mat<double> h = gaussian(1, kD, std::sqrt(sigma2(kD, gamma)), 100);
    const double mean_sq = h.squaredNorm() / kD;
    const double se = std::sqrt(2.0 / kD) * sigma2(kD, gamma);
    worst_z = std::max(worst_z, std::abs(mean_sq - sigma2(kD, gamma)) / se);
  }
  std::vector<Measure> m{{"exact_gamma_0.5", exact_half}, {"exact_gamma_1", exact_one},
                         {"paper_gamma_0.5", paper_half}, {"paper_gamma_1", paper_one},
                         {"rel_err_gamma_0.5", err_half}, {"rel_err_gamma_1", err_one},
                         {"sampled_worst_z", worst_z}};
  if (worst_z > 5)
    return fails("z " + fixed(worst_z, 1),
                 "a sampled h's mean square is not d^(-2 gamma): " + fixed(worst_z, 1) + " SE", m);
  // Two significant digits, correctly rounded, are within half a unit of the
  // second digit: 4.88e-4 rounds to 4.9e-4, so 4.8e-4 is truncated.
  const bool rounded = err_half <= 0.05 / 4.8 && err_one <= 0.05 / 2.4;
  const std::string detail = "d^(-2 gamma) at d = 2048 is " + sci(exact_half, 4) +
                             " (gamma 0.5), " + sci(exact_one, 4) +
                             " (gamma 1); the paper prints 4.8e-4 and 2.4e-7";
  if (rounded) return holds("rel err " + sci(std::max(err_half, err_one)), detail, m);
  return holds_approximately("rel err " + sci(std::max(err_half, err_one)),
                             detail + " (4.88e-4 truncated, not rounded, to 4.8e-4)", m);
}

Verdict eps_saturation(const Context&) {
  // eps = 1e-5 "saturates the factor for gamma > 0.6". The paper's own
  // criterion, a line above: the factor is governed by eps once
  // sigma^2(h) <~ eps, i.e. from gamma* = ln(1/eps) / (2 ln d). The claim
  // holds if gamma* <= 0.6 + 0.05 (the precision of a one-decimal threshold).
  const double eps = 1e-5;
  const double g_star = std::log(1 / eps) / (2 * std::log(static_cast<double>(kD)));
  const double g1 = gamma_at_departure(kD, eps, 0.01), g10 = gamma_at_departure(kD, eps, 0.10),
               g50 = gamma_at_departure(kD, eps, 0.50);
  const double at_06 = departure(sigma2(kD, 0.6), eps);
  // The formula against the reference RMSNorm on a sampled h at gamma = 0.6:
  // the factor's ratio with and without eps, measured (relative error of the
  // closed form, a few ulps).
  const Mat<double> h = gaussian(1, kD, std::pow(static_cast<double>(kD), -0.6), 101);
  const double measured = 1 - rms_normalize(h, eps).norm() / rms_normalize(h, 0.0).norm();
  const double s2 = h.squaredNorm() / kD;
  const double formula_err = std::abs(measured - departure(s2, eps)) / departure(s2, eps);
  std::vector<Measure> m{{"gamma_sigma2_eq_eps", g_star},
                         {"gamma_1pct", g1},
                         {"gamma_10pct", g10},
                         {"gamma_50pct", g50},
                         {"departure_at_gamma_0.6", at_06},
                         {"rmsnorm_vs_formula_rel_err", formula_err}};
  if (formula_err > 1e-10)
    return fails("err " + sci(formula_err), "the factor formula disagrees with RMSNorm", m);
  const std::string detail =
      "d = 2048, eps = 1e-5: sigma^2 = eps at gamma = " + fixed(g_star, 3) +
      "; eps shrinks the factor by 1% / 10% / 50% at gamma = " + fixed(g1, 3) + " / " +
      fixed(g10, 3) + " / " + fixed(g50, 3) + "; at gamma = 0.6 by " + fixed(100 * at_06, 1) + "%";
  if (g_star <= 0.65) return holds("gamma* " + fixed(g_star, 3), detail, m);
  return fails(
      "gamma* " + fixed(g_star, 3),
      detail + ": by the paper's sigma^2 <~ eps the threshold is " + fixed(g_star, 2) + ", not 0.6",
      m);
}

Verdict eps_wide_range(const Context&) {
  // "eps = 1e-12 keeps it sensitive to gamma over a far wider range": the
  // gamma up to which eps changes the factor by less than 1%, for 1e-12 vs 1e-5.
  const double wide = gamma_at_departure(kD, 1e-12, 0.01);
  const double narrow = gamma_at_departure(kD, 1e-5, 0.01);
  std::vector<Measure> m{{"gamma_1pct_eps_1e-12", wide}, {"gamma_1pct_eps_1e-5", narrow}};
  const std::string detail =
      "d = 2048: the factor is within 1% of sigma^-1 up to gamma = " + fixed(wide, 3) +
      " with eps = 1e-12, " + fixed(narrow, 3) + " with eps = 1e-5";
  if (wide > narrow) return holds("gamma " + fixed(wide, 2) + " vs " + fixed(narrow, 2), detail, m);
  return fails("gamma " + fixed(wide, 2) + " vs " + fixed(narrow, 2), detail, m);
}

// ---- Appendix A ---------------------------------------------------------------------

std::vector<long> widths(const Context& ctx) {
  if (ctx.thorough) return {64, 128, 256, 512, 1024, 2048};
  return {64, 128, 256, 512};
}

Verdict embedding_norm(const Context& ctx) {
  // ||e||_2 = Theta(d^(1/2 - gamma)) for e_i ~ N(0, d^(-2 gamma)): fitted
  // exponent over d against 1/2 - gamma. A sampled norm has relative spread
  // ~1/sqrt(2 d), so the slope is accepted within 0.05.
  double worst = 0;
  std::vector<Measure> m;
  for (double gamma : {0.5, 1.0, 1.5}) {
    std::vector<double> x, y;
    for (long d : widths(ctx)) {
      x.push_back(d);
      y.push_back(gaussian(1, d, std::pow(static_cast<double>(d), -gamma), 110).norm());
    }
    const Fit f = loglog_fit(x, y);
    worst = std::max(worst, std::abs(f.slope - (0.5 - gamma)));
    m.push_back({"slope_gamma_" + fixed(gamma, 2), f.slope});
  }
  m.push_back({"worst_slope_err", worst});
  const std::string detail =
      "gamma in {0.5, 1, 1.5}, d = 64.." + std::to_string(widths(ctx).back());
  if (worst <= 0.05) return holds_approximately("slope err " + sci(worst), detail, m);
  return fails("slope err " + sci(worst), detail, m);
}

Verdict rmsnorm_norm(const Context& ctx) {
  // ||RMSNorm(e)||_2 = Theta(d^(1/2)): without eps it is exactly sqrt(d)
  // (||e / RMS(e)||^2 = d mean(e^2) / mean(e^2)); checked to 1e-13 (a few
  // ulps per entry summed over d). With the eps = 1e-5 of the paper's own
  // models the fitted exponent at gamma = 1 is measured too.
  double worst = 0;
  for (long d : widths(ctx))
    for (double gamma : {0.5, 1.0})
      worst = std::max(
          worst,
          std::abs(
              rms_normalize(gaussian(4, d, std::pow(double(d), -gamma), 120), 0.0).row(0).norm() /
                  std::sqrt(double(d)) -
              1));
  std::vector<double> x, y;
  for (long d : widths(ctx)) {
    x.push_back(d);
    y.push_back(rms_normalize(gaussian(1, d, 1.0 / d, 121), 1e-5).norm());
  }
  const Fit f = loglog_fit(x, y);
  std::vector<Measure> m{{"worst_rel_err_eps0", worst}, {"slope_eps_1e-5_gamma_1", f.slope}};
  const std::string detail =
      "eps = 0: ||RMSNorm(e)|| = sqrt(d) exactly; with eps = 1e-5 at gamma = 1 "
      "the norm scales as d^" +
      fixed(f.slope, 2) + ", not d^0.5 (Appendix A drops eps)";
  if (worst <= 1e-13) return holds("rel err " + sci(worst), detail, m);
  return fails("rel err " + sci(worst), detail, m);
}

Verdict spectral_norm_scale(const Context& ctx) {
  // ||W||_2 = Theta(d^(1/2 - gamma)) for a d x d W with N(0, d^(-2 gamma))
  // entries: the fitted exponent against 1/2 - gamma (accepted within 0.05:
  // the largest singular value of a Gaussian matrix is 2 sigma sqrt(d) (1 +
  // O(d^(-2/3))), whose correction moves the slope by ~0.02 over these d),
  // and the constant ||W||_2 / d^(1/2 - gamma) at the largest d against 2.
  double worst = 0, constant = 0;
  std::vector<Measure> m;
  for (double gamma : {0.5, 1.0}) {
    std::vector<double> x, y;
    for (long d : widths(ctx)) {
      ctx.progress("gamma " + fixed(gamma, 1) + ", d = " + std::to_string(d));
      const Mat<double> w = gaussian(d, d, std::pow(double(d), -gamma), 130);
      metrics::PowerOptions<double> o;
      o.tol = 1e-6;  // a 1e-6 residual moves log ||W|| by < 1e-6: far below the 0.05 slope test
      const auto sn = metrics::spectral_norm(w, o);
      x.push_back(d);
      y.push_back(sn.value);
      constant = sn.value / std::pow(double(d), 0.5 - gamma);
    }
    const Fit f = loglog_fit(x, y);
    worst = std::max(worst, std::abs(f.slope - (0.5 - gamma)));
    m.push_back({"slope_gamma_" + fixed(gamma, 1), f.slope});
  }
  m.push_back({"worst_slope_err", worst});
  m.push_back({"constant_at_largest_d", constant});
  const std::string detail = "d x d Gaussian W, d = 64.." + std::to_string(widths(ctx).back()) +
                             "; ||W||_2 / d^(1/2 - gamma) = " + fixed(constant, 3) +
                             " at the largest d (Bai-Yin: 2)";
  if (worst <= 0.05) return holds_approximately("slope err " + sci(worst), detail, m);
  return fails("slope err " + sci(worst), detail, m);
}

Verdict residual_flow_exponent(const Context& ctx) {
  // ||h_L - e|| / ||e|| ~ d^(1 - gamma): the fitted exponent over d on a
  // 4-layer pre-norm stack, at several gamma, against 1 - gamma. Accepted
  // within 0.1 (the leading-order analysis ignores O(1) factors that drift
  // with d: SiLU's slope at 0 vs at O(1) inputs, 16 tokens of sampling noise).
  double worst = 0;
  std::vector<Measure> m;
  std::string slopes;
  for (double gamma : {0.5, 0.75, 1.0, 1.25}) {
    std::vector<double> x, y;
    for (long d : widths(ctx)) {
      ctx.progress("gamma " + fixed(gamma, 2) + ", d = " + std::to_string(d));
      x.push_back(d);
      y.push_back(residual_flow(d, gamma, 4, 16, 0.0, 140));
    }
    const Fit f = loglog_fit(x, y);
    worst = std::max(worst, std::abs(f.slope - (1 - gamma)));
    m.push_back({"slope_gamma_" + fixed(gamma, 2), f.slope});
    m.push_back({"ratio_at_largest_d_gamma_" + fixed(gamma, 2), y.back()});
    slopes +=
        (slopes.empty() ? "" : ", ") + fixed(f.slope, 3) + " (1-gamma " + fixed(1 - gamma, 2) + ")";
  }
  m.push_back({"worst_slope_err", worst});
  const std::string detail =
      "L = 4 pre-norm blocks W2 silu(W1 RMSNorm(h)), eps = 0, 16 tokens, d = 64.." +
      std::to_string(widths(ctx).back()) + "; fitted slopes " + slopes;
  if (worst <= 0.1) return holds_approximately("slope err " + sci(worst), detail, m);
  return fails("slope err " + sci(worst), detail, m);
}

// ---- Sec. 4.2: gamma = 1/2 is the standard scale ---------------------------------

Verdict gamma_half_is_xavier(const Context&) {
  // "gamma = 1/2 recovers the standard scale such as Xavier-like scale": the
  // variance d_in^-1 against Xavier's 2 / (d_in + d_out), for the LM's shapes
  // (square maps, and the FFN's d x 4d and 4d x d).
  double worst = 1;  // the ratio farthest from 1, as max(r, 1/r)
  std::vector<Measure> m;
  for (auto [d_out, d_in] : {std::pair{1024L, 1024L}, {4096L, 1024L}, {1024L, 4096L}}) {
    const double ratio = (1.0 / d_in) / (2.0 / (d_in + d_out));
    worst = std::max(worst, std::max(ratio, 1 / ratio));
    m.push_back({"ratio_" + std::to_string(d_out) + "x" + std::to_string(d_in), ratio});
  }
  return holds_approximately(
      "max ratio " + fixed(worst, 2),
      "equal to Xavier's variance for square maps; a factor (d_in + d_out) / "
      "(2 d_in) away otherwise: 2.5 for up/gate (4d x d), 0.625 for down",
      m);
}

// ---- eq. 7: stable rank ----------------------------------------------------------------

Verdict stable_rank_identity(const Context&) {
  // ||W||_F^2 / ||W||_2^2 = sum_i sigma_i^2 / sigma_max^2 (eq. 7), in 50
  // digits by an SVD: exact means agreement to 1e-40 (the SVD's accuracy in
  // 50 digits, ~1e-48 times the condition of these small matrices). The sum
  // runs over the min(m, n) singular values; the paper writes i = 1..d.
  // Also the power-iteration estimate (metrics::stable_rank, double) against it.
  double worst50 = 0, worst_power = 0;
  for (auto [rows, cols] : {std::pair{6L, 4L}, {5L, 8L}, {7L, 7L}}) {
    const Mat<Real50> w = gaussian<Real50>(rows, cols, 1.0, 150 + static_cast<std::uint32_t>(rows));
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
  return fails("rel err " + sci(worst50), detail, m);
}

// ---- Sec. 4.7: the symmetric probability gap -------------------------------------

Verdict sym_gap(const Context&) {
  // Delta^sym p = 2 (p_s - p_t) / (p_s + p_t) is "positive when the small-init
  // model assigns a higher probability": with l = -log p it equals
  // -2 tanh((l_s - l_t) / 2), a monotone function of the loss difference
  // bounded in (-2, 2). Checked on probabilities spread over 1e-30..1 in 50
  // digits against metrics::sym_prob_gap; exact means 1e-45.
  const int n = 64;
  Mat<Real50> ps(n, 1), pt(n, 1);
  const Mat<double> z = gaussian(2, n, 1.0, 160);
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
  return fails("abs err " + sci(worst), detail, m);
}

}  // namespace

void add_smallinit_claims(std::vector<Claim>& out) {
  out.push_back(
      make("smallinit.claim.sigma2-values", "Sec. 2.1",
           "with h_i ~ N(0, d^(-2 gamma)) and d = 2048, sigma^2(h) = 4.8e-4 at gamma = 0.5 "
           "and 2.4e-7 at gamma = 1",
           Kind::numeric, sigma2_values));
  out.push_back(
      make("smallinit.claim.eps-saturation", "Sec. 2.1, Fig. 1c",
           "eps = 1e-5 saturates the RMSNorm factor (sigma^2(h) + eps)^(-1/2) for gamma > 0.6 "
           "at d = 2048",
           Kind::numeric, eps_saturation));
  out.push_back(make("smallinit.claim.eps-1e-12-range", "Sec. 2.1, Fig. 1c",
                     "eps = 1e-12 keeps the factor sensitive to gamma over a far wider range",
                     Kind::numeric, eps_wide_range));
  out.push_back(make("smallinit.app.embedding-norm", "Appendix A",
                     "||e||_2 = Theta(d^(1/2 - gamma)) for embedding entries N(0, d^(-2 gamma))",
                     Kind::approximation, embedding_norm));
  out.push_back(make("smallinit.app.rmsnorm-norm", "Appendix A",
                     "||RMSNorm(e)||_2 = Theta(d^(1/2)): RMSNorm removes the initialization scale",
                     Kind::exact, rmsnorm_norm, true));
  out.push_back(
      make("smallinit.app.spectral-norm", "Appendix A",
           "||W||_2 = Theta(d^(1/2 - gamma)) for a d x d W with N(0, d^(-2 gamma)) entries",
           Kind::approximation, spectral_norm_scale));
  out.push_back(make("smallinit.app.residual-flow", "Sec. 2.4, Appendix A, Fig. 3a",
                     "||h_L - e||_2 / ||e||_2 ~ d^(1 - gamma) for a pre-norm stack under small "
                     "initialization",
                     Kind::approximation, residual_flow_exponent));
  out.push_back(make("smallinit.sec.4.2-gamma-half", "Sec. 4.2",
                     "gamma = 1/2 recovers the standard (Xavier-like) initialization scale",
                     Kind::numeric, gamma_half_is_xavier));
  out.push_back(make("smallinit.eq.7", "eq. 7, Sec. 4.7",
                     "StableRank(W) = ||W||_F^2 / ||W||_2^2 = sum_i sigma_i^2 / sigma_max^2",
                     Kind::exact, stable_rank_identity, true));
  out.push_back(make("smallinit.sec.4.7-sym-gap", "Sec. 4.7",
                     "the symmetric gap Delta^sym p is positive exactly when the small-init model "
                     "assigns the higher probability (it equals -2 tanh(Delta l / 2))",
                     Kind::exact, sym_gap, true));
}

}  // namespace scaleref::audit
