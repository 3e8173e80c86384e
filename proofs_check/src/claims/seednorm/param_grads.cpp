// The parameter gradients: eq. 6 (Sec. 3.1) and their derivations in
// Appendix B.1-B.3 (eq. 16-22), single-head and multi-head, each against the
// 50-digit FD of SeeDNorm itself.
#include <cmath>
#include <string>
#include <vector>

#include "claims/seednorm/readings.hpp"
#include "claims/seednorm/seednorm.hpp"

namespace scaleref::audit {
namespace {

using namespace seednorm_claims;

auto jac_gamma = [](const auto& q) {
  using S = ScalarOf<decltype(q.x)>;
  return diag_of<S>(q.r());  // eq. 6 line 1, eq. 16
};

auto jac_beta = [](const auto& q) {  // eq. 6 line 3, eq. 20
  using S = ScalarOf<decltype(q.x)>;
  return Mat<S>(sech2<S>(q.z()(0, 0)) * alpha_r_col<S>(q) * q.x);
};

auto jac_x_eq6 = [](const auto& q) {  // eq. 6 line 4, as grouped there
  using S = ScalarOf<decltype(q.x)>;
  const Mat<S> g = q.s() + q.gamma;
  const S rms = q.rms(), d = S(q.d());
  const Mat<S> outer = Mat<S>(g.transpose()) * Mat<S>::Ones(1, q.d());
  const Mat<S> xx = Mat<S>(q.x.transpose()) * q.x;
  return Mat<S>(sech2<S>(q.z()(0, 0)) * alpha_r_col<S>(q) * q.beta +
                (diag_of<S>(g) - Mat<S>(outer.cwiseProduct(xx)) / (d * rms * rms)) / rms);
};

Verdict check_eq6_gamma(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 200);
  return formula_verdict(jacobian_problem("eq. 6 gamma", p, Wrt::gamma, seednorm_out, jac_gamma), p,
                         Wrt::gamma, point_regime(p));
}

// The literal product r . [sigma I] of eq. 6 / 18: a (1 x D) (D x D) product,
// 1 x D; its shape goes into the detail of the claims read by
// kAlphaJacobianReading.
std::vector<Measure> literal_alpha_shape(const Point& p, std::string& note) {
  PointS<double> q{p.x, p.alpha, p.beta, p.gamma, p.heads};
  const long d = q.d();
  const Mat<double> literal = q.r() * (std::tanh(q.z()(0, 0)) * Mat<double>::Identity(d, d));
  note = "; read literally, r . [sigma I] is the " + std::to_string(literal.rows()) + " x " +
         std::to_string(literal.cols()) + " row sigma r, not the " + std::to_string(d) + " x " +
         std::to_string(d) + " Jacobian the text calls it";
  return {{"literal_rows", double(literal.rows())}, {"literal_cols", double(literal.cols())}};
}

Verdict check_eq6_alpha(const Context& ctx) {
  // Read by kAlphaJacobianReading: x/RMS(x) . [sigma(x . beta^T) I_{DxD}] is the
  // D x D matrix diag(r) sigma, entries sigma r_k delta_kl (eq. 18's fifth line).
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 210);
  Verdict v = formula_verdict(
      jacobian_problem("eq. 6 alpha", p, Wrt::alpha, seednorm_out, jac_alpha_entrywise), p,
      Wrt::alpha, point_regime(p) + ", read as the D x D matrix diag(r) sigma");
  std::string note;
  for (const Measure& m : literal_alpha_shape(p, note)) v.measured.push_back(m);
  v.detail += note + " (seednorm.reading.alpha-jacobian)";
  return v;
}

Verdict check_eq6_beta(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 220);
  return formula_verdict(jacobian_problem("eq. 6 beta", p, Wrt::beta, seednorm_out, jac_beta), p,
                         Wrt::beta, point_regime(p));
}

Verdict check_eq6_x(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 230);
  return formula_verdict(jacobian_problem("eq. 6 x", p, Wrt::x, seednorm_out, jac_x_eq6), p, Wrt::x,
                         point_regime(p));
}

Verdict check_eq16(const Context& ctx) {
  // diag(x / RMS(x)), single-head and (B.1) unchanged for multi-head (H = 2).
  const Point p1 = standard_point(ctx.seed, 8, 1, kTid + 240),
              p2 = standard_point(ctx.seed, 8, 2, kTid + 240);
  Verdict a = formula_verdict(jacobian_problem("eq. 16", p1, Wrt::gamma, seednorm_out, jac_gamma),
                              p1, Wrt::gamma, point_regime(p1));
  Verdict b =
      formula_verdict(jacobian_problem("eq. 16 MH", p2, Wrt::gamma, seednorm_out, jac_gamma), p2,
                      Wrt::gamma, point_regime(p2));
  Verdict v = combine_min({a, b});
  v.measured = {{"err_h1", a.measured[0].value},
                {"err_h2", b.measured[0].value},
                {"reference_err_h1", a.measured[1].value},
                {"reference_err_h2", b.measured[1].value}};
  v.figure = "err " + sci(std::max(a.measured[0].value, b.measured[0].value));
  v.detail = "D = 8, H = 1 and 2 (B.1's multi-head remark), 50-digit FD, eps = 0";
  return v;
}

Verdict check_eq18(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 250);
  Verdict v =
      formula_verdict(jacobian_problem("eq. 18", p, Wrt::alpha, seednorm_out, jac_alpha_entrywise),
                      p, Wrt::alpha, point_regime(p));
  std::string note;
  for (const Measure& m : literal_alpha_shape(p, note)) v.measured.push_back(m);
  v.detail +=
      " (entrywise result sigma(x.beta^T) r_k delta_kl; its last two lines, r . [sigma I] as in "
      "eq. 6, are this matrix under seednorm.reading.alpha-jacobian" +
      note + ")";
  return v;
}

Verdict check_eq19(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 2, kTid + 260);
  Verdict v =
      formula_verdict(jacobian_problem("eq. 19", p, Wrt::alpha, seednorm_out, jac_alpha_entrywise),
                      p, Wrt::alpha, point_regime(p));
  v.detail +=
      " (entrywise sigma(x_hi.beta_hj^T) r_k delta_kl; its last two lines, r . blockdiag(sigma_h "
      "I), are this D x D matrix under seednorm.reading.alpha-jacobian)";
  return v;
}

// B.2's sentence (file line 1010) for k, l in one head, with the substitutions
// the check measures: `x_for_alpha` puts x_hi where the sentence has alpha_hi,
// `diagonal` keeps the factor d alpha_k / d alpha_l = delta_kl.
auto b2_prose_jac(bool x_for_alpha, bool diagonal) {
  return [x_for_alpha, diagonal](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    using std::tanh;
    const long d = q.d(), w = d / q.heads;
    Mat<S> j = Mat<S>::Zero(d, d);
    const Mat<S> r = q.r();
    for (long k = 0; k < d; ++k)
      for (long l = 0; l < d; ++l) {
        const long h = head_of(k, d, q.heads);
        if (h != head_of(l, d, q.heads) || (diagonal && k != l)) continue;
        S ab = 0;
        for (long t = h * w; t < (h + 1) * w; ++t)
          ab += (x_for_alpha ? q.x(0, t) : q.alpha(0, t)) * q.beta(0, t);
        j(k, l) = r(0, k) * tanh(ab);
      }
    return j;
  };
}

Verdict check_b2_prose(const Context& ctx) {
  // B.2 (file line 1010): for k, l in one head i = j, d s_k / d alpha_l = sigma(alpha_hi .
  // beta_hj^T). Measured with both slips undone (x_hi for alpha_hi, the factor
  // delta_kl kept: eq. 19's first line) and with only the first.
  const Point p = standard_point(ctx.seed, 8, 2, kTid + 270);
  const Verdict fixed_both =
      exact_by_fd50(jacobian_problem("B.2 prose, x and delta_kl", p, Wrt::alpha, seednorm_out,
                                     b2_prose_jac(true, true)),
                    {p.alpha}, "");
  const Verdict fixed_x = exact_by_fd50(
      jacobian_problem("B.2 prose, x", p, Wrt::alpha, seednorm_out, b2_prose_jac(true, false)),
      {p.alpha}, "");
  const double both = fixed_both.measured[0].value, only_x = fixed_x.measured[0].value;
  const bool slip = fixed_both.status == Status::holds;
  Verdict v = formula_verdict(
      jacobian_problem("B.2 prose", p, Wrt::alpha, seednorm_out, b2_prose_jac(false, false)), p,
      Wrt::alpha, point_regime(p) + ", ds_k/dalpha_l = sigma(alpha_h.beta_h^T) as written",
      slip ? Fault::notation_slip : Fault::math_error);
  v.measured.push_back({"fixed_x_and_delta_err", both});
  v.measured.push_back({"fixed_x_only_err", only_x});
  v.detail +=
      "; two slips: alpha_hi where x_hi belongs (eq. 19's next lines have x_hi), and the "
      "factor d alpha_k / d alpha_l = delta_kl dropped (eq. 19's first line keeps it): "
      "with both undone it is eq. 19's entrywise line, err " +
      sci(both) + "; with only x_hi for alpha_hi, err " + sci(only_x);
  if (v.status == Status::fails)
    v.finding = {
        "B.2's ds_k/dalpha_l = sigma(alpha_h . beta_h^T) has alpha_hi where x_hi belongs "
        "and drops the factor delta_kl",
        slip ? "ds_k/dalpha_l = delta_kl sigma(x_hi . beta_hi^T), eq. 19's entrywise line" : ""};
  return v;
}

Verdict check_eq20(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 280);
  return formula_verdict(jacobian_problem("eq. 20", p, Wrt::beta, seednorm_out, jac_beta), p,
                         Wrt::beta, point_regime(p));
}

Verdict check_eq21(const Context& ctx) {
  const Point p = standard_point(ctx.seed, 8, 1, kTid + 290);
  auto jac = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    using std::tanh;
    const S t = tanh(q.z()(0, 0));
    return Mat<S>((S(1) - t * t) * alpha_r_col<S>(q) * q.x);
  };
  return formula_verdict(jacobian_problem("eq. 21", p, Wrt::beta, seednorm_out, jac), p, Wrt::beta,
                         point_regime(p));
}

Verdict check_eq22(const Context& ctx) {
  // Multi-head beta. Final line, read by kHeadRowReading (the full outer
  // product): (alpha (.) r)^T . [sigma'(z_1) x_h1 ... sigma'(z_n) x_hn]; line 5:
  // alpha_k r_k delta_ij sigma'(z_i) x_l (the same with the head mask); line 3
  // (literally, with the extra sigma inside d/dbeta_l): alpha_k r_k delta_ij sigma'(z_i)^2 x_l.
  const Point p = standard_point(ctx.seed, 8, 2, kTid + 300);
  auto final_line = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    return Mat<S>(alpha_r_col<S>(q) * per_head_sech2_times<S>(q, q.x));
  };
  auto line5 = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    const Mat<S> full = alpha_r_col<S>(q) * per_head_sech2_times<S>(q, q.x);
    const Mat<S> mask = head_mask<S>(q.d(), q.heads);
    return Mat<S>(full.cwiseProduct(mask));
  };
  auto line3 = [](const auto& q) {
    using S = ScalarOf<decltype(q.x)>;
    const Mat<S> once = per_head_sech2_times<S>(q, q.x);
    const Mat<S> twice = per_head_sech2_times<S>(q, once);
    return Mat<S>(Mat<S>(alpha_r_col<S>(q) * twice).cwiseProduct(head_mask<S>(q.d(), q.heads)));
  };
  const Verdict v5 =
      exact_by_fd50(jacobian_problem("eq. 22 l5", p, Wrt::beta, seednorm_out, line5), {p.beta}, "");
  const Verdict v3 =
      exact_by_fd50(jacobian_problem("eq. 22 l3", p, Wrt::beta, seednorm_out, line3), {p.beta}, "");
  Verdict v = formula_verdict(
      jacobian_problem("eq. 22", p, Wrt::beta, seednorm_out, final_line), p, Wrt::beta,
      point_regime(p), v5.status == Status::holds ? Fault::notation_slip : Fault::math_error);
  v.measured.push_back({"line5_err", v5.measured[0].value});
  v.measured.push_back({"line3_err", v3.measured[0].value});
  v.detail +=
      "; final line = a full outer product (seednorm.reading.head-row) without the head mask "
      "delta_ij (entries with k, l in different heads are nonzero, the derivative there is 0): "
      "the slip is the dropped delta_ij; line 5, which keeps it, err " +
      sci(v5.measured[0].value) +
      "; line 3 as printed (sigma inside d/dbeta_l, so "
      "sigma'^2) err " +
      sci(v3.measured[0].value);
  if (v.status == Status::fails)
    v.finding = {
        "eq. 22's last line is a full outer product across heads: it drops the head "
        "mask delta_ij that its line 5 keeps",
        v5.status == Status::holds ? "line 5: the outer product masked by delta_ij" : ""};
  return v;
}

}  // namespace

void add_seednorm_param_grads_claims(Registrar& r) {
  r.add(
      {.id = "seednorm.eq.6.gamma",
       .location = "eq. 6, line 1 (file line 209)",
       .statement = "dSeeDNorm/dgamma = diag(x / RMS(x))",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 209,
       .quote =
           R"(\frac{\partial \text{SeeDNorm}(\mathbf{x})}{\partial \gamma} &= \text{diag}\left(\frac{\mathbf{x}}{\text{RMS}(\mathbf{x})}\right))",
       .inputs = point_inputs(1, kTid + 200),
       .formula = "J = diag(r), r = x / RMS(x); dL/dgamma = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq6_gamma});
  r.add(
      {.id = "seednorm.eq.6.alpha",
       .location = "eq. 6, line 2 (file line 210)",
       .statement = "dSeeDNorm/dalpha = x/RMS(x) . [sigma(x.beta^T) I_DxD], read as the D x D "
                    "Jacobian diag(r) sigma",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::reading,
       .quote_line = 210,
       .quote =
           R"(\frac{\partial \text{SeeDNorm}(\mathbf{x})}{\partial \boldsymbol{\alpha}} &= \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})} \cdot \left[\sigma(\mathbf{x} \cdot \boldsymbol{\beta}^T) \mathbf{I}_{D \times D}\right])",
       .reading = &kAlphaJacobianReading,
       .inputs = point_inputs(1, kTid + 210),
       .formula = "J(k, l) = tanh(x . beta) r_k delta_kl (D x D); dL/dalpha = dy J; the literal "
                  "product r . [sigma I] (1 x D) is reported",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq6_alpha});
  r.add(
      {.id = "seednorm.eq.6.beta",
       .location = "eq. 6, line 3 (file line 211)",
       .statement = "dSeeDNorm/dbeta = sigma'(x.beta^T) ((alpha (.) x/RMS(x))^T . x)",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 211,
       .quote =
           R"(\frac{\partial \text{SeeDNorm}(\mathbf{x})}{\partial \boldsymbol{\beta}} &= \sigma'(\mathbf{x} \cdot \boldsymbol{\beta}^T) \left(\left(\boldsymbol{\alpha} \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})}\right)^T \cdot \mathbf{x}\right))",
       .inputs = point_inputs(1, kTid + 220),
       .formula = "J = sech^2(x . beta) (alpha (.) r)^T x (D x D outer product); dL/dbeta = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq6_beta});
  r.add(
      {.id = "seednorm.eq.6.x",
       .location = "eq. 6, line 4 (file line 212)",
       .statement = "dSeeDNorm/dx = sigma' (alpha (.) r)^T beta + (1/RMS)(diag(s+gamma) - "
                    "(s+gamma)^T 1 (.) x^T x / (D RMS^2))",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 212,
       .quote =
           R"(\frac{\partial \text{SeeDNorm}(\mathbf{x})}{\partial \mathbf{x}} &= \sigma'(\mathbf{x} \cdot \boldsymbol{\beta}^T) \left(\boldsymbol{\alpha} \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})}\right)^T \cdot \boldsymbol{\beta} + \frac{1}{\text{RMS}(\mathbf{x})})",
       .inputs = point_inputs(1, kTid + 230),
       .formula = "J = sech^2(x . beta) (alpha (.) r)^T beta + (diag(s + gamma) - (s + gamma)^T "
                  "1_{1xD} (.) x^T x / (D RMS^2)) / RMS, s = tanh(x . beta) alpha; dL/dx = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq6_x});
  r.add({.id = "seednorm.eq.16",
         .location = "Appendix B.1, eq. 16-17",
         .statement = "dSeeDNorm/dgamma = diag(x/RMS(x)), the same for multi-head",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::paper,
         .quote_line = 958,
         .quote = R"(&= \text{diag}(\frac{\mathbf{x}}{\text{RMS}(\mathbf{x})}))",
         .inputs = point_inputs(1, kTid + 240) + "; and the same draws with H = 2",
         .formula = "J = diag(r); dL/dgamma = dy J (eq. 17's product), at H = 1 and H = 2",
         .threshold = std::string(kFd50Threshold) + ", at both H",
         .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                    "(eq. 15, eps = 0), at a random point, at H = 1 and H = 2",
         .check = check_eq16});
  r.add(
      {.id = "seednorm.eq.18",
       .location = "Appendix B.2, eq. 18",
       .statement = "dF_k/dalpha_l = sigma(x.beta^T) r_k delta_kl (its last two lines, "
                    "r . [sigma I], the same D x D matrix under the alpha-jacobian reading)",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::paper,
       .quote_line = 983,
       .quote =
           R"(&= (\sigma(\mathbf{x} \cdot \boldsymbol{\beta}^T) r_k \cdot \delta_{kl})_{k,l=1..D} \\ &= \mathbf{r} \cdot [\sigma(\mathbf{x} \cdot \boldsymbol{\beta}^T) \mathbf{I}_{D \times D}])",
       .reading = &kAlphaJacobianReading,
       .inputs = point_inputs(1, kTid + 250),
       .formula = "J(k, l) = tanh(x . beta) r_k delta_kl; dL/dalpha = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq18});
  r.add(
      {.id = "seednorm.eq.19",
       .location = "Appendix B.2, eq. 19",
       .statement = "multi-head: dF_k/dalpha_l = sigma(x_hi.beta_hi^T) r_k delta_kl (block "
                    "diagonal; its last two lines the same matrix under the alpha-jacobian "
                    "reading)",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::paper,
       .quote_line = 1016,
       .quote =
           R"(&= (\sigma(\mathbf{x}_{h_i} \cdot \boldsymbol{\beta}_{h_j}^T) r_k \cdot \delta_{kl})_{k,l=1..D})",
       .reading = &kAlphaJacobianReading,
       .inputs = point_inputs(2, kTid + 260),
       .formula = "J(k, l) = tanh(x_h . beta_h) r_k delta_kl, h the head of k; dL/dalpha = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point (H = 2)",
       .check = check_eq19});
  r.add(
      {.id = "seednorm.app.B2-prose",
       .location = "Appendix B.2 (file line 1010)",
       .statement = "multi-head: ds_k/dalpha_l = sigma(alpha_hi . beta_hj^T) when i = j",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 1010,
       .quote =
           R"(when $i = j$, $\frac{\partial s_k}{\partial \alpha_l} = \sigma(\boldsymbol{\alpha}_{h_i} \cdot \boldsymbol{\beta}_{h_j}^T)$.)",
       .inputs = point_inputs(2, kTid + 270),
       .formula = "J(k, l) = r_k tanh(alpha_h . beta_h) for k, l in head h, 0 across heads "
                  "(dF_k/dalpha_l = r_k ds_k/dalpha_l, eq. 18's third line); dL/dalpha = dy J; "
                  "also with x_h for alpha_h, and with x_h and delta_kl",
       .threshold = std::string(kFd50Threshold) +
                    " (a notation slip when the form with both slips undone holds)",
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point (H = 2); with both slips undone it equals "
                  "eq. 19's entrywise line",
       .check = check_b2_prose});
  r.add(
      {.id = "seednorm.eq.20",
       .location = "Appendix B.3, eq. 20",
       .statement = "dSeeDNorm/dbeta = sigma'(x.beta^T) (alpha (.) r)^T x",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::paper,
       .quote_line = 1046,
       .quote =
           R"(& = \sigma'(\mathbf{x} \cdot \boldsymbol{\beta}^T) \left((\boldsymbol{\alpha} \odot \mathbf{r})^T \cdot \mathbf{x} \right))",
       .inputs = point_inputs(1, kTid + 280),
       .formula = "J = sech^2(x . beta) (alpha (.) r)^T x; dL/dbeta = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq20});
  r.add(
      {.id = "seednorm.eq.21",
       .location = "Appendix B.3, eq. 21",
       .statement = "with sigma = tanh: (1 - tanh^2(x.beta^T)) (alpha (.) r)^T x",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 1052,
       .quote =
           R"($$\frac{\partial \text{SeeDNorm}(\mathbf{x})}{\partial \boldsymbol{\beta}} = (1 - \tanh^2(\mathbf{x} \cdot \boldsymbol{\beta}^T)) \left(\left(\boldsymbol{\alpha} \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})} \right)^T \cdot \mathbf{x} \right) \tag{21}$$)",
       .inputs = point_inputs(1, kTid + 290),
       .formula = "J = (1 - tanh^2(x . beta)) (alpha (.) r)^T x; dL/dbeta = dy J",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 "
                  "(eq. 15, eps = 0), at a random point",
       .check = check_eq21});
  r.add(
      {.id = "seednorm.eq.22",
       .location = "Appendix B.3, eq. 22 (last line, file line 1064)",
       .statement = "multi-head: dSeeDNorm/dbeta = (alpha (.) r)^T [sigma'(z_1) x_h1 ... "
                    "sigma'(z_n) x_hn], the bracket a 1 x D row",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::reading,
       .quote_line = 1064,
       .quote =
           R"(& = \left(\boldsymbol{\alpha} \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})} \right)^T \cdot [\sigma'(\mathbf{x}_{h_1} \cdot \boldsymbol{\beta}_{h_1}^T) \mathbf{x}_{h_1} \quad \dots \quad \sigma'(\mathbf{x}_{h_n} \cdot \boldsymbol{\beta}_{h_n}^T) \mathbf{x}_{h_n}])",
       .reading = &kHeadRowReading,
       .inputs = point_inputs(2, kTid + 300),
       .formula = "J = (alpha (.) r)^T [sech^2(z_h(l)) x_l]_l (full D x D outer product); "
                  "dL/dbeta = dy J; line 5 = J (.) head mask; line 3 with sech^4",
       .threshold = std::string(kFd50Threshold) +
                    " (a notation slip when line 5, the same with the head mask, holds)",
       .against =
           "50-digit central finite differences of SeeDNorm's forward typed from eq. 4/7 (eq. 15, "
           "eps = 0), at a random point (H = 2); the masked line 5 measured beside it (3.1e-36)",
       .check = check_eq22});
}

}  // namespace scaleref::audit
