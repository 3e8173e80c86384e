// The gradient with respect to the input x: Appendix B.4 (eq. 23-28,
// single-head and multi-head) and B.5's scaling discussion (eq. 29 and the
// limits k -> inf, k -> 0, restated in Sec. 3.1's "Gradient of x").
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "claims/seednorm/readings.hpp"
#include "claims/seednorm/seednorm.hpp"

namespace scaleref::audit {
namespace {

using namespace seednorm_claims;

auto jac_x_eq26 = [](const auto& q) {  // eq. 26 (= eq. 23 with eq. 24, 25)
  using S = ScalarOf<decltype(q.x)>;
  return Mat<S>(sech2<S>(q.z()(0, 0)) * alpha_r_col<S>(q) * q.beta + rms_terms<S>(q));
};

Verdict check_eq24(const Context& ctx) {
  // d sigma(x . beta^T) / dx_l = sigma'(x . beta^T) beta_l: the H = 1 case of what
  // kMultiheadDsigmaReading reads eq. 27's left side as.
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 310);
  auto out = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    using std::tanh;
    return Mat<S>(Mat<S>::Constant(1, 1, tanh(q.z()(0, 0))));
  };
  auto jac = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    return Mat<S>(sech2<S>(q.z()(0, 0)) * q.beta);
  };
  return exact_by_fd50(jacobian_problem("eq. 24", p, Wrt::x, out, jac), {p.x}, point_regime(p));
}

Verdict check_eq25(const Context& ctx) {
  // d r_k / d x_l = delta_kl / RMS - x_k x_l / (D RMS^3): eps = 0 and eps = 1e-3
  // (d RMS / dx_l = x_l / (D RMS) with eps inside the root too).
  const Mat<double> x0 = gaussian(ctx.seed, 1, 8, 1.0, kTid + 320);
  std::vector<Verdict> vs;
  for (double eps : {0.0, 1e-3}) {
    auto fwd = [eps](const auto& in) {
      using S = ScalarOf<decltype(in[0])>;
      return Mat<S>(in[0] / rms_of<S>(in[0], eps));
    };
    auto bwd = [eps](const auto& in, const auto& dy) {
      using S = ScalarOf<decltype(in[0])>;
      const S rms = rms_of<S>(in[0], eps), d = S(in[0].cols());
      const Mat<S> j = Mat<S>(Mat<S>::Identity(in[0].cols(), in[0].cols()) / rms -
                              Mat<S>(in[0].transpose()) * in[0] / (d * rms * rms * rms));
      return std::vector<Mat<S>>{Mat<S>(dy * j)};
    };
    vs.push_back(exact_by_fd50(verify::Problem::make("eq. 25", {"x"}, fwd, bwd), {x0},
                               "D = 8, eps = 0 and 1e-3"));
  }
  Verdict v = combine_min(vs);
  v.measured = {{"err_eps0", vs[0].measured[0].value}, {"err_eps1e-3", vs[1].measured[0].value}};
  return v;
}

Verdict check_eq26(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 330);
  Verdict v = formula_verdict(jacobian_problem("eq. 26", p, Wrt::x, seednorm_out, jac_x_eq26), p,
                              Wrt::x, point_regime(p));
  v.detail += " (eq. 23 with eq. 24 and 25 substituted)";
  return v;
}

Verdict check_eq27(const Context& ctx) {
  // Multi-head: delta_ij sigma'(x_hi . beta_hj^T) beta_l, the right side of
  // eq. 27, against its left side read by kMultiheadDsigmaReading, d sigma(z_h(k))
  // / dx_l; the literal reading, d s_k / d x_l with s_k = sigma(z_h(k)) alpha_k,
  // is measured beside it.
  const Point p = standard_point(ctx.seed, 8, 2, kTid + 340);
  auto jac = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    const Mat<S> z = q.z();
    Mat<S> j(q.d(), q.d());
    for (long k = 0; k < q.d(); ++k)
      for (long l = 0; l < q.d(); ++l) {
        const long i = head_of(k, q.d(), q.heads);
        j(k, l) = i == head_of(l, q.d(), q.heads) ? S(sech2<S>(z(0, i)) * q.beta(0, l)) : S(0);
      }
    return j;
  };
  auto out_s = [](const auto& q) { return q.s(); };
  auto out_sigma = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    using std::tanh;
    const Mat<S> z = q.z();
    Mat<S> o(1, q.d());
    for (long k = 0; k < q.d(); ++k) o(0, k) = tanh(z(0, head_of(k, q.d(), q.heads)));
    return o;
  };
  Verdict v = exact_by_fd50(jacobian_problem("eq. 27", p, Wrt::x, out_sigma, jac), {p.x},
                            point_regime(p) + ", left side d sigma(x_hi.beta_hi^T)/dx_l");
  const Verdict literal =
      exact_by_fd50(jacobian_problem("eq. 27 literal", p, Wrt::x, out_s, jac), {p.x}, "");
  v.measured.push_back({"literal_ds_dx_err", literal.measured[0].value});
  v.detail +=
      " (seednorm.reading.multihead-dsigma: eq. 24's multi-head form, as line 1136 introduces "
      "it); read literally as ds_k/dx_l with s_k = sigma alpha_k, the right side lacks alpha_k "
      "and is off by " +
      sci(literal.measured[0].value);
  return v;
}

Verdict check_eq28(const Context& ctx) {
  // Multi-head x gradient, read by kHeadRowReading: (alpha (.) r)^T . [sigma'(z_1)
  // beta_h1 ... sigma'(z_n) beta_hn] (a full outer product) + diag(s + gamma) / RMS
  // - (s + gamma)^T 1 (.) x^T x / (D RMS^3).
  auto jac = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    return Mat<S>(alpha_r_col<S>(q) * per_head_sech2_times<S>(q, q.beta) + rms_terms<S>(q));
  };
  auto masked = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    const Mat<S> first = alpha_r_col<S>(q) * per_head_sech2_times<S>(q, q.beta);
    return Mat<S>(first.cwiseProduct(head_mask<S>(q.d(), q.heads)) + rms_terms<S>(q));
  };
  const Point p = standard_point(ctx.seed, 8, 2, kTid + 350),
              p1 = standard_point(ctx.seed, 8, 1, kTid + 350);
  const Verdict h1 =
      exact_by_fd50(jacobian_problem("eq. 28 H=1", p1, Wrt::x, seednorm_out, jac), {p1.x}, "");
  const Verdict mk =
      exact_by_fd50(jacobian_problem("eq. 28 mask", p, Wrt::x, seednorm_out, masked), {p.x}, "");
  Verdict v = formula_verdict(
      jacobian_problem("eq. 28", p, Wrt::x, seednorm_out, jac), p, Wrt::x, point_regime(p),
      mk.status == Status::holds ? Fault::notation_slip : Fault::math_error);
  v.measured.push_back({"err_h1", h1.measured[0].value});
  v.measured.push_back({"with_head_mask_err", mk.measured[0].value});
  v.detail +=
      "; the first term is a full outer product (seednorm.reading.head-row), missing the "
      "delta_ij of eq. 27: the slip is the dropped head mask; with it, err " +
      sci(mk.measured[0].value) + "; with H = 1 it is eq. 26 (err " + sci(h1.measured[0].value) +
      ")";
  if (v.status == Status::fails)
    v.finding = {
        "eq. 28's first term is a full outer product across heads: it drops eq. 27's "
        "head mask delta_ij",
        mk.status == Status::holds ? "the first term masked by delta_ij" : ""};
  return v;
}

Verdict check_eq29(const Context& ctx) {
  // The last two terms of eq. 26 at k x equal (1 / (k RMS(x))) (diag(sigma(k x . beta)
  // alpha + gamma) - (...)^T 1 (.) x^T x / (D RMS^2(x))), eps = 0, k > 0 (every line).
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 120);
  const Mat<Real50> x = cast<Real50>(p.x);
  double worst = 0;
  for (double kd : {1e-4, 0.3, 7.0, 1e4}) {
    const Real50 k(kd);
    PointS<Real50> q{Mat<Real50>(k * x), cast<Real50>(p.alpha), cast<Real50>(p.beta),
                     cast<Real50>(p.gamma), 1};
    const Mat<Real50> lhs = rms_terms<Real50>(q);  // line 1, at k x
    const Mat<Real50> g = q.s() + q.gamma;
    const Real50 rms = rms_of<Real50>(x, 0.0), d = Real50(8);
    const Mat<Real50> outer = Mat<Real50>(g.transpose()) * Mat<Real50>::Ones(1, 8);
    const Mat<Real50> xx = Mat<Real50>(x.transpose()) * x;
    const Mat<Real50> line2 = (diag_of<Real50>(g) - Mat<Real50>(k * k * outer).cwiseProduct(xx) /
                                                        (k * k * d * rms * rms)) /
                              (k * rms);
    const Mat<Real50> line3 =
        (diag_of<Real50>(g) - outer.cwiseProduct(xx) / (d * rms * rms)) / (k * rms);
    worst = std::max({worst, rel_dist<Real50>(line2, lhs), rel_dist<Real50>(line3, lhs)});
  }
  return forward_verdict(worst, "D = 8, k = 1e-4, 0.3, 7, 1e4, eps = 0, both lines of eq. 29");
}

Verdict check_eq29_large(const Context& ctx) {
  // "When k is abnormally large ... the expression ... scales down by a factor of k"
  // (B.5 after eq. 29; Sec. 3.1 'Gradient of x'): ||J(k x)|| ~ 1/k, and
  // k J(k x) -> the last two terms with sigma = sign(x . beta), for z > 0 and z < 0.
  Point p = standard_point(ctx.seed, 8, 1, kTid + 130);
  std::vector<Measure> m;
  double worst_slope = 0, worst_lim = 0;
  // "Abnormally large" is k |x . beta| >> 1: the k grid is scaled by 1 / |x . beta|
  // where that is above 1, so that k |x . beta| >= 100 at every k (the sigma' term,
  // ~ e^{-2 k |x . beta|}, is then below any tolerance at every seed).
  const double z = p.x.row(0).dot(p.beta.row(0));
  const double kscale = std::max(1.0, 1.0 / std::abs(z));
  m.push_back({"k_scale", kscale});
  for (int sgn : {1, -1}) {
    Point q = p;
    if ((z > 0) != (sgn > 0)) q.beta = -q.beta;
    std::vector<double> ks, norms;
    for (double k0 : {1e2, 1e3, 1e4, 1e5, 1e6}) {
      const double k = k0 * kscale;
      ks.push_back(k);
      norms.push_back(frob(ref_jacobian_x(q, Mat<Real50>(Real50(k) * cast<Real50>(q.x)), 0.0)));
    }
    const Fit f = loglog_fit(ks, norms);
    // The limit: sigma -> sign(z) (the paper says "approaches 1").
    PointS<Real50> lim{cast<Real50>(q.x), Mat<Real50>(Real50(sgn) * cast<Real50>(q.alpha)),
                       Mat<Real50>::Zero(1, 8), cast<Real50>(q.gamma), 1};
    // s = sign(z) alpha: build it via gamma' = gamma + sign(z) alpha and alpha' = 0.
    lim.gamma = lim.gamma + lim.alpha;
    lim.alpha.setZero();
    const Real50 kmax(ks.back());
    const Mat<Real50> j6 = kmax * ref_jacobian_x(q, Mat<Real50>(kmax * cast<Real50>(q.x)), 0.0);
    const double lim_err = rel_dist<Real50>(j6, rms_terms<Real50>(lim));
    const std::string tag = sgn > 0 ? "zpos" : "zneg";
    m.push_back({"slope_" + tag, f.slope});
    m.push_back({"limit_rel_err_k1e6_" + tag, lim_err});
    worst_slope = std::max(worst_slope, std::abs(f.slope + 1));
    worst_lim = std::max(worst_lim, lim_err);
  }
  // Slope -1 to 1e-6 and the limit to 1e-6 (the sigma' term is ~ e^{-2k|z|}, and
  // the relative gap from the limit is 0 up to rounding once k >= 1e2).
  const std::string regime = "D = 8, eps = 0, k = (1e2..1e6) x " + fixed(kscale, 2) +
                             " (k |x . beta| >= 100), x . beta > 0 and < 0";
  if (worst_slope <= 1e-6 && worst_lim <= 1e-6)
    return holds_approximately("slope -1 +- " + sci(worst_slope),
                               regime +
                                   "; the limit has sigma = sign(x . beta), i.e. -1 for "
                                   "x . beta < 0, not 1 as the text says; k J(kx) agrees "
                                   "with it to " +
                                   sci(worst_lim),
                               m);
  return fails(Fault::math_error, "slope off by " + sci(worst_slope), regime, m);
}

Verdict check_eq29_small(const Context& ctx) {
  // "When k is abnormally small ... the expression is primarily influenced by
  // gamma / (k RMS(x))": k J(kx) -> (1/RMS)(diag(gamma) - gamma^T 1 (.) x^T x/(D RMS^2)),
  // ||J|| ~ 1/k. Also: tanh(k x.beta) / (k RMS(x)) -> x.beta / RMS(x), not 1 in
  // general ("equivalent infinitesimals"), and what eps = 1e-6 does.
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 140);
  std::vector<double> ks, norms;
  for (double k : {1e-6, 1e-5, 1e-4, 1e-3, 1e-2}) {
    ks.push_back(k);
    norms.push_back(frob(ref_jacobian_x(p, Mat<Real50>(Real50(k) * cast<Real50>(p.x)), 0.0)));
  }
  const Fit f = loglog_fit(ks, norms);
  PointS<Real50> lim{cast<Real50>(p.x), Mat<Real50>::Zero(1, 8), cast<Real50>(p.beta),
                     cast<Real50>(p.gamma), 1};
  const Mat<Real50> j =
      Real50(1e-6) * ref_jacobian_x(p, Mat<Real50>(Real50(1e-6) * cast<Real50>(p.x)), 0.0);
  const double lim_err = rel_dist<Real50>(j, rms_terms<Real50>(lim));
  const double z = p.x.row(0).dot(p.beta.row(0));
  const double rms = std::sqrt(p.x.squaredNorm() / 8);
  const double ratio = std::tanh(1e-6 * z) / (1e-6 * rms);
  const double with_eps =
      frob(ref_jacobian_x(p, Mat<Real50>(Real50(1e-6) * cast<Real50>(p.x)), 1e-6));
  const double eps_ratio = with_eps / norms[0];
  std::vector<Measure> m{{"slope", f.slope},
                         {"limit_rel_err_k1e-6", lim_err},
                         {"tanh_kz_over_k_rms", ratio},
                         {"eps1e-6_norm_ratio_k1e-6", eps_ratio}};
  // The gap from the limit is O(k) (the sigma' term times k): 1e-5 at k = 1e-6
  // allows 10x that; the slope over k = 1e-6..1e-2 may differ from -1 by up to
  // O(k_max) = 1e-2 for the same reason (the sigma' term's relative size at k_max).
  const std::string regime = "D = 8, eps = 0, k = 1e-6..1e-2";
  const std::string note = "; tanh(k x.beta)/(k RMS(x)) -> " + fixed(ratio, 4) +
                           " (same order, not 'equivalent'); with eps = 1e-6 the gradient at "
                           "k = 1e-6 is " +
                           sci(eps_ratio) +
                           " of the eps-free one (it saturates "
                           "at 1/sqrt(eps) once k RMS(x) < sqrt(eps))";
  if (std::abs(f.slope + 1) <= 1e-2 && lim_err <= 1e-5)
    return holds_approximately("slope " + fixed(f.slope, 6), regime + note, m);
  return fails(Fault::math_error, "slope " + fixed(f.slope, 6), regime + note, m);
}

}  // namespace

void add_seednorm_input_grads_claims(Registrar& r) {
  r.add({.id = "seednorm.eq.24",
         .location = "Appendix B.4, eq. 24",
         .statement = "d sigma(x.beta^T)/dx_l = sigma'(x.beta^T) beta_l",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 1094,
         .quote = R"(&= \sigma'(\mathbf{x} \cdot \boldsymbol{\beta}^T) \beta_l)",
         .reading = &kMultiheadDsigmaReading,
         .inputs = point_inputs(1, kTid + 310),
         .formula = "J(0, l) = sech^2(x . beta) beta_l (1 x D), against the FD of tanh(x . beta)",
         .threshold = kFd50Threshold,
         .against =
             "50-digit central finite differences of tanh(x . beta) (the left side's function)",
         .check = check_eq24});
  r.add(
      {.id = "seednorm.eq.25",
       .location = "Appendix B.4, eq. 25",
       .statement = "dr_k/dx_l = delta_kl/RMS - x_k x_l/(D RMS^3)",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 1109,
       .quote =
           R"(&= \frac{\delta_{kl}}{\text{RMS}(\mathbf{x})} - \frac{x_k x_l}{D \cdot \text{RMS}^3(\mathbf{x})})",
       .inputs = "x 1x8 N(0, 1) tensor 320 (after 0x5EED0000, seed ctx.seed); eps = 0 and 1e-3",
       .formula = "J = I / RMS - x^T x / (D RMS^3), RMS = sqrt(mean x^2 + eps), against the FD "
                  "of r = x / RMS(x)",
       .threshold = std::string(kFd50Threshold) + ", at both eps",
       .against = "50-digit central finite differences of r = x / RMS(x), eps = 0 and eps = 1e-3",
       .check = check_eq25});
  r.add(
      {.id = "seednorm.eq.26",
       .location = "Appendix B.4, eq. 23-26",
       .statement = "dSeeDNorm/dx = sigma' (alpha (.) r)^T beta + diag(s+gamma)/RMS - "
                    "(s+gamma)^T 1 (.) x^T x/(D RMS^3)",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::paper,
       .quote_line = 1125,
       .quote =
           R"(&= \sigma'(\mathbf{x} \cdot \boldsymbol{\beta}^T) (\boldsymbol{\alpha} \odot \mathbf{r})^T \cdot \boldsymbol{\beta} + \frac{1}{\text{RMS}(\mathbf{x})} \text{diag}(\mathbf{s} + \boldsymbol{\gamma}) - \frac{(\mathbf{s} + \boldsymbol{\gamma})^T \mathbf{1}_{1 \times D}}{D \cdot \text{RMS}^3(\mathbf{x})} \odot (\mathbf{x}^T \cdot \mathbf{x}))",
       .inputs = point_inputs(1, kTid + 330),
       .formula = "J = sech^2(x . beta) (alpha (.) r)^T beta + diag(s + gamma) / RMS - (s + "
                  "gamma)^T 1_{1xD} (.) x^T x / (D RMS^3); dL/dx = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq26});
  r.add(
      {.id = "seednorm.eq.27",
       .location = "Appendix B.4, eq. 27 (lines 1139-1143; its tag on line 1198)",
       .statement = "multi-head: ds_k/dx_l = delta_ij sigma'(x_hi.beta_hj^T) beta_l, the left "
                    "side read as d sigma(x_hi.beta_hi^T)/dx_l",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::reading,
       .quote_line = 1140,
       .quote =
           R"(& \frac{\partial s_k}{\partial x_l} = \delta_{ij} \frac{\partial \sigma(\mathbf{x}_{h_i} \cdot \boldsymbol{\beta}_{h_j}^T)}{\partial x_l})",
       .reading = &kMultiheadDsigmaReading,
       .inputs = point_inputs(2, kTid + 340),
       .formula = "J(k, l) = delta_ij sech^2(z_i) beta_l (i, j the heads of k, l), against the "
                  "FD of sigma_k = tanh(z_h(k)); also against the FD of s_k = tanh(z_h(k)) "
                  "alpha_k (reported)",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of sigma_k = tanh(x_hi . beta_hi^T) (H = "
                  "2); the literal left side ds_k/dx_l also measured",
       .check = check_eq27});
  r.add(
      {.id = "seednorm.eq.28",
       .location = "Appendix B.4, eq. 28 (file line 1157)",
       .statement = "multi-head dSeeDNorm/dx = (alpha (.) r)^T [sigma'(z_1) beta_h1 ...] + "
                    "diag(s+gamma)/RMS - (s+gamma)^T 1 (.) x^T x/(D RMS^3), the bracket a 1 x D "
                    "row",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::reading,
       .quote_line = 1157,
       .quote =
           R"(& \left(\alpha \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})} \right)^T \cdot \left[\sigma'(\mathbf{x}_{h_1} \cdot \boldsymbol{\beta}_{h_1}^T) \boldsymbol{\beta}_{h_1} \quad \dots \quad \sigma'(\mathbf{x}_{h_n} \cdot \boldsymbol{\beta}_{h_n}^T) \boldsymbol{\beta}_{h_n} \right])",
       .reading = &kHeadRowReading,
       .inputs = point_inputs(2, kTid + 350) + "; and the same draws with H = 1",
       .formula = "J = (alpha (.) r)^T [sech^2(z_h(l)) beta_l]_l (full outer product) + "
                  "diag(s + gamma) / RMS - (s + gamma)^T 1 (.) x^T x / (D RMS^3); dL/dx = dy J; "
                  "also with the head mask on the first term, and at H = 1",
       .threshold = std::string(kFd50Threshold) +
                    " (a notation slip when the form with the head mask holds)",
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point (H = 2); the masked form and the H = 1 "
                  "case measured beside it",
       .check = check_eq28});
  r.add(
      {.id = "seednorm.eq.29",
       .location = "Appendix B.5, eq. 29",
       .statement = "the last two terms of eq. 26 at kx equal 1/(k RMS(x)) (diag(...) - ... "
                    "x^T x/(D RMS^2(x)))",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 1202,
       .quote =
           R"(&= \frac{1}{k\text{RMS}(\mathbf{x})} \left(\text{diag}(\sigma(k\mathbf{x} \cdot \boldsymbol{\beta}^T) \cdot \boldsymbol{\alpha} + \boldsymbol{\gamma}))",
       .inputs = point_inputs(1, kTid + 120) + "; k = 1e-4, 0.3, 7, 1e4 (Real50)",
       .formula = "diag(g)/RMS(kx) - g^T 1 (.) (kx)^T (kx) / (D RMS^3(kx)), g = tanh(k x . "
                  "beta) alpha + gamma, against eq. 29's second and third lines",
       .threshold = kForwardThreshold,
       .against = "direct Real50 evaluation of eq. 29's first line (eq. 26's last two terms at kx, "
                  "which seednorm.eq.26 verifies against FD), k = 1e-4..1e4",
       .check = check_eq29});
  r.add(
      {.id = "seednorm.eq.29.large-k",
       .location = "Appendix B.5 after eq. 29; Sec. 3.1",
       .statement = "for abnormally large k, sigma -> 1 and the x-gradient scales down by k",
       .kind = Kind::approximation,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 1206,
       .quote =
           R"(When k is abnormally large, $\sigma(\cdot)$ approaches 1 when σ is implemented with \tanh ,)",
       .inputs = point_inputs(1, kTid + 130) +
                 ", beta's sign flipped to give x . beta > 0 and < 0; k = (1e2, 1e3, ..., 1e6) "
                 "x max(1, 1 / |x . beta|) (Real50)",
       .formula = "log-log slope of ||J(kx)||_F over k (J from norm::seednorm::backward), and "
                  "k J(kx) at the largest k against rms_terms with s = sign(x . beta) alpha",
       .threshold = "holds approximately if |slope + 1| <= 1e-6 and the limit agrees to 1e-6 "
                    "(relative) for both signs of x . beta; fails otherwise",
       .against = "Jacobian from the reference backward (norm::seednorm::backward, itself within "
                  "~5e-36 of 50-digit FD in the formula claims) at kx, Real50: log-log slope over "
                  "k = 1e2..1e6 and k J(kx) against the sign(x . beta) limit",
       .check = check_eq29_large});
  r.add(
      {.id = "seednorm.eq.29.small-k",
       .location = "Appendix B.5 after eq. 29; Sec. 3.1",
       .statement = "for abnormally small k the x-gradient is dominated by gamma/(k RMS(x)), "
                    "growing as 1/k",
       .kind = Kind::approximation,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 1208,
       .quote =
           R"(When k is abnormally small, $\tanh(k\mathbf{x} \cdot \boldsymbol{\beta}^T)$ and $k \cdot \text{RMS}(\mathbf{x})$ are equivalent infinitesimals. Therefore, the above expression is primarily influenced by $\frac{\boldsymbol{\gamma}}{k\text{RMS}(\mathbf{x})}$.)",
       .inputs = point_inputs(1, kTid + 140) + "; k = 1e-6..1e-2 (Real50)",
       .formula = "log-log slope of ||J(kx)||_F over k, and k J(kx) at k = 1e-6 against "
                  "rms_terms with alpha = 0 (gamma only); tanh(k x.beta)/(k RMS(x)) and the "
                  "eps = 1e-6 gradient reported",
       .threshold = "holds approximately if |slope + 1| <= 1e-2 and the limit agrees to 1e-5 "
                    "(relative); fails otherwise",
       .against = "Jacobian from the reference backward at kx, Real50: log-log slope over k = "
                  "1e-6..1e-2 and k J(kx) against the gamma-only limit",
       .check = check_eq29_small});
}

}  // namespace scaleref::audit
