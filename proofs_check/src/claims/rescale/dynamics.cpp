// The rescale paper, Sec. 4.1 (Fig. 1) and Appendix 6.2.1 (Fig. 7): the weight
// std during training, recomputed on the tiny LM (reference/include/scaleref/
// lm/, train/trainer.hpp) trained on the synthetic grammar with AdamW, a short
// run with the product lr x weight_decay scaled up so that decay acts within it
// (see lm_growth below). Each run's model init and data derive from the run's
// seed (Context::seed): the verdicts are stochastic.
#include <cstddef>
#include <cstdint>
#include <scaleref/metrics/weights.hpp>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

#include "claims/rescale/readings.hpp"
#include "claims/rescale/rescale.hpp"

namespace scaleref::audit {

namespace {

using namespace rescale_paper;

// ---- training dynamics on the tiny LM (Sec. 4.1, Appendix 6.2.1) -----------------

// The mean over decoder-layer matrices of std(W) after a run, and at init.
struct Growth {
  double std0 = 0, std_end = 0;
  double growth() const { return std_end - std0; }
};

// Trains the tiny LM (d_model 32, 2 layers, 2 heads, SwiGLU 128, Pre-Norm
// RMSNorm) on the grammar task for `steps` AdamW steps at lr 3e-3 (constant)
// with Gaussian init sigma_init and the given weight decay; the model's init
// on `seed`, the data on seed + 1. AdamW's decoupled decay shrinks a weight by
// (1 - lr lambda) per step, exp(-lambda sum_t lr_t) over a run. The paper's
// runs (Table 1): 100BT / (4032 x 2048 tokens per step) ~ 1.2e4 steps, a 1BT
// (~120-step) warm-up, then cosine from 6e-4 to 6e-5 (mean lr 3.3e-4):
// sum_t lr_t ~ 4.0, and with lambda 0.1 a decay of e^-0.4. Here lr 3e-3 with
// lambda 0.5 decays by e^-0.3 in 200 steps (about the paper's) and by e^-1.5
// in 1000 (--thorough, about 4x the paper's); with lambda 0.1, 200 steps decay
// by e^-0.06 only.
Growth lm_growth(std::uint64_t seed, double sigma_init, double weight_decay, long steps = 200) {
  train::Setup s = train::make_setup({.kind = train::TaskKind::grammar, .seq = 32});
  s.model.d_model = 32;
  s.model.n_layers = 2;
  s.model.n_heads = 2;
  s.model.init = lm::InitMethod::gaussian;
  s.model.init_sigma = sigma_init;
  s.model.seed = seed;
  s.train.data_seed = seed + 1;
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
  const Growth small = lm_growth(ctx.seed, 0.006, 0.1);
  ctx.progress("training at sigma_init 0.02");
  const Growth base = lm_growth(ctx.seed, 0.02, 0.1);
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
  if (ratio >= 1.5) return consistent("growth x" + fixed(ratio, 2), detail, m);
  if (ratio > 1)
    return consistent("growth x" + fixed(ratio, 2),
                      detail + ": faster, but under the 1.5x read as 'much faster'", m);
  return fails(Fault::not_reproduced, "growth x" + fixed(ratio, 2), detail, m);
}

Verdict decay_bounds_growth(const Context& ctx) {
  // Appendix 6.2.1: weight decay "helps in partially bounding the weight
  // variance", the std growing more without it: runs at lr 3e-3 from
  // sigma_init 0.02 with lambda 0.5 and 0.
  ctx.progress("training at sigma_init 0.02, weight decay 0.5");
  const Growth decayed = lm_growth(ctx.seed, 0.02, 0.5);
  ctx.progress("training at sigma_init 0.02, weight decay 0");
  const Growth free = lm_growth(ctx.seed, 0.02, 0.0);
  std::vector<Measure> m{{"growth_wd_0.5", decayed.growth()}, {"growth_wd_0", free.growth()}};
  const std::string detail =
      "tiny LM, grammar, 200 AdamW steps at lr 3e-3 from sigma_init 0.02: std " +
      fixed(decayed.std0, 4) + " -> " + fixed(decayed.std_end, 4) + " with wd 0.5, -> " +
      fixed(free.std_end, 4) + " without";
  const std::string figure = "growth " + sci(decayed.growth()) + " vs " + sci(free.growth());
  if (decayed.growth() < free.growth()) return consistent(figure, detail, m);
  return fails(Fault::not_reproduced, figure, detail, m);
}

Verdict large_init_std_falls(const Context& ctx) {
  // Sec. 4.1: "the reduction in standard deviation for initial value of 0.03
  // is also caused by the partial bounding effect of weight decay": from
  // sigma_init 0.03 with decay (lambda 0.5 at lr 3e-3) the std ends below its
  // start. Both run lengths, every run: 200 steps (decay e^-0.3, about the
  // paper's e^-0.4) and 1000 (e^-1.5); the sign of the change differs between
  // them on some seeds, and a verdict that one length would reverse is
  // inconclusive (with both figures), not whichever length ran.
  std::vector<Measure> m;
  std::string detail = "tiny LM, grammar, AdamW at lr 3e-3, wd 0.5, mean decoder-matrix std:";
  int fell = 0;
  for (const long steps : {200L, 1000L}) {
    ctx.progress("training at sigma_init 0.03, weight decay 0.5, " + std::to_string(steps) +
                 " steps");
    const Growth g = lm_growth(ctx.seed, 0.03, 0.5, steps);
    const std::string n = std::to_string(steps);
    m.push_back({"std0_" + n, g.std0});
    m.push_back({"std_end_" + n, g.std_end});
    detail += " " + n + " steps " + fixed(g.std0, 4) + " -> " + fixed(g.std_end, 4) +
              (g.growth() < 0 ? " (falls);" : " (grows);");
    fell += g.growth() < 0;
  }
  detail.pop_back();
  const std::string figure = "falls at " + std::to_string(fell) + " of 2 run lengths";
  if (fell == 2) return consistent(figure, detail, m);
  if (fell == 0)
    return fails(Fault::not_reproduced, figure, detail + ": the std grows in this regime", m);
  return inconclusive(figure, detail + ": the run length decides the sign", m);
}

}  // namespace

void add_rescale_dynamics_claims(Registrar& r) {
  r.add({.id = "rescale.sec.4.1.small-init-faster-growth",
         .location = "Sec. 4.1, Fig. 1",
         .statement = "Under AdamW with weight decay the weight std grows much faster from a "
                      "small sigma_init (0.006) than from 0.02",
         .kind = Kind::empirical,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 263,
         .quote = "Notably, the rate of increase in standard deviation is much faster when "
                  "starting with smaller initial values, such as 0.006 or 0.008, compared to "
                  "larger values such as 0.02.",
         .reading = &kMuchFasterReading,
         .scope = Scope::proxy,
         .stochastic = true,
         .inputs = "tiny LM (d_model 32, 2 layers, 2 heads), grammar task seq 32, batch 8; 200 "
                   "AdamW steps, constant lr 3e-3, weight decay 0.1; Gaussian init sigma 0.006 "
                   "and 0.02; init seed = run seed, data seed = run seed + 1",
         .formula = "growth = mean over decoder matrices of std(W_200) - std(W_0); ratio = "
                    "growth(0.006) / growth(0.02)",
         .threshold = "a proxy for the paper's 1B-parameter runs: consistent at small scale if "
                      "ratio > 1 (the detail says when under 1.5, 'much faster'); not reproduced "
                      "at small scale if ratio <= 1",
         .against =
             "tiny LM (d_model 32, 2 layers) trained 200 AdamW steps (lr 3e-3, wd 0.1) on the "
             "synthetic grammar, 3 seeds; mean decoder-matrix std growth from 0.006 vs 0.02",
         .check = small_init_grows_faster});
  r.add({.id = "rescale.app.6.2.1.decay-bounds-growth",
         .location = "Appendix 6.2.1, Fig. 7",
         .statement = "Weight decay partially bounds the growth of the weight std: it grows more "
                      "without",
         .kind = Kind::empirical,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 416,
         .quote = "Figure 7 illustrates that weight decay helps in partially bounding the weight "
                  "variance as can be seen in growing standard deviation when weight decay is "
                  "not used (set to 0.0).",
         .scope = Scope::proxy,
         .stochastic = true,
         .inputs = "tiny LM as rescale.sec.4.1.small-init-faster-growth, sigma_init 0.02, 200 "
                   "AdamW steps at lr 3e-3, weight decay 0.5 and 0",
         .formula = "growth = mean over decoder matrices of std(W_200) - std(W_0), with and "
                    "without decay",
         .threshold = "a proxy for the paper's 1B-parameter runs: consistent at small scale if "
                      "growth(wd 0.5) < growth(wd 0); not reproduced at small scale otherwise",
         .against = "tiny LM trained 200 AdamW steps from sigma_init 0.02 with wd 0.5 and 0 (lr x "
                    "wd scaled so total decay e^-0.3 ~ the paper's e^-0.4), 3 seeds",
         .check = decay_bounds_growth});
  r.add({.id = "rescale.sec.4.1.large-init-falls",
         .location = "Sec. 4.1, Fig. 1",
         .statement = "From sigma_init = 0.03 the weight std falls during training, by weight "
                      "decay",
         .kind = Kind::empirical,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 263,
         .quote = "Additionally, the reduction in standard deviation for initial value of 0.03 "
                  "is also caused by the partial bounding effect of weight decay.",
         .scope = Scope::proxy,
         .stochastic = true,
         .inputs = "tiny LM as rescale.sec.4.1.small-init-faster-growth, sigma_init 0.03, weight "
                   "decay 0.5, lr 3e-3; two runs, 200 AdamW steps (decay e^-0.3, about the "
                   "paper's) and 1000 (e^-1.5)",
         .formula = "mean over decoder matrices of std(W_T) vs std(W_0), T = 200 and 1000",
         .threshold = "a proxy for the paper's 1B-parameter runs: consistent at small scale if "
                      "std(W_T) < std(W_0) at both lengths; not reproduced at small scale if at "
                      "neither; inconclusive if at one",
         .against = "tiny LM trained 200 and 1000 AdamW steps from sigma_init 0.03 with wd 0.5 "
                    "(total decay e^-0.3 and e^-1.5), 3 seeds",
         .check = large_init_std_falls});
}

}  // namespace scaleref::audit
