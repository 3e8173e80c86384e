// smallinit Sec. 2.4 and Appendix A, the scale analysis at initialization:
// ||e||_2, ||RMSNorm(e)||_2, ||W||_2 and the residual flow ||h_L - e|| / ||e||,
// each as a power of d, fitted over widths on sampled Gaussians (the scaling
// notation's reading, readings.hpp).
#include <algorithm>
#include <cmath>
#include <scaleref/metrics/activations.hpp>
#include <scaleref/metrics/weights.hpp>
#include <string>
#include <vector>

#include "claims/smallinit/readings.hpp"
#include "claims/smallinit/smallinit.hpp"

namespace scaleref::audit {
namespace {

using namespace smallinit_claims;

// Residual flow ||h_L - e|| / ||e|| of an L-layer pre-norm stack
// h_{l+1} = h_l + W2_l silu(W1_l RMSNorm(h_l)) at width d, on `rows` tokens,
// every entry N(0, d^(-2 gamma)); the Frobenius norm over the tokens.
double residual_flow(std::uint64_t seed, long d, double gamma, int layers, long rows, double eps,
                     std::uint32_t tensor) {
  const double std = std::pow(static_cast<double>(d), -gamma);
  const Mat<double> e = gaussian(seed, rows, d, std, tensor);
  Mat<double> h = e;
  for (int l = 0; l < layers; ++l) {
    const Mat<double> w1 = gaussian(seed, d, d, std, tensor + 1 + 2 * l);
    const Mat<double> w2 = gaussian(seed, d, d, std, tensor + 2 + 2 * l);
    const Mat<double> u = matmul<double>(rms_normalize(h, eps), w1.transpose());
    const Mat<double> a = u.unaryExpr([](double z) { return z / (1 + std::exp(-z)); });
    h += matmul<double>(a, w2.transpose());
  }
  return metrics::residual_flow_ratio(h, e, metrics::TokenReduction::ratio_of_norms);
}

std::vector<long> widths(const Context& ctx) {
  if (ctx.thorough) return {64, 128, 256, 512, 1024, 2048};
  return {64, 128, 256, 512};
}

Verdict embedding_norm(const Context& ctx) {
  // ||e||_2 = Theta(d^(1/2 - gamma)) for e_i ~ N(0, d^(-2 gamma)): fitted
  // exponent over d against 1/2 - gamma, accepted within 0.05. One sampled
  // norm has relative spread ~1/sqrt(2 d): one embedding per d gave the slope
  // a standard error of ~0.04 over d = 64..512, so 0.05 failed at some seeds
  // (seed 3: 0.07). The RMS of kRows embeddings' norms has spread
  // ~1/sqrt(2 d kRows): a slope error of ~0.005, a tenth of the tolerance.
  double worst = 0;
  std::vector<Measure> m;
  for (double gamma : {0.5, 1.0, 1.5}) {
    std::vector<double> x, y;
    for (long d : widths(ctx)) {
      x.push_back(d);
      constexpr long kRows = 64;
      y.push_back(
          gaussian(ctx.seed, kRows, d, std::pow(static_cast<double>(d), -gamma), 110).norm() /
          std::sqrt(double(kRows)));
    }
    const Fit f = loglog_fit(x, y);
    worst = std::max(worst, std::abs(f.slope - (0.5 - gamma)));
    m.push_back({"slope_gamma_" + fixed(gamma, 2), f.slope});
  }
  m.push_back({"worst_slope_err", worst});
  const std::string detail = "gamma in {0.5, 1, 1.5}, d = 64.." +
                             std::to_string(widths(ctx).back()) +
                             ", RMS norm of 64 embeddings per d";
  if (worst <= 0.05) return holds_approximately("slope err " + sci(worst), detail, m);
  return fails(Fault::math_error, "slope err " + sci(worst), detail, m);
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
          std::abs(rms_normalize(gaussian(ctx.seed, 4, d, std::pow(double(d), -gamma), 120), 0.0)
                           .row(0)
                           .norm() /
                       std::sqrt(double(d)) -
                   1));
  std::vector<double> x, y;
  for (long d : widths(ctx)) {
    x.push_back(d);
    y.push_back(rms_normalize(gaussian(ctx.seed, 1, d, 1.0 / d, 121), 1e-5).norm());
  }
  const Fit f = loglog_fit(x, y);
  std::vector<Measure> m{{"worst_rel_err_eps0", worst}, {"slope_eps_1e-5_gamma_1", f.slope}};
  const std::string detail =
      "eps = 0: ||RMSNorm(e)|| = sqrt(d) exactly; with eps = 1e-5 at gamma = 1 "
      "the norm scales as d^" +
      fixed(f.slope, 2) + ", not d^0.5 (Appendix A drops eps)";
  if (worst <= 1e-13) return holds("rel err " + sci(worst), detail, m);
  return fails(Fault::math_error, "rel err " + sci(worst), detail, m);
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
      const Mat<double> w = gaussian(ctx.seed, d, d, std::pow(double(d), -gamma), 130);
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
  return fails(Fault::math_error, "slope err " + sci(worst), detail, m);
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
      y.push_back(residual_flow(ctx.seed, d, gamma, 4, 16, 0.0, 140));
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
  return fails(Fault::math_error, "slope err " + sci(worst), detail, m);
}

}  // namespace

void add_smallinit_scale_analysis_claims(Registrar& r) {
  r.add(
      {.id = "smallinit.app.embedding-norm",
       .location = "Appendix A",
       .statement = "||e||_2 = Theta(d^(1/2 - gamma)) for embedding entries N(0, d^(-2 gamma))",
       .kind = Kind::approximation,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 238,
       .quote =
           R"q(∥𝒆∥2=Θ\(d1/2−γ\)\.\\lVert\\bm\{e\}\\rVert\_\{2\}=\\Theta\(d^\{1/2\-\\gamma\}\)\.)q",
       .reading = &kScalingReading,
       .stochastic = true,
       .sized = true,
       .inputs = "gamma 0.5, 1, 1.5; 64 embeddings e (rows of a 64xd sample, entries "
                 "d^(-gamma) N(0,1), tensor 110) per d, d = 64, 128, 256, 512 (to 2048 with "
                 "--thorough)",
       .formula = "least-squares slope of log sqrt(mean over the 64 rows of ||e||_2^2) against "
                  "log d, per gamma, against 1/2 - gamma",
       .threshold = "holds approximately if every |slope - (1/2 - gamma)| <= 0.05 (the slope's "
                    "sampling error is ~0.005), fails otherwise",
       .against = "Monte Carlo of the project's Gaussian sampler (64 rows per d, d = 64..512, 3 "
                  "seeds), log-log slope",
       .trivial = "E||e||^2 = d d^(-2 gamma) is the paper's own one-line step; the check samples "
                  "N(0, d^(-2 gamma)) at the std it sets itself",
       .check = embedding_norm});
  r.add(
      {.id = "smallinit.app.rmsnorm-norm",
       .location = "Appendix A",
       .statement = "||RMSNorm(e)||_2 = Theta(d^(1/2)): RMSNorm removes the initialization scale",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::paper,
       .quote_line = 249,
       .quote =
           R"q(Thus RMSNorm removes the initialization scale of𝒆\\bm\{e\}and maps it to a vector with coordinate scaleO\(1\)O\(1\)and Euclidean normΘ\(d1/2\)\\Theta\(d^\{1/2\}\)\.)q",
       .reading = &kScalingReading,
       .sized = true,
       .inputs = "e 4xd with entries d^(-gamma) N(0,1) (tensor 120), gamma 0.5 and 1, d = 64, "
                 "128, 256, 512 (to 2048 with --thorough); for the eps = 1e-5 slope one e 1xd "
                 "with entries N(0,1) / d (tensor 121)",
       .formula = "reference RMSNorm (eps = 0, gain 1): ||RMSNorm(e)_row0||_2 / sqrt(d) - 1; "
                  "beside it the log-log slope of ||RMSNorm_eps(e)|| in d at eps = 1e-5, "
                  "gamma = 1",
       .threshold = "holds if the worst |ratio - 1| <= 1e-13 (a few ulps per entry over d), "
                    "fails otherwise; the eps = 1e-5 slope is reported, not judged",
       .against = "scaleref's reference RMSNorm (eps = 0) against sqrt(d)",
       .trivial = "||e / RMS(e)||_2 = sqrt(d) by the definition of RMS (eps = 0)",
       .check = rmsnorm_norm});
  r.add(
      {.id = "smallinit.app.spectral-norm",
       .location = "Appendix A",
       .statement = "||W||_2 = Theta(d^(1/2 - gamma)) for a d x d W with N(0, d^(-2 gamma)) "
                    "entries",
       .kind = Kind::approximation,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 253,
       .quote =
           R"q(∥𝑾∥2=Θ\(d1/2−γ\)\.\\lVert\\bm\{W\}\\rVert\_\{2\}=\\Theta\(d^\{1/2\-\\gamma\}\)\.)q",
       .reading = &kScalingReading,
       .stochastic = true,
       .sized = true,
       .inputs = "gamma 0.5 and 1; one W dxd with entries d^(-gamma) N(0,1) per d (tensor 130), "
                 "d = 64, 128, 256, 512 (to 2048 with --thorough)",
       .formula = "metrics::spectral_norm (power iteration, tol 1e-6); least-squares slope of "
                  "log ||W||_2 against log d per gamma, against 1/2 - gamma; ||W||_2 / d^(1/2 "
                  "- gamma) at the largest d reported (Bai-Yin: 2)",
       .threshold = "holds approximately if every |slope - (1/2 - gamma)| <= 0.05 (the "
                    "O(d^(-2/3)) edge correction moves it ~0.02), fails otherwise",
       .against = "power iteration on sampled d x d Gaussian matrices (d = 64..512, 3 seeds), "
                  "log-log slope, and the constant against Bai-Yin's 2",
       .check = spectral_norm_scale});
  r.add(
      {.id = "smallinit.app.residual-flow",
       .location = "Sec. 2.4, Appendix A, Fig. 3a",
       .statement = "||h_L - e||_2 / ||e||_2 ~ d^(1 - gamma) for a pre-norm stack under small "
                    "initialization",
       .kind = Kind::approximation,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 87,
       .quote =
           R"q(Under small initialization, its relative scale satisfies‖𝒉L−𝒆‖2/‖𝒆‖2≍d1−γ\\\|\\bm\{h\}\_\{L\}\-\\bm\{e\}\\\|\_\{2\}/\\\|\\bm\{e\}\\\|\_\{2\}\\asymp d^\{1\-\\gamma\})q",
       .reading = &kScalingReading,
       .stochastic = true,
       .sized = true,
       .inputs = "gamma 0.5, 0.75, 1, 1.25; 16 tokens; L = 4 blocks; e and every W1, W2 (dxd) "
                 "entries d^(-gamma) N(0,1) (tensors 140..148), d = 64, 128, 256, 512 (to 2048 "
                 "with --thorough); eps = 0",
       .formula = "h_{l+1} = h_l + W2_l silu(W1_l RMSNorm(h_l)); metrics::residual_flow_ratio "
                  "||h_L - e||_F / ||e||_F; least-squares slope of its log against log d, per "
                  "gamma, against 1 - gamma",
       .threshold = "holds approximately if every |slope - (1 - gamma)| <= 0.1 (O(1) factors "
                    "that drift with d), fails otherwise",
       .against = "forward simulation of a random 4-layer pre-norm stack W2 silu(W1 RMSNorm(h)) at "
                  "d = 64..512, 16 tokens, 3 seeds, log-log slope",
       .check = residual_flow_exponent});
}

}  // namespace scaleref::audit
