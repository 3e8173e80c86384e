// The rescale paper, Sec. 2.3 (eq. 8-16): the initializers.
//
// The variance each law states is recomputed in 50 digits from the paper's
// formula and compared with the reference's law
// (reference/include/scaleref/init/initializers.hpp), and a matrix drawn by
// init::draw is compared with it: sample mean and variance at 5 standard errors
// (the SEs from the law's own fourth moment), the family by its bound (uniform)
// or its kurtosis (normal, SE sqrt(24 / n)). With ~20 z-scores per run,
// P(any |z| > 5) ~ 1e-5 for a correct sampler. These are checks of our code
// against its transcription of the paper's laws (basis conformance); Kaiming's
// ReLU purpose and LIR's prose are statements of the paper.
//
// Tensor ids: 4000-4699 (rescale.sec.2.3.2.relu-variance's matrices are 4200 + 100 rep + l:
// up to 4908 by default, 7308 with --thorough's 32 replicates, past the paper's 4000-4999).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <scaleref/init/initializers.hpp>
#include <string>
#include <vector>

#include "claims/rescale/readings.hpp"
#include "claims/rescale/rescale.hpp"

namespace scaleref::audit {

namespace {

using namespace rescale_paper;
using init::Role;
using init::Shape;

// ---- initializers ---------------------------------------------------------------

struct LawCase {
  std::string name;  // "[256x384] query l=1"
  Shape shape;
  int layer;
  Real50 variance;  // the paper's variance, recomputed in 50 digits
  init::Family family;
};

struct LawCheck {
  double formula_err = 0;  // |std^2 (reference, double) - variance (50 digits)| / variance
  double z_mean = 0, z_var = 0, z_kurt = 0;  // worst |z|
  double bound_excess = -1;                  // uniform: max|w| / b - 1 (must be < 0)
  double bound_gap = 0;                      // uniform: 1 - max|w| / b (must be ~1/n)
  std::vector<Measure> measured;
};

// Checks every case; tensor ids from `tensor` up, on the run's seed.
LawCheck check_laws(std::uint64_t seed, const init::Config& config,
                    const std::vector<LawCase>& cases, std::uint32_t tensor) {
  LawCheck r;
  for (const LawCase& c : cases) {
    const init::Law law = init::law(c.shape, c.layer, config);
    const double var = d_(c.variance);
    r.formula_err = std::max(r.formula_err,
                             d_(abs(Real50(law.std) * Real50(law.std) - c.variance) / c.variance));
    const M W = init::draw<double>(c.shape, c.layer, config, random::Stream{seed, tensor++});
    const double n = static_cast<double>(W.size());
    double mean = 0, maxabs = 0;
    for (long i = 0; i < W.size(); ++i) {
      mean += W.data()[i];
      maxabs = std::max(maxabs, std::abs(W.data()[i]));
    }
    mean /= n;
    double m2 = 0, m4 = 0;  // about the law's mean 0
    for (long i = 0; i < W.size(); ++i) {
      const double w2 = W.data()[i] * W.data()[i];
      m2 += w2;
      m4 += w2 * w2;
    }
    m2 /= n;
    m4 /= n;
    // The law's fourth moment: 3 var^2 (normal), b^4 / 5 = 9 var^2 / 5 (uniform).
    const double law_m4 = c.family == init::Family::normal ? 3 * var * var : 1.8 * var * var;
    const double zm = mean / std::sqrt(var / n);
    const double zv = (m2 - var) / std::sqrt((law_m4 - var * var) / n);
    r.z_mean = std::max(r.z_mean, std::abs(zm));
    r.z_var = std::max(r.z_var, std::abs(zv));
    r.measured.push_back({"z_var " + c.name, zv});
    r.measured.push_back({"sample_var/law_var " + c.name, m2 / var});
    if (c.family == init::Family::normal) {
      // Sample kurtosis m4 / m2^2 vs 3, SE sqrt(24 / n).
      const double zk = (m4 / (m2 * m2) - 3) / std::sqrt(24 / n);
      r.z_kurt = std::max(r.z_kurt, std::abs(zk));
    } else {
      const double b = d_(sqrt(3 * c.variance));
      r.bound_excess = std::max(r.bound_excess, maxabs / b - 1);
      r.bound_gap = std::max(r.bound_gap, (1 - maxabs / b) * n);
    }
  }
  r.measured.push_back({"formula_rel_err", r.formula_err});
  r.measured.push_back({"max_abs_z_mean", r.z_mean});
  r.measured.push_back({"max_abs_z_var", r.z_var});
  if (r.z_kurt > 0) r.measured.push_back({"max_abs_z_kurtosis", r.z_kurt});
  if (r.bound_excess > -1) {
    r.measured.push_back({"max_abs_over_bound_minus_1", r.bound_excess});
    r.measured.push_back({"n_times_bound_gap", r.bound_gap});
  }
  return r;
}

// The verdict: the reference's law equals the recomputed variance to double
// rounding (a sqrt and a square: 1e-15 relative), the samples sit within 5
// SEs, a uniform law's samples stay strictly inside the bound and reach within
// 20 / n of it (P(all |w| < b (1 - 20/n)) = e^-20), and `extra` (a further exact
// identity in 50 digits, e.g. eq. 8's variance = eq. 9's) is below 1e-45.
Verdict law_verdict(const LawCheck& r, const std::string& regime, double extra = 0,
                    const std::string& extra_name = "") {
  std::vector<Measure> m = r.measured;
  if (!extra_name.empty()) m.push_back({extra_name, extra});
  const bool ok = r.formula_err <= 1e-15 && r.z_mean <= 5 && r.z_var <= 5 && r.z_kurt <= 5 &&
                  r.bound_excess < 0 && (r.bound_excess == -1 || r.bound_gap <= 20) &&
                  extra <= 1e-45;
  const std::string fig = "var |z| " + fixed(r.z_var, 2) + ", formula " + sci(r.formula_err);
  const std::string detail =
      regime + "; worst |z|: mean " + fixed(r.z_mean, 2) + ", var " + fixed(r.z_var, 2) +
      (r.z_kurt > 0 ? ", kurtosis " + fixed(r.z_kurt, 2) : "") +
      (r.bound_excess > -1 ? ", max|w|/b - 1 = " + sci(r.bound_excess) : "") +
      (extra_name.empty() ? "" : "; " + extra_name + " " + sci(extra));
  if (ok) return holds(fig, detail, m);
  return fails(Fault::math_error, fig, detail + " (threshold 5 SE / 1e-15 formula)", m);
}

Real50 R(long v) { return Real50(v); }

// Two shapes every law is sampled at (98304 entries each).
std::vector<LawCase> two_shapes(const std::function<Real50(long, long)>& var, init::Family f) {
  return {{"[256x384] query l=1", {256, 384, Role::query}, 1, var(384, 256), f},
          {"[1024x96] up l=3", {1024, 96, Role::up}, 3, var(96, 1024), f}};
}

Verdict eq8(const Context& ctx) {
  // eq. 8: U(-b, b), b = sqrt(6 / (n_in + n_out)): variance b^2 / 3.
  auto v = [](long nin, long nout) {
    const Real50 b = sqrt(Real50(6) / R(nin + nout));
    return b * b / 3;
  };
  const LawCheck r =
      check_laws(ctx.seed, init::XavierUniform{}, two_shapes(v, init::Family::uniform), 4000);
  // ... which is eq. 9's 2 / (n_in + n_out): the two Xavier laws share a variance.
  const double same = d_(abs(v(384, 256) - Real50(2) / R(640)) / (Real50(2) / R(640)));
  return law_verdict(r, "b^2/3 = 2/(n_in+n_out); 2 x 98304 draws", same, "rel_diff_var_eq8_vs_eq9");
}

Verdict eq9(const Context& ctx) {
  auto v = [](long nin, long nout) { return Real50(2) / R(nin + nout); };
  return law_verdict(
      check_laws(ctx.seed, init::XavierNormal{}, two_shapes(v, init::Family::normal), 4010),
      "N(0, 2/(n_in+n_out)); 2 x 98304 draws");
}

Verdict eq10(const Context& ctx) {
  auto v = [](long nin, long) { return Real50(2) / R(nin); };
  return law_verdict(
      check_laws(ctx.seed, init::KaimingNormal{}, two_shapes(v, init::Family::normal), 4020),
      "N(0, 2/n_in); 2 x 98304 draws");
}

Verdict eq11(const Context& ctx) {
  auto v = [](long nin, long) {
    const Real50 b = sqrt(Real50(6) / R(nin));
    return b * b / 3;
  };
  const LawCheck r =
      check_laws(ctx.seed, init::KaimingUniform{}, two_shapes(v, init::Family::uniform), 4030);
  const double same = d_(abs(v(384, 0) - Real50(2) / R(384)) / (Real50(2) / R(384)));
  return law_verdict(r, "b = sqrt(6/n_in), b^2/3 = 2/n_in; 2 x 98304 draws", same,
                     "rel_diff_var_eq11_vs_eq10");
}

// Kaiming's purpose (Sec. 2.3.2): with ReLU, y_l = W_l relu(y_{l-1}) keeps
// E[y^2] across layers; Xavier (n_in = n_out) halves it per layer.
Verdict relu_variance(const Context& ctx) {
  const long B = 256, n = 128, L = 8;
  const int reps = ctx.thorough ? 32 : 8;
  auto run = [&](const init::Config& cfg, int rep) {
    M y = gaussian(ctx.seed, B, n, 1.0, 4100 + static_cast<std::uint32_t>(rep));
    const double e0 = y.squaredNorm() / double(y.size());
    for (long l = 1; l <= L; ++l) {
      const M W = init::draw<double>(
          {n, n, Role::up}, int(l), cfg,
          random::Stream{ctx.seed, static_cast<std::uint32_t>(4200 + 100 * rep + l)});
      y = M(y.cwiseMax(0.0)) * W.transpose();
    }
    return (y.squaredNorm() / double(y.size())) / e0;
  };
  double sum = 0, sum2 = 0, xsum = 0;
  for (int r = 0; r < reps; ++r) {
    const double v = run(init::KaimingNormal{}, r);
    sum += v;
    sum2 += v * v;
    xsum += run(init::XavierNormal{}, r);
  }
  const double mean = sum / reps, sd = std::sqrt(std::max(0.0, sum2 / reps - mean * mean)),
               se = sd / std::sqrt(double(reps - 1)), xavier = xsum / reps;
  std::vector<Measure> m{{"kaiming_ratio_E_y2", mean},
                         {"kaiming_ratio_se", se},
                         {"xavier_ratio_E_y2", xavier},
                         {"xavier_ratio_times_2^L", xavier * std::pow(2.0, double(L))}};
  // Holds approximately when the measured ratio is 1 within 5 SEs (SE from the
  // spread over independent replicates: the ratio fluctuates with the finite
  // width and batch, so it is only approximately 1).
  const std::string regime = std::to_string(L) + " ReLU layers, width " + std::to_string(n) +
                             ", batch " + std::to_string(B) + ", " + std::to_string(reps) +
                             " replicates";
  const std::string fig = "E[y_L^2]/E[y_0^2] = " + fixed(mean, 3) + " +- " + fixed(se, 3);
  if (std::abs(mean - 1) <= 5 * se)
    return holds_approximately(fig,
                               regime + "; Xavier-normal gives " + sci(xavier) + " (= 2^-" +
                                   std::to_string(L) + " x " +
                                   fixed(xavier * std::pow(2.0, double(L)), 3) + ")",
                               m);
  return fails(Fault::math_error, fig,
               regime + ": the ratio is " + fixed((mean - 1) / se, 1) + " SEs from 1", m);
}

Verdict eq12(const Context& ctx) {
  const double sigma = 0.02;
  const int N = 12;
  const Real50 s2 = Real50(sigma) * Real50(sigma);
  const init::SIR cfg{sigma, N};
  const std::vector<LawCase> cases{
      {"[768x3072] ffn_output l=12",
       {768, 3072, Role::ffn_output},
       12,
       s2 / (2 * N),
       init::Family::normal},
      {"[768x768] attention_output l=1",
       {768, 768, Role::attention_output},
       1,
       s2 / (2 * N),
       init::Family::normal},
      {"[768x768] query l=5", {768, 768, Role::query}, 5, s2, init::Family::normal},
      {"[1000x96] embedding", {1000, 96, Role::embedding}, 0, s2, init::Family::normal}};
  const LawCheck r = check_laws(ctx.seed, cfg, cases, 4300);
  // GPT-2 scales by 1/sqrt(number of residual layers); with N = decoder
  // blocks there are 2N residual projections and their variances sum to sigma^2.
  const double sum_err =
      d_(abs(2 * N * Real50(init::target_std({768, 768, Role::attention_output}, 1, cfg)) *
                 Real50(init::target_std({768, 768, Role::attention_output}, 1, cfg)) -
             s2) /
         s2);
  Verdict v = law_verdict(r,
                          "sigma 0.02, N = 12 decoder blocks; N read as blocks (GPT-2's code: "
                          "0.02/sqrt(2 n_layer)); read as the 2N residual layers GPT-2's paper "
                          "counts, eq. 12 would give 1/sqrt(2) of that std",
                          0, "");
  v.measured.push_back({"rel_err_2N_residual_variances_sum_vs_sigma2", sum_err});
  if (sum_err > 1e-15 && v.status == Status::holds)
    v = fails(Fault::math_error, v.figure,
              v.detail + "; 2N variances do not sum to sigma^2: " + sci(sum_err), v.measured);
  return v;
}

Verdict eq14(const Context& ctx) {
  const double alpha = 0.5;
  const init::DSInit cfg{alpha};
  auto v = [&](long nin, long nout, long l) {
    const Real50 beta = sqrt(Real50(6) / R(nin + nout));  // eq. 15
    const Real50 b = beta * Real50(alpha) / sqrt(R(l));   // eq. 14
    return b * b / 3;
  };
  const Real50 beta_emb = sqrt(Real50(6) / R(1000 + 96));
  const std::vector<LawCase> cases{
      {"[256x384] gate l=1", {256, 384, Role::gate}, 1, v(384, 256, 1), init::Family::uniform},
      {"[256x384] gate l=4", {256, 384, Role::gate}, 4, v(384, 256, 4), init::Family::uniform},
      {"[256x384] gate l=9", {256, 384, Role::gate}, 9, v(384, 256, 9), init::Family::uniform},
      {"[1000x96] embedding (eq. 13)",
       {1000, 96, Role::embedding},
       0,
       beta_emb * beta_emb / 3,
       init::Family::uniform}};
  return law_verdict(check_laws(ctx.seed, cfg, cases, 4400),
                     "alpha 0.5, l = 1, 4, 9; variance beta^2 alpha^2 / (3 l); eq. 13 outside "
                     "the layers (project's reading)");
}

Verdict eq16(const Context& ctx) {
  const double sigma = 0.02;
  const Real50 s2 = Real50(sigma) * Real50(sigma);
  const std::vector<LawCase> cases{
      {"[256x384] ffn_output l=1", {256, 384, Role::ffn_output}, 1, s2, init::Family::normal},
      {"[256x384] ffn_output l=4", {256, 384, Role::ffn_output}, 4, s2 / 4, init::Family::normal},
      {"[256x384] ffn_output l=16",
       {256, 384, Role::ffn_output},
       16,
       s2 / 16,
       init::Family::normal},
      {"[1000x96] head", {1000, 96, Role::head}, 0, s2, init::Family::normal}};
  return law_verdict(check_laws(ctx.seed, init::LIR{sigma}, cases, 4500),
                     "sigma 0.02, l = 1, 4, 16 (l from 1), head keeps sigma^2; variance "
                     "decreases with depth");
}

// Sec. 2.3.6's prose: "the weight is scaled by sqrt(l) after being initialized
// from a Gaussian of standard deviation sigma", read as a multiplication.
// Eq. 16 (and the authors' code) divide by sqrt(l): the prose fails as
// written, and holds once its sqrt(l) is read as 1/sqrt(l) (a notation slip)
// when the measured std matches sigma / sqrt(l) within 5 SEs.
Verdict lir_prose(const Context& ctx) {
  const double sigma = 0.02;
  const int l = 16;
  const M W = init::draw<double>({256, 384, Role::ffn_output}, l, init::LIR{sigma},
                                 random::Stream{ctx.seed, 4600});
  const double sd = std::sqrt(W.squaredNorm() / double(W.size()));
  const double ratio = sd / sigma;  // eq. 16: 1/sqrt(l) = 0.25; the prose: sqrt(l) = 4
  const double se = ratio * std::sqrt(0.5 / double(W.size()));  // SE of a sample std
  const double z_corrected = (ratio - 1 / std::sqrt(double(l))) / se;
  std::vector<Measure> m{{"std_over_sigma_l16", ratio},
                         {"prose_factor", std::sqrt(double(l))},
                         {"eq16_factor", 1 / std::sqrt(double(l))},
                         {"se", se},
                         {"z_vs_corrected_factor", z_corrected}};
  const std::string fig = "std/sigma " + fixed(ratio, 4) + " vs prose " + fixed(std::sqrt(l), 1);
  if (std::abs(ratio - std::sqrt(double(l))) <= 5 * se)
    return holds(fig, "l = 16: the weights are multiplied by sqrt(l)", m);
  const std::string measured =
      "l = 16, 98304 draws: eq. 16 (and the authors' code) divide the "
      "std by sqrt(l) = 4 (measured " +
      fixed(ratio, 4) + " = 1/" + fixed(1 / ratio, 3) + ")";
  if (std::abs(z_corrected) <= 5)
    return fails(Fault::notation_slip,
                 {"the prose says LIR's weights are 'scaled by sqrt(l)' where eq. 16 divides "
                  "their std by sqrt(l)",
                  "scaled by 1/sqrt(l)"},
                 fig,
                 measured +
                     "; slip: 'scaled by \\sqrt{l}' for 'scaled by 1/\\sqrt{l}' (divided "
                     "by sqrt(l)); the corrected form holds: std/sigma within " +
                     fixed(std::abs(z_corrected), 2) + " SE of 1/sqrt(16) = 0.25",
                 m);
  return fails(Fault::math_error, fig,
               measured + "; neither sqrt(l) nor 1/sqrt(l) (" + fixed(z_corrected, 1) + " SE)", m);
}

}  // namespace

void add_rescale_init_laws_claims(Registrar& r) {
  r.add({.id = "rescale.eq.8",
         .location = "eq. 8 (Sec. 2.3.1)",
         .statement = "Xavier uniform: W ~ U(-sqrt(6/(n_in+n_out)), +sqrt(6/(n_in+n_out))), "
                      "variance 2/(n_in+n_out) (the same as eq. 9)",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 96,
         .quote = "$$W \\sim \\mathcal{U}\\left(-\\sqrt{\\frac{6}{n_{\\rm in}+n_{\\rm out}}}, "
                  "\\sqrt{\\frac{6}{n_{\\rm in}+n_{\\rm out}}}\\right).$$",
         .inputs = "init::XavierUniform law and init::draw at [256x384] query l=1 and [1024x96] "
                   "up l=3 (98304 draws each, tensors 4000-4001 on the run's seed)",
         .formula = "variance b^2/3 with b = sqrt(6/(n_in+n_out)) in 50 digits vs law.std^2; "
                    "sample mean, variance (SE from m4 = 9 var^2/5), max|w| vs b; b^2/3 vs eq. "
                    "9's 2/(n_in+n_out)",
         .threshold = "holds if formula rel err <= 1e-15, |z| mean and variance <= 5, max|w| < b "
                      "and within 20/n of b, eq. 8 vs eq. 9 variance <= 1e-45",
         .against =
             "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and kurtosis "
             "or bound) computed in the check at 5 SE, against the variance typed from eq. 8 "
             "in 50 digits; plus b^2/3 = 2/(n_in+n_out) (eq. 9) exactly in 50 digits",
         .check = eq8});
  r.add(
      {.id = "rescale.eq.9",
       .location = "eq. 9 (Sec. 2.3.1)",
       .statement = "Xavier normal: W ~ N(0, 2/(n_in+n_out))",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::conformance,
       .quote_line = 101,
       .quote = "$$W \\sim \\mathcal{N}\\left(0, \\frac{2}{n_{\\rm in} + n_{\\rm out}}\\right).$$",
       .inputs = "init::XavierNormal law and init::draw at [256x384] query l=1 and [1024x96] up "
                 "l=3 (98304 draws each, tensors 4010-4011)",
       .formula = "variance 2/(n_in+n_out) in 50 digits vs law.std^2; sample mean, variance (SE "
                  "from m4 = 3 var^2), kurtosis m4/m2^2 vs 3 (SE sqrt(24/n))",
       .threshold = "holds if formula rel err <= 1e-15 and every |z| (mean, variance, kurtosis) "
                    "<= 5",
       .against = "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and kurtosis "
                  "or bound) computed in the check at 5 SE, against the variance typed from eq. 9 "
                  "in 50 digits",
       .check = eq9});
  r.add({.id = "rescale.eq.10",
         .location = "eq. 10 (Sec. 2.3.2)",
         .statement = "Kaiming normal: W ~ N(0, 2/n_in)",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 114,
         .quote = "$$W \\sim \\mathcal{N}\\left(0, \\frac{2}{n_{\\rm in}}\\right).$$",
         .inputs = "init::KaimingNormal law and init::draw at [256x384] query l=1 and [1024x96] "
                   "up l=3 (98304 draws each, tensors 4020-4021)",
         .formula = "variance 2/n_in in 50 digits vs law.std^2; sample mean, variance, kurtosis",
         .threshold = "holds if formula rel err <= 1e-15 and every |z| (mean, variance, kurtosis) "
                      "<= 5",
         .against = "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and "
                    "kurtosis or bound) computed in the check at 5 SE, against the variance typed "
                    "from eq. 10 in 50 digits",
         .check = eq10});
  r.add({.id = "rescale.eq.11",
         .location = "eq. 11 (Sec. 2.3.2)",
         .statement = "Kaiming uniform: W ~ U(-sqrt(6/n_in), +sqrt(6/n_in)), variance 2/n_in (the "
                      "same as eq. 10)",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 119,
         .quote = "$$W \\sim \\mathcal{U}\\left(-\\sqrt{\\frac{6}{n_{\\rm in}}}, "
                  "\\sqrt{\\frac{6}{n_{\\rm in}}}\\right).$$",
         .inputs = "init::KaimingUniform law and init::draw at [256x384] query l=1 and [1024x96] "
                   "up l=3 (98304 draws each, tensors 4030-4031)",
         .formula = "variance b^2/3 with b = sqrt(6/n_in) in 50 digits vs law.std^2; sample mean, "
                    "variance, max|w| vs b; b^2/3 vs eq. 10's 2/n_in",
         .threshold = "holds if formula rel err <= 1e-15, |z| mean and variance <= 5, max|w| < b "
                      "and within 20/n of b, eq. 11 vs eq. 10 variance <= 1e-45",
         .against = "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and "
                    "kurtosis or bound) computed in the check at 5 SE, against the variance typed "
                    "from eq. 11 in 50 digits; plus b^2/3 = 2/n_in (eq. 10) exactly in 50 digits",
         .check = eq11});
  r.add({.id = "rescale.sec.2.3.2.relu-variance",
         .location = "Sec. 2.3.2",
         .statement = "Kaiming initialization keeps the variance of the outputs consistent across "
                      "ReLU layers",
         .kind = Kind::approximation,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 122,
         .quote = "This initialization strategy ensures that the variance of the outputs remains "
                  "consistent across layers",
         .stochastic = true,
         .sized = true,
         .inputs = "y_0 [256x128] N(0,1) (tensor 4100+rep); 8 layers of [128x128] Kaiming-normal "
                   "(and, as contrast, Xavier-normal) matrices (tensors 4200+100 rep+l); 8 "
                   "replicates (32 with --thorough)",
         .formula = "y_l = relu(y_{l-1}) W_l^T; ratio E[y_8^2]/E[y_0^2] averaged over the "
                    "replicates, SE = sd/sqrt(reps-1)",
         .threshold = "holds approximately if |ratio - 1| <= 5 SE; fails otherwise",
         .against = "Monte Carlo forward pass y_l = relu(y_{l-1}) W_l^T through 8 ReLU layers "
                    "(width 128, batch 256), 8 replicates (32 with --thorough), SE from the "
                    "replicate spread; Xavier-normal as contrast (2^-8 x 1.126)",
         .check = relu_variance});
  r.add({.id = "rescale.eq.12",
         .location = "eq. 12 (Sec. 2.3.4)",
         .statement = "GPT-2's special residual init: the last linear map of each MLP and "
                      "attention layer ~ N(0, sigma^2/(2N)), N the number of layers; every other "
                      "matrix keeps N(0, sigma^2)",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 138,
         .quote = "$$W \\sim \\mathcal{N}\\left(0, \\frac{\\sigma^2}{2N}\\right).$$",
         .reading = &kSirLayersReading,
         .inputs = "init::SIR{0.02, N = 12}: [768x3072] ffn_output l=12, [768x768] "
                   "attention_output l=1, [768x768] query l=5, [1000x96] embedding (tensors "
                   "4300-4303)",
         .formula = "variance sigma^2/(2N) on the residual output maps, sigma^2 elsewhere, in 50 "
                    "digits vs law.std^2; samples as eq. 9; 2N target_std^2 vs sigma^2",
         .threshold = "holds if formula rel err <= 1e-15, every |z| <= 5 and the 2N residual "
                      "variances sum to sigma^2 within 1e-15",
         .against = "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and "
                    "kurtosis or bound) computed in the check at 5 SE, against the variance typed "
                    "from eq. 12 in 50 digits; residual maps sigma^2/(2N), others sigma^2",
         .check = eq12});
  r.add({.id = "rescale.eq.14",
         .location = "eq. 13-15 (Sec. 2.3.5)",
         .statement = "DS-Init: U(-beta alpha/sqrt(l), beta alpha/sqrt(l)), beta = "
                      "sqrt(6/(n_in+n_out)) inside layer l (eq. 13's U(-beta, beta) otherwise): "
                      "variance beta^2 alpha^2 / (3 l)",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 151,
         .quote = "$$\\mathbf{W} \\in \\mathbb{R}^{n_{\\text{in}} \\times n_{\\text{out}}} "
                  "\\sim \\mathcal{U}\\left(-\\frac{\\beta\\alpha}{\\sqrt{l}}, "
                  "\\frac{\\beta\\alpha}{\\sqrt{l}}\\right),\\tag{14}$$",
         .reading = &kLayerIndexReading,
         .inputs = "init::DSInit{alpha 0.5}: [256x384] gate at l = 1, 4, 9 and [1000x96] "
                   "embedding (tensors 4400-4403)",
         .formula = "variance b^2/3 with b = beta alpha / sqrt(l), beta = sqrt(6/(n_in+n_out)) "
                    "(eq. 15), in 50 digits; the embedding: beta^2/3 (eq. 13); samples as eq. 8",
         .threshold = "holds if formula rel err <= 1e-15, |z| mean and variance <= 5, max|w| < b "
                      "and within 20/n of b",
         .against =
             "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and kurtosis "
             "or bound) computed in the check at 5 SE, against the variance typed from eq. "
             "13-15 in 50 digits; gate at l = 1, 4, 9 and the embedding under eq. 13",
         .check = eq14});
  r.add({.id = "rescale.eq.16",
         .location = "eq. 16 (Sec. 2.3.6)",
         .statement = "Layer Index Rescaling: W ~ N(0, sigma^2 / l) in decoder layer l (l from "
                      "1): the variance decreases with depth",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 163,
         .quote = "$$\\mathbf{W} \\in \\mathbb{R}^{n_{\\text{in}} \\times n_{\\text{out}}} "
                  "\\sim \\mathcal{N}\\left(0, \\frac{\\sigma^2}{l}\\right),\\tag{16}$$",
         .reading = &kLayerIndexReading,
         .inputs = "init::LIR{0.02}: [256x384] ffn_output at l = 1, 4, 16 and [1000x96] head "
                   "(tensors 4500-4503)",
         .formula = "variance sigma^2/l (sigma^2 for the head) in 50 digits vs law.std^2; "
                    "samples as eq. 9",
         .threshold = "holds if formula rel err <= 1e-15 and every |z| (mean, variance, kurtosis) "
                      "<= 5",
         .against = "Monte Carlo, 2 x 98304 draws of init::draw, sample mean/variance (and "
                    "kurtosis or bound) computed in the check at 5 SE, against the variance typed "
                    "from eq. 16 in 50 digits; ffn_output at l = 1, 4, 16 and the head at sigma^2",
         .check = eq16});
  r.add({.id = "rescale.sec.2.3.6.prose-scaled-by-sqrt-l",
         .location = "Sec. 2.3.6, after eq. 16",
         .statement = "\"In practice, this means the weight is scaled by sqrt(l) after being "
                      "initialized from a Gaussian distribution of standard deviation sigma\"",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 165,
         .quote = "In practice, this means the weight is scaled by \\sqrt{l} after being "
                  "initialized from a Gaussian distribution of standard deviation σ .",
         .reading = &kLayerIndexReading,
         .inputs = "init::draw under init::LIR{0.02} at [256x384] ffn_output, l = 16 (98304 "
                   "draws, tensor 4600)",
         .formula = "ratio = sample std / sigma against the prose's sqrt(l) = 4 and eq. 16's "
                    "1/sqrt(l) = 0.25; SE = ratio sqrt(1/(2n))",
         .threshold = "holds if |ratio - sqrt(l)| <= 5 SE; else a notation slip (sqrt(l) for "
                      "1/sqrt(l)) if |ratio - 1/sqrt(l)| <= 5 SE; else a mathematical error",
         .against = "eq. 16 as the paper prints it (the std divided by sqrt(l)); the project's LIR "
                    "sampler, which implements eq. 16, sampled beside (98304 draws, 5 SE)",
         .check = lir_prose});
}

}  // namespace scaleref::audit
