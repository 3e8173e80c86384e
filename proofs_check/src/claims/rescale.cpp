// The rescale paper's claims (see proofs_check/include/scaleref/audit/claim.hpp).
//
// Initializers (Sec. 2.3, eq. 8-16): the variance each law states is
// recomputed in 50 digits from the paper's formula and compared with the
// reference's law (reference/include/scaleref/init/initializers.hpp), and a
// matrix drawn by init::draw is compared with it: sample mean and variance at
// 5 standard errors (the SEs from the law's own fourth moment), the family by
// its bound (uniform) or its kurtosis (normal, SE sqrt(24 / n)). With ~20
// z-scores per run, P(any |z| > 5) ~ 1e-5 for a correct sampler.
// Rescaling (Sec. 2.4, eq. 17-21): the post-conditions of the reference's
// rescale functions (reference/include/scaleref/init/rescale.hpp) in 50 digits.
//
// Training dynamics (Sec. 4.1 Fig. 1, Appendix 6.2.1): recomputed on the tiny
// LM (reference/include/scaleref/lm/, train/trainer.hpp) trained on the
// synthetic grammar with AdamW, a short run with the product lr x weight_decay
// scaled up so that decay acts within it (see lm_growth below).
//
// The tables (Tables 2, 3, 5, 6, 7: downstream accuracies of the 1B runs):
// transcribed from shared/papers/weight_rescaling.txt, their Mean and
// Delta_base columns recomputed within the printed rounding, rows repeated
// across tables compared, and the prose sentences that cite a table decided on
// its numbers (see paper_tables below).
//
// Tensor ids: 4000-4999.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <scaleref/audit/registry.hpp>
#include <scaleref/init/initializers.hpp>
#include <scaleref/init/rescale.hpp>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/train/trainer.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support.hpp"

namespace scaleref::audit {

namespace {

using M = Mat<double>;
using M50 = Mat<Real50>;
using init::Role;
using init::Shape;

double d_(const Real50& v) { return static_cast<double>(v); }

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

// Checks every case; tensor ids from `tensor` up.
LawCheck check_laws(const init::Config& config, const std::vector<LawCase>& cases,
                    std::uint32_t tensor) {
  LawCheck r;
  for (const LawCase& c : cases) {
    const init::Law law = init::law(c.shape, c.layer, config);
    const double var = d_(c.variance);
    r.formula_err = std::max(r.formula_err,
                             d_(abs(Real50(law.std) * Real50(law.std) - c.variance) / c.variance));
    const M W = init::draw<double>(c.shape, c.layer, config, random::Stream{kAuditSeed, tensor++});
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
  return fails(fig, detail + " (threshold 5 SE / 1e-15 formula)", m);
}

Real50 R(long v) { return Real50(v); }

// Two shapes every law is sampled at (98304 entries each).
std::vector<LawCase> two_shapes(const std::function<Real50(long, long)>& var, init::Family f) {
  return {{"[256x384] query l=1", {256, 384, Role::query}, 1, var(384, 256), f},
          {"[1024x96] up l=3", {1024, 96, Role::up}, 3, var(96, 1024), f}};
}

Verdict eq8(const Context&) {
  // eq. 8: U(-b, b), b = sqrt(6 / (n_in + n_out)): variance b^2 / 3.
  auto v = [](long nin, long nout) {
    const Real50 b = sqrt(Real50(6) / R(nin + nout));
    return b * b / 3;
  };
  const LawCheck r = check_laws(init::XavierUniform{}, two_shapes(v, init::Family::uniform), 4000);
  // ... which is eq. 9's 2 / (n_in + n_out): the two Xavier laws share a variance.
  const double same = d_(abs(v(384, 256) - Real50(2) / R(640)) / (Real50(2) / R(640)));
  return law_verdict(r, "b^2/3 = 2/(n_in+n_out); 2 x 98304 draws", same, "rel_diff_var_eq8_vs_eq9");
}

Verdict eq9(const Context&) {
  auto v = [](long nin, long nout) { return Real50(2) / R(nin + nout); };
  return law_verdict(check_laws(init::XavierNormal{}, two_shapes(v, init::Family::normal), 4010),
                     "N(0, 2/(n_in+n_out)); 2 x 98304 draws");
}

Verdict eq10(const Context&) {
  auto v = [](long nin, long) { return Real50(2) / R(nin); };
  return law_verdict(check_laws(init::KaimingNormal{}, two_shapes(v, init::Family::normal), 4020),
                     "N(0, 2/n_in); 2 x 98304 draws");
}

Verdict eq11(const Context&) {
  auto v = [](long nin, long) {
    const Real50 b = sqrt(Real50(6) / R(nin));
    return b * b / 3;
  };
  const LawCheck r = check_laws(init::KaimingUniform{}, two_shapes(v, init::Family::uniform), 4030);
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
    M y = gaussian(B, n, 1.0, 4100 + static_cast<std::uint32_t>(rep));
    const double e0 = y.squaredNorm() / double(y.size());
    for (long l = 1; l <= L; ++l) {
      const M W = init::draw<double>(
          {n, n, Role::up}, int(l), cfg,
          random::Stream{kAuditSeed, static_cast<std::uint32_t>(4200 + 100 * rep + l)});
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
  return fails(fig, regime + ": the ratio is " + fixed((mean - 1) / se, 1) + " SEs from 1", m);
}

Verdict eq12(const Context&) {
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
  const LawCheck r = check_laws(cfg, cases, 4300);
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
    v = fails(v.figure, v.detail + "; 2N variances do not sum to sigma^2: " + sci(sum_err),
              v.measured);
  return v;
}

Verdict eq14(const Context&) {
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
  return law_verdict(check_laws(cfg, cases, 4400),
                     "alpha 0.5, l = 1, 4, 9; variance beta^2 alpha^2 / (3 l); eq. 13 outside "
                     "the layers (project's reading)");
}

Verdict eq16(const Context&) {
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
  return law_verdict(check_laws(init::LIR{sigma}, cases, 4500),
                     "sigma 0.02, l = 1, 4, 16 (l from 1), head keeps sigma^2; variance "
                     "decreases with depth");
}

// Sec. 2.3.6's prose: "the weight is scaled by sqrt(l) after being initialized
// from a Gaussian of standard deviation sigma", read as a multiplication.
Verdict lir_prose(const Context&) {
  const double sigma = 0.02;
  const int l = 16;
  const M W = init::draw<double>({256, 384, Role::ffn_output}, l, init::LIR{sigma},
                                 random::Stream{kAuditSeed, 4600});
  const double sd = std::sqrt(W.squaredNorm() / double(W.size()));
  const double ratio = sd / sigma;  // eq. 16: 1/sqrt(l) = 0.25; the prose: sqrt(l) = 4
  const double se = ratio * std::sqrt(0.5 / double(W.size()));  // SE of a sample std
  std::vector<Measure> m{{"std_over_sigma_l16", ratio},
                         {"prose_factor", std::sqrt(double(l))},
                         {"eq16_factor", 1 / std::sqrt(double(l))},
                         {"se", se}};
  const std::string fig = "std/sigma " + fixed(ratio, 4) + " vs prose " + fixed(std::sqrt(l), 1);
  if (std::abs(ratio - std::sqrt(double(l))) <= 5 * se)
    return holds(fig, "l = 16: the weights are multiplied by sqrt(l)", m);
  return fails(fig,
               "l = 16, 98304 draws: eq. 16 (and the authors' code) divide the std by sqrt(l) = 4 "
               "(measured " +
                   fixed(ratio, 4) + " = 1/" + fixed(1 / ratio, 3) +
                   "); the prose's 'scaled by sqrt(l)' holds only if it means divided by",
               m);
}

// ---- rescaling (50 digits) ---------------------------------------------------------

M50 to_r50(const M& m) { return m.cast<Real50>(); }

// A trained-looking matrix: [64 x 48], std 0.013, mean drifted to 0.004.
M50 trained(std::uint32_t tensor) {
  return to_r50(M((gaussian(64, 48, 0.013, tensor).array() + 0.004).matrix()));
}

double max_rel(const M50& a, const M50& b) {
  return d_(M50(a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff());
}

// 1e-45: 50-digit arithmetic (unit roundoff 1e-50) through sums of 3072
// entries and a sqrt stays below 1e-46; anything above is not rounding.
constexpr double kExact50 = 1e-45;

Verdict eq17(const Context&) {
  const M50 W = trained(4700);
  const M50 U = rescale::uwr(W);
  const double norm_err = d_(abs(rescale::frobenius_norm(U) - 1));
  // W' = W / ||W||: every ratio W'_i / W_i is the same positive constant.
  const M50 ratio = U.cwiseQuotient(W);
  const Real50 c = ratio(0, 0);
  const double ratio_err = d_((ratio.array() - c).abs().maxCoeff() / c);
  std::vector<Measure> m{{"abs_err_unit_norm", norm_err}, {"rel_spread_of_ratio", ratio_err}};
  if (norm_err <= kExact50 && ratio_err <= kExact50 && c > 0)
    return holds("| ||W'|| - 1 | " + sci(norm_err),
                 "[64x48], std 0.013, mean 0.004, 50 digits; W' = c W, c > 0 to " + sci(ratio_err),
                 m);
  return fails("| ||W'|| - 1 | " + sci(norm_err), "W' is not W / ||W||_F", m);
}

Verdict eq19(const Context&) {
  const M50 W = trained(4710);
  double err = 0;
  for (const auto kind : {rescale::StdKind::population, rescale::StdKind::unbiased}) {
    const auto mz = rescale::moments(rescale::standardize(W, kind), kind);
    err = std::max({err, d_(abs(mz.mean)), d_(abs(mz.std - 1))});
  }
  std::vector<Measure> m{{"max_abs_err_mean0_std1", err}};
  if (err <= kExact50)
    return holds("err " + sci(err), "[64x48], 50 digits, population and unbiased std", m);
  return fails("err " + sci(err), "z-scores do not have mean 0 and std 1", m);
}

// The post-conditions of W <- z target + mu(W): mean mu(W), std target, z kept.
double post_err(const M50& W, const M50& out, double target, rescale::StdKind kind) {
  const auto a = rescale::moments(W, kind), b = rescale::moments(out, kind);
  const double mean_err = d_(abs(b.mean - a.mean) / abs(a.mean));
  const double std_err = d_(abs(b.std - Real50(target)) / Real50(target));
  const double z_err = max_rel(rescale::standardize(out, kind), rescale::standardize(W, kind));
  return std::max({mean_err, std_err, z_err});
}

Verdict eq20(const Context&) {
  const M50 W = trained(4720);
  const double err = post_err(W, rescale::zwr(W, 0.006), 0.006, rescale::StdKind::population);
  std::vector<Measure> m{{"max_rel_err_post", err}};
  if (err <= kExact50)
    return holds("err " + sci(err),
                 "[64x48], sigma_init 0.006, 50 digits: mean mu(W), std sigma_init, z-scores kept",
                 m);
  return fails("err " + sci(err), "ZWR's post-conditions do not hold", m);
}

Verdict eq21(const Context&) {
  const M50 W = trained(4730);
  const double paper = post_err(W, rescale::tvr(W, 0.01), 0.01, rescale::StdKind::population);
  // The authors' form: unbiased std, rescales only above 1.2 sigma_target.
  const double authors =
      post_err(W, rescale::tvr_authors_code(W, 0.01), 0.01, rescale::StdKind::unbiased);
  const M50 small = W * Real50(0.8);  // std 0.0104 < 1.2 x 0.01: untouched by the authors' rule
  const bool untouched = rescale::tvr_authors_code(small, 0.01) == small;
  std::vector<Measure> m{{"max_rel_err_post_eq21", paper},
                         {"max_rel_err_post_authors", authors},
                         {"authors_untouched_below_threshold", untouched ? 1.0 : 0.0}};
  if (paper <= kExact50 && authors <= kExact50 && untouched)
    return holds("err " + sci(std::max(paper, authors)),
                 "[64x48], sigma_target 0.01, 50 digits: mean mu(W), std sigma_target, z-scores "
                 "kept (eq. 21: population std; authors' code: unbiased, and a W under 1.2 "
                 "sigma_target is left bit for bit)",
                 m);
  return fails("err " + sci(std::max(paper, authors)), "TVR's post-conditions do not hold", m);
}

// Sec. 2.4.2: "If the mean of the weights deviates from zero, the z-score
// changes the signs of values close to the mean value. To counteract this, the
// initial mean of the weights mu(W^l) has to be added again."
Verdict zwr_sign(const Context&) {
  const M50 W = trained(4740);
  const M50 z = rescale::standardize(W);
  const auto mom = rescale::moments(W);
  const Real50 mu = mom.mean;
  const double sd = d_(mom.std);
  // Sign flips of W's entries after rescaling to sigma_init = ratio sigma(W),
  // without the mean, with eq. 20's current mean, and with the prose's
  // "initial mean" (the mean of a zero-mean N(0, sigma_init^2) draw).
  struct Flips {
    long none = 0, current = 0, initial = 0;
  };
  auto flips = [&](double ratio, std::uint32_t tensor) {
    const double sigma_init = ratio * sd;
    const M init_draw = gaussian(64, 48, sigma_init, tensor);
    const Real50 mu_init = Real50(init_draw.sum() / double(init_draw.size()));
    Flips f;
    for (long i = 0; i < W.size(); ++i) {
      const Real50 w = W.data()[i], zs = z.data()[i] * Real50(sigma_init);
      f.none += (zs > 0) != (w > 0);
      f.current += (zs + mu > 0) != (w > 0);
      f.initial += (zs + mu_init > 0) != (w > 0);
    }
    return f;
  };
  const double n = double(W.size());
  const double ratios[] = {0.25, 0.46, 0.75, 1.0, 1.5, 2.0};
  std::vector<Measure> m{{"mu_over_sigma", d_(mu) / sd}};
  std::string sweep;
  double worst_ratio = 0;
  long worst_excess = -1;  // max over ratios of flips(current) - flips(none)
  for (std::size_t i = 0; i < std::size(ratios); ++i) {
    const Flips f = flips(ratios[i], 4741 + static_cast<std::uint32_t>(i));
    const std::string r = fixed(ratios[i], 2);
    m.push_back({"flip_frac_without_mean_r" + r, f.none / n});
    m.push_back({"flip_frac_current_mean_r" + r, f.current / n});
    m.push_back({"flip_frac_initial_mean_r" + r, f.initial / n});
    sweep += (i ? ", " : "") + r + ": " + fixed(100 * f.none / n, 1) + "/" +
             fixed(100 * f.current / n, 1) + "/" + fixed(100 * f.initial / n, 1);
    if (f.current - f.none > worst_excess) {
      worst_excess = f.current - f.none;
      worst_ratio = ratios[i];
    }
  }
  const std::string regime =
      "[64x48], sigma(W) 0.013, mean 0.004; % flipped without mean / with eq. 20's current mean / "
      "with the prose's initial mean, by sigma_init / sigma(W) = {" +
      sweep + "}";
  // The counts are exact. "Counteracts" holds if adding the current mean never
  // flips more signs than leaving it out, at every ratio; it fails with the
  // ratio where it flips the most more.
  if (worst_excess < 0)
    return holds_approximately("fewer flips at every ratio",
                               regime + "; zero flips only at sigma_init = sigma(W)", m);
  return fails("sigma_init/sigma(W) = " + fixed(worst_ratio, 2) + ": +" +
                   std::to_string(worst_excess) + " flips",
               regime +
                   "; adding the mean flips no sign only at sigma_init = sigma(W) and flips "
                   "more than leaving it out when sigma_init is far below sigma(W) (TVR's "
                   "0.006 vs a grown 0.013 is ratio 0.46)",
               m);
}

// App. 6.2.5: with a constant sigma_target (0.01) over LIR's sigma_init = 0.006,
// TVR "behaves similarly to a warmup period for deeper layers": layer 10's std
// reached 0.01 around 8BT, layer 1's around 15BT, while TVR ran every 1BT.
// Synthetic growth: W_{k+1} = W_k + delta Z (Z fixed N(0,1)), TVR every 50 steps.
Verdict tvr_warmup(const Context&) {
  const long steps = 1500, k = 50;
  const M Z = gaussian(32, 32, 1.0, 4751);
  const double delta = 1e-5;  // std grows by ~delta per step: 0.006 -> 0.01 in ~ 400-800 steps
  struct Track {
    double std_after_first = 0;  // std right after the first due step
    long reached = -1;           // first step with std >= 0.01 (1 - 1e-9)
  };
  auto run = [&](const rescale::Schedule& s, int layer) {
    M W = init::draw<double>({32, 32, Role::ffn_output}, layer, init::LIR{0.006},
                             random::Stream{kAuditSeed, 4750});
    Track t;
    for (long step = 1; step <= steps; ++step) {
      W += delta * Z;
      W = rescale::on_step<double>(s, step, layer, W).W;
      const double sd = rescale::moments(W, rescale::StdKind::unbiased).std;
      if (step == k) t.std_after_first = sd;
      if (t.reached < 0 && sd >= 0.01 * (1 - 1e-9)) t.reached = step;
    }
    return t;
  };
  const auto paper = rescale::Schedule::tvr(0.01, k);
  const auto authors = rescale::Schedule::tvr_authors_code(0.01, k);
  const Track p1 = run(paper, 1), p10 = run(paper, 10), a1 = run(authors, 1),
              a10 = run(authors, 10);
  std::vector<Measure> m{{"eq21_std_after_first_l1", p1.std_after_first},
                         {"eq21_std_after_first_l10", p10.std_after_first},
                         {"eq21_reached_step_l1", double(p1.reached)},
                         {"eq21_reached_step_l10", double(p10.reached)},
                         {"authors_reached_step_l1", double(a1.reached)},
                         {"authors_reached_step_l10", double(a10.reached)}};
  const std::string regime =
      "[32x32] ffn_output, LIR sigma_init 0.006 (l = 1, 10), W += 1e-5 Z per step, TVR "
      "sigma_target 0.01 every 50 steps";
  // A warm-up: every layer reaches sigma_target only after several
  // applications (which layer first depends on the training's growth rates,
  // not on TVR, so it is not checked). Eq. 21 as written sets the std at the
  // first application (step 50).
  const bool warmup_eq21 = p1.reached > k && p10.reached > k;
  const bool warmup_authors = a1.reached > k && a10.reached > k;
  const std::string tail = "; eq. 21 (unconditional) reaches 0.01 at step " +
                           std::to_string(p10.reached) + " (l = 10) and " +
                           std::to_string(p1.reached) +
                           " (l = 1); the authors' shrink-only rule (threshold 1.2) at " +
                           std::to_string(a10.reached) + " and " + std::to_string(a1.reached);
  if (warmup_eq21)
    return holds("eq. 21 warm-up: l=10 at " + std::to_string(p10.reached), regime + tail, m);
  return fails(
      "eq. 21: all layers at 0.01 by step " + std::to_string(std::max(p1.reached, p10.reached)),
      regime + tail +
          (warmup_authors ? ": the warm-up needs the authors' threshold, not eq. 21"
                          : ": neither form shows the warm-up"),
      m);
}

// ---- training dynamics on the tiny LM (Sec. 4.1, Appendix 6.2.1) -----------------

// The mean over decoder-layer matrices of std(W) after a run, and at init.
struct Growth {
  double std0 = 0, std_end = 0;
  double growth() const { return std_end - std0; }
};

// Trains the tiny LM (d_model 32, 2 layers, 2 heads, SwiGLU 128, Pre-Norm
// RMSNorm) on the grammar task for `steps` AdamW steps at lr 3e-3 (constant)
// with Gaussian init sigma_init and the given weight decay. The paper's runs
// decay by (1 - lr lambda)^steps ~ e^-1.5 (lr ~3e-4, lambda 0.1, ~5e4 steps);
// with lr 3e-3 and lambda 0.5 a 200-step run decays by e^-0.3, so the decay
// term acts within it.
Growth lm_growth(double sigma_init, double weight_decay, long steps = 200) {
  train::Setup s = train::make_setup({.kind = train::TaskKind::grammar, .seq = 32});
  s.model.d_model = 32;
  s.model.n_layers = 2;
  s.model.n_heads = 2;
  s.model.init = lm::InitMethod::gaussian;
  s.model.init_sigma = sigma_init;
  s.train.batch = 8;
  s.train.lr = 3e-3;
  s.train.schedule = train::LrShape::constant;
  s.train.adamw.weight_decay = weight_decay;
  s.train.eval_batches = 1;
  s.train.steps = steps;
  s.train.eval_every = steps;
  const train::Result r = train::run(s, nullptr);
  const lm::ParamStore<double> p0 = lm::init_params<double>(s.model);
  Growth g;
  long n = 0;
  for (std::size_t i = 0; i < p0.size(); ++i) {
    if (p0.info[i].kind != lm::Kind::matrix || p0.info[i].layer < 1) continue;
    g.std0 += metrics::mean_std(p0.values[i]).std;
    g.std_end += metrics::mean_std(r.params.values[i]).std;
    ++n;
  }
  g.std0 /= n;
  g.std_end /= n;
  return g;
}

Verdict small_init_grows_faster(const Context& ctx) {
  // "the rate of increase in standard deviation is much faster when starting
  // with smaller initial values, such as 0.006 or 0.008, compared to larger
  // values such as 0.02": the mean growth std(T) - std(0) of the decoder
  // matrices at sigma_init 0.006 against 0.02, same data, same steps. "Much
  // faster" is read as at least 1.5x (the paper gives no number); faster but
  // less: holds approximately; not faster: fails.
  ctx.progress("training at sigma_init 0.006");
  const Growth small = lm_growth(0.006, 0.1);
  ctx.progress("training at sigma_init 0.02");
  const Growth base = lm_growth(0.02, 0.1);
  const double ratio = small.growth() / base.growth();
  std::vector<Measure> m{{"std0_0.006", small.std0},
                         {"std_end_0.006", small.std_end},
                         {"std0_0.02", base.std0},
                         {"std_end_0.02", base.std_end},
                         {"growth_ratio", ratio}};
  const std::string detail =
      "tiny LM, grammar task, 200 AdamW steps (lr 3e-3, wd 0.1): mean decoder-matrix std " +
      fixed(small.std0, 4) + " -> " + fixed(small.std_end, 4) + " from 0.006, " +
      fixed(base.std0, 4) + " -> " + fixed(base.std_end, 4) + " from 0.02";
  if (ratio >= 1.5) return holds("growth x" + fixed(ratio, 2), detail, m);
  if (ratio > 1) return holds_approximately("growth x" + fixed(ratio, 2), detail, m);
  return fails("growth x" + fixed(ratio, 2), detail, m);
}

Verdict decay_bounds_growth(const Context& ctx) {
  // Appendix 6.2.1: weight decay "helps in partially bounding the weight
  // variance", the std growing more without it: runs at lr 3e-3 from
  // sigma_init 0.02 with lambda 0.5 and 0.
  ctx.progress("training at sigma_init 0.02, weight decay 0.5");
  const Growth decayed = lm_growth(0.02, 0.5);
  ctx.progress("training at sigma_init 0.02, weight decay 0");
  const Growth free = lm_growth(0.02, 0.0);
  std::vector<Measure> m{{"growth_wd_0.5", decayed.growth()}, {"growth_wd_0", free.growth()}};
  const std::string detail =
      "tiny LM, grammar, 200 AdamW steps at lr 3e-3 from sigma_init 0.02: std " +
      fixed(decayed.std0, 4) + " -> " + fixed(decayed.std_end, 4) + " with wd 0.5, -> " +
      fixed(free.std_end, 4) + " without";
  const std::string figure = "growth " + sci(decayed.growth()) + " vs " + sci(free.growth());
  if (decayed.growth() < free.growth()) return holds(figure, detail, m);
  return fails(figure, detail, m);
}

Verdict large_init_std_falls(const Context& ctx) {
  // Sec. 4.1: "the reduction in standard deviation for initial value of 0.03
  // is also caused by the partial bounding effect of weight decay": from
  // sigma_init 0.03 with decay (lambda 0.5 at lr 3e-3) the std ends below its
  // start. 200 steps by default, 1000 with --thorough.
  const long steps = ctx.thorough ? 1000 : 200;
  ctx.progress("training at sigma_init 0.03, weight decay 0.5, " + std::to_string(steps) +
               " steps");
  const Growth g = lm_growth(0.03, 0.5, steps);
  std::vector<Measure> m{{"std0", g.std0}, {"std_end", g.std_end}, {"steps", double(steps)}};
  const std::string detail = "tiny LM, grammar, " + std::to_string(steps) +
                             " AdamW steps at lr 3e-3, wd 0.5: mean decoder-matrix std " +
                             fixed(g.std0, 4) + " -> " + fixed(g.std_end, 4);
  if (g.growth() < 0)
    return holds("std " + fixed(g.std0, 4) + " -> " + fixed(g.std_end, 4), detail, m);
  return fails("std " + fixed(g.std0, 4) + " -> " + fixed(g.std_end, 4),
               detail + ": the std grows in this regime", m);
}

// ---- the paper's tables (Sec. 4.1-4.2, Appendix 6.2), recomputed ----------------

// Tables 2, 3, 5, 6 and 7 give the 1B runs' downstream accuracies (%): 7 task
// columns, then Mean and Delta_base (Mean minus the baseline sigma_init = 0.02
// row's Mean), every entry printed to one decimal. A row is named by its
// setting: sigma_init, then "+ LIR", "+ SIR" or "+ no WD" (weight decay 0), then
// "+ TVR(sigma_target)"; Table 7's "+ ..." rows take the sigma_init of the row
// that opens their block.
const char* const kTableTasks[] = {"HellaSwag", "PIQA", "SIQA", "WG", "TQA", "ARC-E", "ARC-C"};
constexpr std::size_t kTasks = 7, kCells = 9;  // the 7 tasks, Mean, Delta_base

struct TableRow {
  int line;                         // in shared/papers/weight_rescaling.txt
  std::string setting;              // "0.006 + LIR + TVR(0.01)"
  std::array<double, kTasks> task;  // HellaSwag PIQA SIQA WG TQA ARC-E ARC-C
  double mean, delta;               // Mean, Delta_base, as printed
  double cell(std::size_t c) const { return c < kTasks ? task[c] : c == kTasks ? mean : delta; }
};

struct PaperTable {
  int number;
  std::string location;
  std::vector<TableRow> rows;
};

// Transcribed from shared/papers/weight_rescaling.txt, each row checked
// against its line there.
const std::vector<PaperTable>& paper_tables() {
  static const std::vector<PaperTable> t{
      // Table 2: header lines 270-271, rows 272-277, caption 279.
      {2,
       "Table 2 (Sec. 4.1)",
       {
           {272, "0.03", {48.0, 70.9, 40.2, 52.2, 37.2, 59.1, 32.1}, 48.5, -1.3},
           {273, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {274, "0.015", {51.6, 71.6, 40.4, 52.8, 37.3, 60.4, 33.7}, 49.7, -0.1},
           {275, "0.01", {51.8, 71.6, 41.2, 53.0, 37.7, 62.8, 33.7}, 50.3, 0.4},
           {276, "0.008", {51.9, 71.8, 41.0, 54.5, 35.6, 62.4, 36.0}, 50.5, 0.6},
           {277, "0.006", {51.4, 71.2, 41.4, 53.9, 37.8, 61.9, 32.8}, 50.1, 0.2},
       }},
      // Table 3: header lines 299-300, rows 301-304, caption 306.
      {3,
       "Table 3 (Sec. 4.2)",
       {
           {301, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {302, "0.008 + LIR + TVR(0.008)", {54.7, 72.2, 42.2, 57.1, 38.1, 64.0, 35.5}, 52.0, 2.1},
           {303, "0.006 + LIR + TVR(0.006)", {53.7, 72.4, 43.6, 55.6, 40.6, 63.3, 36.1}, 52.2, 2.4},
           {304, "0.006 + LIR + TVR(0.01)", {55.1, 73.4, 42.7, 57.0, 38.9, 64.3, 36.1}, 52.5, 2.7},
       }},
      // Table 5: header lines 418-419, rows 420-422, caption 424.
      {5,
       "Table 5 (Appendix 6.2.1)",
       {
           {420, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {421, "0.03", {48.0, 70.9, 40.2, 52.2, 37.2, 59.1, 32.1}, 48.5, -1.3},
           {422, "0.03 + no WD", {46.2, 70.0, 39.9, 52.1, 38.6, 56.8, 32.8}, 48.1, -1.8},
       }},
      // Table 6: header lines 436-437, rows 438-440, caption 442.
      {6,
       "Table 6 (Appendix 6.2.2)",
       {
           {438, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {439, "0.02 + SIR", {50.8, 70.7, 40.5, 51.9, 38.2, 62.4, 34.8}, 49.9, 0.1},
           {440, "0.02 + LIR", {52.5, 72.0, 40.5, 54.6, 37.8, 62.3, 35.2}, 50.7, 0.9},
       }},
      // Table 7: header lines 456-457, rows 458-481, caption 483. Lines 468 and
      // 469 are both printed "+ LIR + TVR(sigma_target = 0.02)" under
      // sigma_init = 0.01; both are transcribed as printed.
      {7,
       "Table 7 (Appendix 6.2.3)",
       {
           {458, "0.02", {50.5, 71.6, 41.1, 52.9, 36.8, 61.6, 34.4}, 49.8, 0.0},
           {459, "0.02 + LIR", {52.5, 72.0, 40.5, 54.6, 37.8, 62.3, 35.2}, 50.7, 0.9},
           {460, "0.02 + LIR + TVR(0.02)", {52.5, 71.9, 41.4, 53.9, 36.3, 62.8, 36.2}, 50.7, 0.9},
           {461, "0.02 + LIR + TVR(0.025)", {52.5, 72.4, 41.4, 53.0, 36.1, 63.0, 34.6}, 50.4, 0.6},
           {462, "0.015", {51.6, 71.6, 40.4, 52.8, 37.3, 60.4, 33.7}, 49.7, -0.1},
           {463, "0.015 + LIR", {52.2, 71.8, 41.9, 53.6, 38.2, 61.5, 34.7}, 50.6, 0.7},
           {464, "0.01", {51.8, 71.6, 41.2, 53.0, 37.7, 62.8, 33.7}, 50.3, 0.4},
           {465, "0.01 + LIR", {53.3, 71.3, 42.0, 55.6, 37.9, 62.2, 35.7}, 51.1, 1.3},
           {466, "0.01 + LIR + TVR(0.01)", {54.3, 71.5, 40.9, 57.3, 39.7, 64.4, 37.7}, 52.3, 2.4},
           {467, "0.01 + LIR + TVR(0.015)", {54.0, 71.9, 41.6, 55.7, 37.5, 62.5, 35.6}, 51.3, 1.4},
           {468, "0.01 + LIR + TVR(0.02)", {53.1, 72.9, 42.0, 55.2, 37.3, 62.8, 35.7}, 51.3, 1.4},
           {469, "0.01 + LIR + TVR(0.02)", {52.2, 71.8, 41.9, 53.6, 38.2, 61.5, 34.7}, 50.6, 0.7},
           {470, "0.008", {51.9, 71.8, 41.0, 54.5, 35.6, 62.4, 36.0}, 50.5, 0.6},
           {471, "0.008 + LIR", {52.4, 72.1, 41.3, 56.0, 38.0, 64.3, 36.1}, 51.5, 1.6},
           {472, "0.008 + LIR + TVR(0.008)", {54.7, 72.2, 42.2, 57.1, 38.1, 64.0, 35.5}, 52.0, 2.1},
           {473, "0.008 + LIR + TVR(0.01)", {55.1, 71.5, 41.6, 54.2, 37.6, 63.6, 37.1}, 51.5, 1.7},
           {474, "0.008 + LIR + TVR(0.015)", {53.7, 72.3, 41.2, 55.4, 38.3, 63.2, 36.0}, 51.4, 1.6},
           {475, "0.008 + LIR + TVR(0.02)", {53.0, 71.4, 42.2, 57.2, 36.6, 64.1, 37.1}, 51.7, 1.8},
           {476, "0.006", {51.4, 71.2, 41.4, 53.9, 37.8, 61.9, 32.8}, 50.1, 0.2},
           {477, "0.006 + LIR", {52.5, 71.2, 40.1, 53.6, 39.2, 61.8, 33.9}, 50.3, 0.5},
           {478, "0.006 + LIR + TVR(0.006)", {53.7, 72.4, 43.6, 55.6, 40.6, 63.3, 36.1}, 52.2, 2.4},
           {479, "0.006 + LIR + TVR(0.008)", {54.6, 71.3, 41.2, 55.6, 43.5, 64.3, 35.7}, 52.3, 2.5},
           {480, "0.006 + LIR + TVR(0.009)", {54.8, 72.1, 42.1, 56.4, 38.9, 65.7, 35.2}, 52.2, 2.4},
           {481, "0.006 + LIR + TVR(0.01)", {55.1, 73.4, 42.7, 57.0, 38.9, 64.3, 36.1}, 52.5, 2.7},
       }}};
  return t;
}

const PaperTable& paper_table(int number) {
  for (const PaperTable& t : paper_tables())
    if (t.number == number) return t;
  throw std::out_of_range("rescale: no Table " + std::to_string(number) + " transcribed");
}

// The first row of `t` with this setting.
const TableRow& row_of(const PaperTable& t, const std::string& setting) {
  for (const TableRow& r : t.rows)
    if (r.setting == setting) return r;
  throw std::out_of_range("rescale: Table " + std::to_string(t.number) + " has no row '" + setting +
                          "'");
}

const TableRow& baseline_of(const PaperTable& t) { return row_of(t, "0.02"); }

std::string row_name(const TableRow& r) { return r.setting + " (L" + std::to_string(r.line) + ")"; }

double task_average(const TableRow& r) {
  double s = 0;
  for (const double v : r.task) s += v;
  return s / double(kTasks);
}

// Printed values are compared as printed; a tie is not "better" (1e-9 absorbs
// the doubles' representation of one-decimal numbers).
constexpr double kTie = 1e-9;
bool above(double a, double b) { return a > b + kTie; }

std::string cell_name(std::size_t c) {
  return c < kTasks ? kTableTasks[c] : c == kTasks ? "Mean" : "Delta_base";
}

bool same_cells(const TableRow& a, const TableRow& b) {
  for (std::size_t c = 0; c < kCells; ++c)
    if (std::fabs(a.cell(c) - b.cell(c)) > kTie) return false;
  return true;
}

// Mean = the average of the 7 task columns, Delta_base = Mean minus the
// baseline's Mean. Every printed entry is within 0.05 of its value, so the
// average of the 7 printed tasks is within 0.05 of the true average and the
// printed Mean within 0.05 of that: |Mean - task average| <= 0.10. Delta_base
// rounds (0.05) the difference of two true Means, each within 0.05 of its
// printed Mean: |Delta_base - (Mean - baseline Mean)| <= 0.15.
constexpr double kMeanTol = 0.10, kDeltaTol = 0.15;

Verdict table_arithmetic(int number) {
  const PaperTable& t = paper_table(number);
  const TableRow& base = baseline_of(t);
  double mean_dev = 0, delta_dev = 0, delta_avg_dev = 0;
  const TableRow* mean_worst = &t.rows.front();
  const TableRow* delta_worst = &t.rows.front();
  int delta_off = 0;  // rows whose Delta_base is not the difference of the printed Means
  for (const TableRow& r : t.rows) {
    const double dm = std::fabs(r.mean - task_average(r));
    const double dd = std::fabs(r.delta - (r.mean - base.mean));
    delta_avg_dev =
        std::max(delta_avg_dev, std::fabs(r.delta - (task_average(r) - task_average(base))));
    delta_off += dd > 0.01;
    if (dm > mean_dev + kTie) {  // the first row of the largest deviation
      mean_dev = dm;
      mean_worst = &r;
    }
    if (dd > delta_dev + kTie) {
      delta_dev = dd;
      delta_worst = &r;
    }
  }
  std::vector<Measure> m{{"rows", double(t.rows.size())},
                         {"max_abs_mean_minus_task_average", mean_dev},
                         {"max_abs_delta_minus_mean_difference", delta_dev},
                         {"max_abs_delta_minus_task_average_difference", delta_avg_dev},
                         {"rows_delta_not_printed_mean_difference", double(delta_off)}};
  const std::string fig = "Mean dev " + fixed(mean_dev, 3) + ", Delta dev " + fixed(delta_dev, 3);
  const std::string detail =
      "Table " + std::to_string(number) + ", " + std::to_string(t.rows.size()) +
      " rows; worst Mean: " + row_name(*mean_worst) + " " + fixed(mean_worst->mean, 1) +
      " vs task average " + fixed(task_average(*mean_worst), 3) +
      "; worst Delta_base: " + row_name(*delta_worst) + " " + fixed(delta_worst->delta, 1) +
      " vs Mean difference " + fixed(delta_worst->mean - base.mean, 1) +
      "; Delta_base is off the printed Means' difference in " + std::to_string(delta_off) +
      " rows, within " + fixed(delta_avg_dev, 3) +
      " of the task averages' difference in all; tolerances 0.10 (Mean) and 0.15 (Delta_base) "
      "from one-decimal rounding";
  if (mean_dev <= kMeanTol + kTie && delta_dev <= kDeltaTol + kTie) return holds(fig, detail, m);
  return fails(fig, detail, m);
}

// Rows of one setting printed in several tables (the baseline in all five,
// sigma_init 0.03 in Tables 2 and 5, 0.015 to 0.006 in Tables 2 and 7, 0.02 +
// LIR in Tables 6 and 7, Table 3's three LIR + TVR rows in Table 7) carry the
// same numbers: every cell (7 tasks, Mean, Delta_base) against the setting's
// first row in an earlier table, exactly (both are transcribed as printed).
// A setting repeated within one table is rescale.table.duplicate-labels'.
Verdict repeated_rows(const Context&) {
  std::map<std::string, std::pair<int, const TableRow*>> first;  // setting -> table, row
  std::map<std::string, std::set<int>> tables_of;                // repeated setting -> tables
  int rows = 0, cells = 0, differing = 0;
  std::string first_diff;
  for (const PaperTable& t : paper_tables())
    for (const TableRow& r : t.rows) {
      const auto it = first.find(r.setting);
      if (it == first.end()) {
        first.emplace(r.setting, std::make_pair(t.number, &r));
        continue;
      }
      if (it->second.first == t.number) continue;
      const TableRow& a = *it->second.second;
      std::set<int>& tables = tables_of[r.setting];
      tables.insert(it->second.first);
      tables.insert(t.number);
      ++rows;
      for (std::size_t c = 0; c < kCells; ++c) {
        ++cells;
        if (std::fabs(a.cell(c) - r.cell(c)) <= kTie) continue;
        ++differing;
        if (first_diff.empty())
          first_diff = r.setting + " " + cell_name(c) + ": " + fixed(a.cell(c), 1) + " (L" +
                       std::to_string(a.line) + ") vs " + fixed(r.cell(c), 1) + " (L" +
                       std::to_string(r.line) + ")";
      }
    }
  std::string listed;
  for (const auto& [setting, tables] : tables_of) {
    listed += (listed.empty() ? "" : "; ") + setting + ": Tables";
    for (const int n : tables) listed += (n == *tables.begin() ? " " : ", ") + std::to_string(n);
  }
  std::vector<Measure> m{{"settings_repeated", double(tables_of.size())},
                         {"rows_compared", double(rows)},
                         {"cells_compared", double(cells)},
                         {"cells_differing", double(differing)}};
  const std::string fig = std::to_string(differing) + "/" + std::to_string(cells) + " cells differ";
  if (differing == 0)
    return holds(fig,
                 std::to_string(rows) + " rows repeat an earlier table's setting, all equal (" +
                     listed + ")",
                 m);
  return fails(fig, "first difference: " + first_diff + " (" + listed + ")", m);
}

// Within a table each row is its own run: no setting printed twice, and no two
// rows with the same 9 numbers. For a repeated label, whether the two rows'
// numbers differ and whether the second repeats another row's numbers in the
// same table (a row copied into the wrong place).
Verdict duplicate_labels(const Context&) {
  int labels = 0, copies = 0;
  std::string found;
  std::set<std::pair<int, int>> explained;  // lines of a row and the row it copies
  std::vector<Measure> m;
  for (const PaperTable& t : paper_tables())
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (std::size_t j = i + 1; j < t.rows.size(); ++j) {
        const TableRow& a = t.rows[i];
        const TableRow& b = t.rows[j];
        if (a.setting != b.setting) continue;
        ++labels;
        int differ = 0;
        for (std::size_t c = 0; c < kCells; ++c) differ += std::fabs(a.cell(c) - b.cell(c)) > kTie;
        std::string copy;  // the other rows whose 9 numbers b repeats
        int n_copy = 0;
        for (const TableRow& k : t.rows)
          if (&k != &a && &k != &b && same_cells(k, b)) {
            copy += (copy.empty() ? "" : ", ") + row_name(k);
            ++n_copy;
            explained.insert({std::min(k.line, b.line), std::max(k.line, b.line)});
          }
        // streamed, not joined with +: GCC 12 warns falsely on such chains (-Wrestrict)
        std::ostringstream tag, what;
        tag << "T" << t.number << "_L" << a.line << "_L" << b.line;
        m.push_back({"cells_differing_" + tag.str(), double(differ)});
        m.push_back({"other_rows_with_second_row_numbers_" + tag.str(), double(n_copy)});
        what << (found.empty() ? "" : "; ") << "Table " << t.number << ": L" << a.line << " and L"
             << b.line << " both '" << a.setting << "', " << differ << "/9 cells differ (Mean "
             << fixed(a.mean, 1) << " vs " << fixed(b.mean, 1) << "); L" << b.line
             << (copy.empty() ? " repeats no other row" : "'s 9 numbers are exactly those of ")
             << copy;
        found += what.str();
      }
  for (const PaperTable& t : paper_tables())
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (std::size_t j = i + 1; j < t.rows.size(); ++j) {
        const TableRow& a = t.rows[i];
        const TableRow& b = t.rows[j];
        if (a.setting == b.setting || !same_cells(a, b)) continue;
        ++copies;
        if (explained.count({a.line, b.line})) continue;
        found += (found.empty() ? "" : "; ") + std::string("Table ") + std::to_string(t.number) +
                 ": " + row_name(a) + " and " + row_name(b) + " carry the same 9 numbers";
      }
  m.push_back({"repeated_labels", double(labels)});
  m.push_back({"same_numbers_different_labels", double(copies)});
  std::size_t n = 0;
  for (const PaperTable& t : paper_tables()) n += t.rows.size();
  if (labels == 0 && copies == 0)
    return holds("no repeated row",
                 std::to_string(n) + " rows of Tables 2, 3, 5, 6, 7, none repeated in its table",
                 m);
  return fails(
      std::to_string(labels) + " repeated label(s), " + std::to_string(copies) + " copied row(s)",
      found, m);
}

// Row r against row b on the 7 tasks: how many r is above (as printed), and
// the others, "SIQA 40.4 vs 41.1".
struct Versus {
  int tasks_above = 0;
  std::string not_above;
};

Versus versus(const TableRow& r, const TableRow& b) {
  Versus v;
  for (std::size_t c = 0; c < kTasks; ++c) {
    if (above(r.task[c], b.task[c])) {
      ++v.tasks_above;
      continue;
    }
    v.not_above += (v.not_above.empty() ? "" : ", ") + std::string(kTableTasks[c]) + " " +
                   fixed(r.task[c], 1) + " vs " + fixed(b.task[c], 1);
  }
  return v;
}

// A sentence comparing rows, read two ways: on the Mean column, and on every
// task column (values as printed, a tie is not better). A sentence that names
// its reading ("on average", Figure 4a's mean accuracy) is decided on it;
// otherwise holds needs both readings, and the Mean reading alone gives holds
// approximately. A smallest Mean margin of 0.1 or less lies within the two
// printed Means' rounding (each +-0.05), so the table does not order the rows:
// holds approximately at best.
Verdict two_readings(bool mean_ok, bool every_ok, double min_margin, bool mean_stated,
                     const std::string& figure, const std::string& detail, std::vector<Measure> m) {
  m.push_back({"mean_reading_holds", mean_ok ? 1.0 : 0.0});
  m.push_back({"every_task_reading_holds", every_ok ? 1.0 : 0.0});
  m.push_back({"min_mean_margin", min_margin});
  if (!mean_ok) return fails(figure, detail, m);
  if (min_margin <= 0.1 + kTie)
    return holds_approximately(
        figure, detail + "; the smallest Mean margin is within the printed Means' rounding", m);
  if (mean_stated)
    return holds(figure, detail + "; decided on the Mean, the sentence's own reading", m);
  if (every_ok) return holds(figure, detail + "; both readings hold", m);
  return holds_approximately(
      figure, detail + "; holds on the Mean, not on every task, and the sentence names neither", m);
}

Verdict init_range_outperforms(const Context&) {
  // Sec. 4.1: "initial values within the 0.006 and 0.015 range consistently
  // outperformed the baseline of 0.02 on downstream benchmarks": Table 2's
  // rows 0.015, 0.01, 0.008 and 0.006 against the 0.02 row, on Mean and on
  // each task (the sentence names no reading).
  const PaperTable& t = paper_table(2);
  const TableRow& base = baseline_of(t);
  int mean_above = 0, every_above = 0, cells_above = 0, n = 0;
  double min_margin = 1e9;
  std::string mean_counter, task_counter;
  for (const char* s : {"0.015", "0.01", "0.008", "0.006"}) {
    const TableRow& r = row_of(t, s);
    const Versus v = versus(r, base);
    ++n;
    cells_above += v.tasks_above;
    min_margin = std::min(min_margin, r.mean - base.mean);
    if (above(r.mean, base.mean))
      ++mean_above;
    else
      mean_counter += (mean_counter.empty() ? "" : ", ") + row_name(r) + " Mean " +
                      fixed(r.mean, 1) + " vs " + fixed(base.mean, 1) + " (task averages " +
                      fixed(task_average(r), 2) + " vs " + fixed(task_average(base), 2) + ")";
    if (v.tasks_above == int(kTasks))
      ++every_above;
    else
      task_counter += (task_counter.empty() ? "" : "; ") + std::string(s) + " " +
                      std::to_string(v.tasks_above) + "/7, not " + v.not_above;
  }
  std::vector<Measure> m{{"rows_above_baseline_on_mean", double(mean_above)},
                         {"rows_above_baseline_on_every_task", double(every_above)},
                         {"task_cells_above_baseline", double(cells_above)},
                         {"task_cells", double(n * int(kTasks))}};
  const std::string fig = "Mean " + std::to_string(mean_above) + "/" + std::to_string(n) +
                          " rows, every task " + std::to_string(every_above) + "/" +
                          std::to_string(n);
  const std::string detail =
      "Table 2, sigma_init 0.015-0.006 vs 0.02 (L273): on Mean " +
      (mean_counter.empty() ? std::string("every row above") : "below or tied: " + mean_counter) +
      "; on every task " + (task_counter.empty() ? std::string("every row above") : task_counter) +
      " (" + std::to_string(cells_above) + "/" + std::to_string(n * int(kTasks)) +
      " task cells above)";
  return two_readings(mean_above == n, every_above == n, min_margin, false, fig, detail, m);
}

// The largest gain over the baseline row among the other rows of a table and
// the given task columns, in accuracy points or relative to the baseline (%).
struct Gain {
  double value = -1e9;
  const TableRow* row = nullptr;
  std::size_t task = 0;
  std::string where() const { return std::string(kTableTasks[task]) + " at " + row_name(*row); }
};

Gain largest_gain(const PaperTable& t, std::size_t from, std::size_t to, bool relative) {
  const TableRow& base = baseline_of(t);
  Gain g;
  for (const TableRow& r : t.rows) {
    if (&r == &base) continue;
    for (std::size_t c = from; c < to; ++c) {
      const double d = r.task[c] - base.task[c];
      const double v = relative ? 100 * d / base.task[c] : d;
      if (v > g.value + kTie) g = {v, &r, c};
    }
  }
  return g;
}

// "4.6%" against a gain: the gain of two printed entries is within 0.1 of its
// value and the paper's 4.6 within 0.05 of its own, so a reading in points
// matches if within 0.15; a relative reading carries the 0.1 as 100 x 0.1 /
// baseline (0.2% at HellaSwag's 50.5) plus the 0.05: within 0.05 + 10 / baseline.
constexpr double kPaperGain = 4.6;
bool points_match(double gain) { return std::fabs(gain - kPaperGain) <= 0.15 + kTie; }
bool relative_match(double rel, double baseline) {
  return std::fabs(rel - kPaperGain) <= 0.05 + 10 / baseline + kTie;
}

Verdict hellaswag_gain(const Context&) {
  // Sec. 4.2: "with up to 4.6% increase in HellaSwag compared to the baseline
  // (sigma_init = 0.02)" (Table 3): the largest HellaSwag gain of Table 3's rows
  // over the baseline, as accuracy points and as a relative increase.
  const PaperTable& t = paper_table(3);
  const TableRow& base = baseline_of(t);
  const Gain pts = largest_gain(t, 0, 1, false), rel = largest_gain(t, 0, 1, true);
  const bool by_points = points_match(pts.value);
  const bool by_relative = relative_match(rel.value, base.task[0]);
  std::vector<Measure> m{{"largest_gain_points", pts.value},
                         {"largest_gain_relative_percent", rel.value},
                         {"baseline_hellaswag", base.task[0]}};
  const std::string fig = "+" + fixed(pts.value, 1) + " points, +" + fixed(rel.value, 1) + "%";
  const std::string detail =
      "Table 3 HellaSwag: largest gain " + fixed(pts.row->task[0], 1) + " at " +
      row_name(*pts.row) + " vs baseline " + fixed(base.task[0], 1) + ": +" + fixed(pts.value, 2) +
      " accuracy points, a relative +" + fixed(rel.value, 2) + "% (at " + row_name(*rel.row) + ")";
  if (by_points)
    return holds(fig, detail + "; the 4.6 is the gain in points (the '%' is percentage points)", m);
  if (by_relative)
    return holds_approximately(fig, detail + "; the 4.6 is the relative gain, not in points", m);
  return fails(fig, detail + "; neither reading gives 4.6 (tolerance 0.15 points)", m);
}

Verdict abstract_gain(const Context&) {
  // Abstract: "substantial improvements in downstream task performance (up to
  // 4.6% on common pre-training benchmarks)". Sec. 4.2 ties the figure to Table
  // 3 (best setup vs baseline); here the largest gain over the baseline on any
  // of Table 3's 7 benchmarks, in points and relative, against 4.6, and the
  // same over Table 7, whose rows include Table 3's: holds if Table 3's largest
  // gain is 4.6 points and no row of Table 7 gains more than 4.6 + 0.15 on any
  // benchmark; holds approximately if Table 7 does ("up to" understates the
  // paper's own largest gain); fails if Table 3's is not 4.6.
  const PaperTable& t3 = paper_table(3);
  const PaperTable& t7 = paper_table(7);
  const Gain p3 = largest_gain(t3, 0, kTasks, false), r3 = largest_gain(t3, 0, kTasks, true);
  const Gain p7 = largest_gain(t7, 0, kTasks, false), r7 = largest_gain(t7, 0, kTasks, true);
  std::vector<Measure> m{{"table3_largest_gain_points", p3.value},
                         {"table3_largest_gain_relative_percent", r3.value},
                         {"table7_largest_gain_points", p7.value},
                         {"table7_largest_gain_relative_percent", r7.value}};
  const std::string fig =
      "Table 3 +" + fixed(p3.value, 1) + " points, Table 7 +" + fixed(p7.value, 1) + " points";
  const std::string detail =
      "largest gain over the baseline on any of the 7 benchmarks: Table 3 +" + fixed(p3.value, 2) +
      " points (" + p3.where() + "), relative +" + fixed(r3.value, 2) + "% (" + r3.where() +
      "); Table 7 +" + fixed(p7.value, 2) + " points (" + p7.where() + "), relative +" +
      fixed(r7.value, 2) + "% (" + r7.where() + ")";
  if (!points_match(p3.value))
    return fails(fig, detail + ": Table 3's largest gain is not 4.6 points", m);
  if (p7.value > kPaperGain + 0.15 + kTie)
    return holds_approximately(fig,
                               detail +
                                   ": 4.6 is Table 3's largest gain in points (the '%' is "
                                   "percentage points); Table 7 reports a larger one",
                               m);
  return holds(fig, detail + ": 4.6 is the largest gain, in points", m);
}

Verdict best_combination(const Context&) {
  // Appendix 6.2.3: "Table 7 shows that, on average, sigma_init of 0.006 and
  // sigma_target of 0.01 is the best combination" (the setting Sec. 4.2 uses):
  // that row's Mean against every other row's ("on average" names the Mean;
  // the tasks it is best on are reported).
  const PaperTable& t = paper_table(7);
  const TableRow& stated = row_of(t, "0.006 + LIR + TVR(0.01)");
  const TableRow* next = nullptr;  // the largest Mean of the other rows (the first such)
  double next_avg = -1e9;          // the largest task average of the other rows
  for (const TableRow& r : t.rows) {
    if (&r == &stated) continue;
    if (!next || above(r.mean, next->mean)) next = &r;
    next_avg = std::max(next_avg, task_average(r));
  }
  std::string best_tasks;
  int n_best = 0;
  for (std::size_t c = 0; c < kTasks; ++c) {
    bool best = true;
    for (const TableRow& r : t.rows) best = best && !above(r.task[c], stated.task[c]);
    if (!best) continue;
    ++n_best;
    best_tasks += (best_tasks.empty() ? "" : ", ") + std::string(kTableTasks[c]);
  }
  const double margin = stated.mean - next->mean;
  std::vector<Measure> m{{"stated_mean", stated.mean},
                         {"next_largest_mean", next->mean},
                         {"task_average_margin", task_average(stated) - next_avg},
                         {"tasks_best_or_tied", double(n_best)}};
  const std::string fig = "Mean " + fixed(stated.mean, 1) + " vs next " + fixed(next->mean, 1);
  const std::string detail =
      "Table 7, " + std::to_string(t.rows.size()) + " rows: " + row_name(stated) + " Mean " +
      fixed(stated.mean, 1) + ", next " + row_name(*next) + " " + fixed(next->mean, 1) +
      " (task averages: margin " + fixed(task_average(stated) - next_avg, 3) +
      "); best or tied on " + std::to_string(n_best) + "/7 tasks" +
      (best_tasks.empty() ? std::string() : " (" + best_tasks + ")");
  return two_readings(above(stated.mean, next->mean), n_best == int(kTasks), margin, true, fig,
                      detail, m);
}

// Each with-row against its without-row: Mean margins and task cells.
struct Pairs {
  int mean_above = 0, every_above = 0, cells_above = 0, n = 0;
  double min_margin = 1e9;
  std::string mean_counter, task_counter;
  void add(const TableRow& with, const TableRow& without, const std::string& name) {
    const Versus v = versus(with, without);
    ++n;
    cells_above += v.tasks_above;
    min_margin = std::min(min_margin, with.mean - without.mean);
    if (above(with.mean, without.mean))
      ++mean_above;
    else
      mean_counter += (mean_counter.empty() ? "" : ", ") + name + " Mean " + fixed(with.mean, 1) +
                      " vs " + fixed(without.mean, 1);
    if (v.tasks_above == int(kTasks))
      ++every_above;
    else
      task_counter += (task_counter.empty() ? "" : "; ") + name + " " +
                      std::to_string(v.tasks_above) + "/7, not " + v.not_above;
  }
  std::string figure() const {
    return "Mean " + std::to_string(mean_above) + "/" + std::to_string(n) + ", every task " +
           std::to_string(every_above) + "/" + std::to_string(n);
  }
  std::string readings() const {
    return "on Mean " +
           (mean_counter.empty() ? "all above, smallest margin " + fixed(min_margin, 1)
                                 : "not above: " + mean_counter) +
           "; on every task " + (task_counter.empty() ? std::string("all above") : task_counter) +
           " (" + std::to_string(cells_above) + "/" + std::to_string(n * int(kTasks)) +
           " task cells above)";
  }
  std::vector<Measure> measured() const {
    return {{"pairs", double(n)},
            {"pairs_above_on_mean", double(mean_above)},
            {"pairs_above_on_every_task", double(every_above)},
            {"task_cells_above", double(cells_above)}};
  }
};

Verdict lir_all_inits(const Context&) {
  // Sec. 4.1: "Figure 4a further underscores the benefits of LIR in
  // consistently boosting downstream task performance for all initial standard
  // deviation values": each sigma_init of Table 7 with LIR against without.
  // Figure 4a plots the mean accuracy: the Mean is the sentence's reading.
  const PaperTable& t = paper_table(7);
  Pairs p;
  for (const char* s : {"0.02", "0.015", "0.01", "0.008", "0.006"})
    p.add(row_of(t, std::string(s) + " + LIR"), row_of(t, s), s);
  return two_readings(
      p.mean_above == p.n, p.every_above == p.n, p.min_margin, true, p.figure(),
      "Table 7, sigma_init 0.02-0.006 (0.03 has no LIR row), + LIR vs without: " + p.readings(),
      p.measured());
}

Verdict lir_superior(const Context&) {
  // Appendix 6.2.2: "LIR demonstrates superior performance on downstream tasks
  // compared to both the special initialization for residual weights and the
  // baseline (Table 6)": the 0.02 + LIR row against 0.02 + SIR and 0.02, on
  // Mean and per task (the sentence names no reading).
  const PaperTable& t = paper_table(6);
  const TableRow& lir = row_of(t, "0.02 + LIR");
  Pairs p;
  p.add(lir, row_of(t, "0.02 + SIR"), "vs SIR");
  p.add(lir, baseline_of(t), "vs baseline");
  return two_readings(p.mean_above == p.n, p.every_above == p.n, p.min_margin, false, p.figure(),
                      "Table 6, 0.02 + LIR (L" + std::to_string(lir.line) + "): " + p.readings(),
                      p.measured());
}

Verdict decay_helps_downstream(const Context&) {
  // Appendix 6.2.1: "we found that weight decay also helps in downstream task
  // performance as can be seen in Table 5 and Figure 8b": Table 5's sigma_init
  // 0.03 row (weight decay 0.1) against 0.03 + no WD, on Mean and per task (the
  // sentence names no reading; Figure 8b is HellaSwag).
  const PaperTable& t = paper_table(5);
  const TableRow& with = row_of(t, "0.03");
  const TableRow& without = row_of(t, "0.03 + no WD");
  Pairs p;
  p.add(with, without, "0.03 vs 0.03 + no WD");
  std::vector<Measure> m = p.measured();
  m.push_back({"hellaswag_gain", with.task[0] - without.task[0]});
  return two_readings(p.mean_above == p.n, p.every_above == p.n, p.min_margin, false, p.figure(),
                      "Table 5 (L" + std::to_string(with.line) + " vs L" +
                          std::to_string(without.line) + "): " + p.readings() +
                          "; HellaSwag (Figure 8b) " + fixed(with.task[0], 1) + " vs " +
                          fixed(without.task[0], 1),
                      m);
}

}  // namespace

void add_rescale_claims(std::vector<Claim>& out) {
  auto add = [&](std::string id, std::string loc, std::string st, Kind k, bool relied,
                 std::function<Verdict(const Context&)> f) {
    out.push_back(
        {std::move(id), "rescale", std::move(loc), std::move(st), k, relied, std::move(f)});
  };
  add("rescale.eq.8", "eq. 8 (Sec. 2.3.1)",
      "Xavier uniform: W ~ U(-sqrt(6/(n_in+n_out)), +sqrt(6/(n_in+n_out))), variance "
      "2/(n_in+n_out) "
      "(the same as eq. 9)",
      Kind::exact, true, eq8);
  add("rescale.eq.9", "eq. 9 (Sec. 2.3.1)", "Xavier normal: W ~ N(0, 2/(n_in+n_out))", Kind::exact,
      true, eq9);
  add("rescale.eq.10", "eq. 10 (Sec. 2.3.2)", "Kaiming normal: W ~ N(0, 2/n_in)", Kind::exact, true,
      eq10);
  add("rescale.eq.11", "eq. 11 (Sec. 2.3.2)",
      "Kaiming uniform: W ~ U(-sqrt(6/n_in), +sqrt(6/n_in)), variance 2/n_in (the same as eq. 10)",
      Kind::exact, true, eq11);
  add("rescale.sec.2.3.2.relu-variance", "Sec. 2.3.2",
      "Kaiming initialization keeps the variance of the outputs consistent across ReLU layers",
      Kind::approximation, false, relu_variance);
  add("rescale.eq.12", "eq. 12 (Sec. 2.3.4)",
      "GPT-2's special residual init: the last linear map of each MLP and attention layer ~ "
      "N(0, sigma^2/(2N)), N the number of layers; every other matrix keeps N(0, sigma^2)",
      Kind::exact, true, eq12);
  add("rescale.eq.14", "eq. 13-15 (Sec. 2.3.5)",
      "DS-Init: U(-beta alpha/sqrt(l), beta alpha/sqrt(l)), beta = sqrt(6/(n_in+n_out)) inside "
      "layer "
      "l (eq. 13's U(-beta, beta) otherwise): variance beta^2 alpha^2 / (3 l)",
      Kind::exact, true, eq14);
  add("rescale.eq.16", "eq. 16 (Sec. 2.3.6)",
      "Layer Index Rescaling: W ~ N(0, sigma^2 / l) in decoder layer l (l from 1): the variance "
      "decreases with depth",
      Kind::exact, true, eq16);
  add("rescale.sec.2.3.6.prose-scaled-by-sqrt-l", "Sec. 2.3.6, after eq. 16",
      "\"In practice, this means the weight is scaled by sqrt(l) after being initialized from a "
      "Gaussian distribution of standard deviation sigma\"",
      Kind::exact, false, lir_prose);
  add("rescale.eq.17", "eq. 17 (Sec. 2.4.1)",
      "UWR: W <- W / ||W|| leaves W with unit (Frobenius) norm and its direction", Kind::exact,
      true, eq17);
  add("rescale.eq.19", "eq. 19 (Sec. 2.4.2)",
      "z = (W - mu(W)) / sigma(W) has mean 0 and standard deviation 1", Kind::exact, true, eq19);
  add("rescale.eq.20", "eq. 20 (Sec. 2.4.2)",
      "ZWR: W <- z sigma_init + mu(W) gives W the std sigma_init, keeps its mean and z-scores",
      Kind::exact, true, eq20);
  add("rescale.sec.2.4.2.mean-sign", "Sec. 2.4.2, before eq. 20",
      "Adding the mean back after the z-score rescaling counteracts the sign changes of values "
      "close to the mean (the prose says the 'initial' mean; eq. 20 adds W's current mean)",
      Kind::numeric, false, zwr_sign);
  add("rescale.eq.21", "eq. 21 (Sec. 2.4.3)",
      "TVR: W <- z sigma_target + mu(W) gives W the std sigma_target, keeps its mean and z-scores",
      Kind::exact, true, eq21);
  add("rescale.app.6.2.5.warmup", "Appendix 6.2.5 with eq. 21",
      "With a constant sigma_target, TVR acts as a warm-up: deeper layers reach sigma_target "
      "earlier, gradually (layer 10 at ~8BT, layer 1 at ~15BT, TVR every 1BT), as eq. 21 is "
      "applied",
      Kind::numeric, false, tvr_warmup);
  add("rescale.sec.4.1.small-init-faster-growth", "Sec. 4.1, Fig. 1",
      "Under AdamW with weight decay the weight std grows much faster from a small sigma_init "
      "(0.006) than from 0.02",
      Kind::empirical, false, small_init_grows_faster);
  add("rescale.app.6.2.1.decay-bounds-growth", "Appendix 6.2.1, Fig. 7",
      "Weight decay partially bounds the growth of the weight std: it grows more without",
      Kind::empirical, false, decay_bounds_growth);
  add("rescale.sec.4.1.large-init-falls", "Sec. 4.1, Fig. 1",
      "From sigma_init = 0.03 the weight std falls during training, by weight decay",
      Kind::empirical, false, large_init_std_falls);
  for (const int n : {2, 3, 5, 6, 7})
    add("rescale.table." + std::to_string(n) + "-mean", paper_table(n).location,
        "Mean is the average of the 7 task columns and Delta_base is Mean minus the baseline "
        "(sigma_init = 0.02) row's Mean, in every row, to the printed rounding",
        Kind::numeric, false, [n](const Context&) { return table_arithmetic(n); });
  add("rescale.table.repeated-rows", "Tables 2, 3, 5, 6 and 7",
      "A setting printed in several tables (the baseline in all five; sigma_init 0.03 in Tables 2 "
      "and 5; 0.015, 0.01, 0.008, 0.006 in Tables 2 and 7; 0.02 + LIR in Tables 6 and 7; Table "
      "3's three LIR + TVR rows in Table 7) has the same numbers in each",
      Kind::numeric, false, repeated_rows);
  add("rescale.table.duplicate-labels", "Table 7, lines 468-469 (Tables 2, 3, 5, 6, 7 scanned)",
      "Each row of a table is its own setting: no label is printed twice within a table and no "
      "two rows carry the same numbers (Table 7 prints '+ LIR + TVR(sigma_target = 0.02)' twice "
      "under sigma_init = 0.01)",
      Kind::numeric, false, duplicate_labels);
  add("rescale.abstract.up-to-4-6", "Abstract, with Tables 3 and 7",
      "\"better variance management using these techniques yields substantial improvements in "
      "downstream task performance (up to 4.6% on common pre-training benchmarks)\"",
      Kind::empirical, false, abstract_gain);
  add("rescale.sec.4.1.init-range-outperforms", "Sec. 4.1 with Table 2",
      "\"As shown in Table 2, initial values within the 0.006 and 0.015 range consistently "
      "outperformed the baseline of 0.02 on downstream benchmarks\"",
      Kind::empirical, false, init_range_outperforms);
  add("rescale.sec.4.1.lir-all-inits", "Sec. 4.1 (Figure 4a) with Table 7",
      "\"Figure 4a further underscores the benefits of LIR in consistently boosting downstream "
      "task performance for all initial standard deviation values\"",
      Kind::empirical, false, lir_all_inits);
  add("rescale.sec.4.2.hellaswag-4-6", "Sec. 4.2 with Table 3",
      "\"Our experiments demonstrated significant improvements in downstream task performance "
      "after applying TVR during pre-training (see Table 3), with up to 4.6% increase in "
      "HellaSwag compared to the baseline (sigma_init = 0.02)\"",
      Kind::empirical, false, hellaswag_gain);
  add("rescale.app.6.2.1.decay-helps-downstream", "Appendix 6.2.1 with Table 5",
      "\"we found that weight decay also helps in downstream task performance as can be seen in "
      "Table 5 and Figure 8b\"",
      Kind::empirical, false, decay_helps_downstream);
  add("rescale.app.6.2.2.lir-superior", "Appendix 6.2.2 with Table 6",
      "\"LIR demonstrates superior performance on downstream tasks compared to both the special "
      "initialization for residual weights and the baseline (Table 6)\"",
      Kind::empirical, false, lir_superior);
  add("rescale.app.6.2.3.best-combination", "Appendix 6.2.3 with Table 7 (and Sec. 4.2)",
      "\"Table 7 shows that, on average, sigma_init of 0.006 and sigma_target of 0.01 is the best "
      "combination\" (the setting Sec. 4.2 chose 'based on our ablation studies')",
      Kind::empirical, false, best_combination);
}

}  // namespace scaleref::audit
