// Example: scale vectors (scalevec paper, "Negligible in Size, Significant in
// Effect: On Scale Vectors in LLMs"): why the RMSNorm gain g speeds training up
// although it adds no expressivity, and which scale vectors weight decay
// should reach.
//
// The paper's copy lost its formulas; the models below are the project's
// reading of it (../shared/papers/README.md, scaleref/scalevec/dynamics.hpp).
//
// Part 1, Theorem 2.2 (Setting 2.1): a linear teacher y = W* x, x ~ N(0, I),
// and students trained by gradient flow from W = 0, g = 1:
//   without  f(x) = W x                  L = 1/2 ||W - W*||_F^2
//   with g   f(x) = W diag(g) x          L = 1/2 ||W diag(g) - W*||_F^2
//   DP       f(x) = diag(a) W diag(g) x  (a scale vector on each side, a = 1 at first)
//   MD       f(x) = W diag(g) x with g = r u / RMS(u) (magnitude r, direction u)
// Theorem 2.2: L_with(t) <= L_without(t) for every t, strictly for t > 0: g
// turns the flow into a "self-amplifying preconditioned" one, since
// g_j^2 - ||w_j||^2 = 1 is conserved and g grows as W does. The flows are
// integrated with RK4 (dynamics::integrate); for DP the paper's statement
// is lost, so the example just reports where DP's loss lies.
//
// Part 2, IWD (Sec. 3): weight decay on Input-Norm scale vectors (g, before a
// linear map) but not on Output-Norm ones (a, after it). The tiny LM with DP
// scale vectors (g and a on q, k, v, gate, up) is trained three times:
// scale_vector_decay = iwd (decay g only), decay_all (g and a), decay_none.
//
// Run:  scaleref_example_scalevec --out DIR [--quick]
// CSV:  DIR/flow.csv (part 1), DIR/run_<policy>.csv (part 2, the trainer's log),
//       DIR/summary_flow.csv, DIR/summary_lm.csv
// Plot: examples/plot_scalevec.py DIR docs/examples

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <scaleref/io/atomic_file.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/scalevec/dynamics.hpp>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

#include "example_support.hpp"

namespace {

namespace dyn = scaleref::scalevec::dynamics;
namespace train = scaleref::train;
namespace lm = scaleref::lm;
namespace spec = scaleref::spec;
namespace scalevec = scaleref::scalevec;
using Mat = scaleref::Mat<double>;

// ---- Part 1: Theorem 2.2's gradient flows --------------------------------------------

void flows(const std::filesystem::path& out, bool quick) {
  constexpr long m = 8, d = 16;  // teacher W* in R^(m x d)
  Mat W_star(m, d);
  for (long i = 0; i < m; ++i)
    for (long j = 0; j < d; ++j)
      W_star(i, j) = scaleref::random::normal(7, 0, static_cast<std::uint64_t>(i * d + j)) /
                     std::sqrt(static_cast<double>(m));  // columns of norm ~1
  const double t_end = quick ? 2.0 : 6.0, dt_report = 0.05, h = quick ? 0.05 : 0.005;
  std::vector<double> times;
  for (long i = 0; i * dt_report <= t_end + 1e-12; ++i) times.push_back(i * dt_report);

  const std::vector<dyn::Model> models{dyn::Model::without, dyn::Model::with_g, dyn::Model::dp,
                                       dyn::Model::md};
  std::vector<std::vector<dyn::TrajectoryPoint<double>>> runs;
  for (dyn::Model model : models) runs.push_back(dyn::integrate(model, W_star, times, h));

  // Conserved quantity of the with_g flow: g_j^2 - ||w_j||^2 stays 1.
  double drift = 0;
  for (const auto& p : runs[1])
    drift = std::max(drift, (dyn::g_invariant(p.state).array() - 1.0).abs().maxCoeff());

  scaleref::io::AtomicFile csv_file(out / "flow.csv");
  std::ostream& csv = csv_file.stream();
  csv.precision(17);
  csv << "t,loss_without,loss_with_g,loss_dp,loss_md,g_norm_with_g,g_min_with_g,g_max_with_g\n";
  long with_le = 0, dp_le = 0, md_le = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const Mat& g = runs[1][i].state.g;
    csv << times[i] << ',' << runs[0][i].loss << ',' << runs[1][i].loss << ',' << runs[2][i].loss
        << ',' << runs[3][i].loss << ',' << g.norm() / std::sqrt(static_cast<double>(d)) << ','
        << g.minCoeff() << ',' << g.maxCoeff() << '\n';
    if (i == 0) continue;  // at t = 0 all losses are equal
    with_le += runs[1][i].loss < runs[0][i].loss;
    dp_le += runs[2][i].loss < runs[1][i].loss;
    md_le += runs[3][i].loss < runs[1][i].loss;
  }
  csv_file.commit();
  const long n = static_cast<long>(times.size()) - 1;

  // The time each flow needs to bring the loss under 1% of its start.
  auto time_to = [&](std::size_t k) -> double {
    for (const auto& p : runs[k])
      if (p.loss <= 0.01 * runs[k].front().loss) return p.t;
    return NAN;
  };

  std::printf("Part 1: Theorem 2.2, teacher W* %ld x %ld, gradient flow from W = 0, g = a = 1,\n",
              m, d);
  std::printf("RK4 with step %g up to t = %g; loss L(t) = 1/2 ||student - W*||_F^2.\n", h, t_end);
  std::printf("%8s %12s %12s %12s %12s\n", "t", "without", "with g", "DP", "MD");
  for (double show : {0.0, 0.5, 1.0, 2.0, 4.0, 6.0}) {
    for (std::size_t i = 0; i < times.size(); ++i)
      if (std::abs(times[i] - show) < 1e-9)
        std::printf("%8.2f %12.5g %12.5g %12.5g %12.5g\n", show, runs[0][i].loss, runs[1][i].loss,
                    runs[2][i].loss, runs[3][i].loss);
  }
  std::printf(
      "time to reach 1%% of the initial loss: without %.2f, with g %.2f, DP %.2f, MD %.2f\n",
      time_to(0), time_to(1), time_to(2), time_to(3));
  std::printf("L_with_g < L_without at %ld of %ld report times t > 0 (Theorem 2.2: all)\n", with_le,
              n);
  std::printf("L_DP < L_with_g at %ld of %ld; L_MD < L_with_g at %ld of %ld\n", dp_le, n, md_le, n);
  std::printf("max |g_j^2 - ||w_j||^2 - 1| along the with-g flow: %.2e (conserved: 0)\n\n", drift);

  scaleref::io::AtomicFile s_file(out / "summary_flow.csv");
  std::ostream& s = s_file.stream();
  s << "model,time_to_1pct,loss_end,wins_vs_reference,reference,points\n";
  s << "without," << time_to(0) << ',' << runs[0].back().loss << ",,," << n << '\n';
  s << "with_g," << time_to(1) << ',' << runs[1].back().loss << ',' << with_le << ",without," << n
    << '\n';
  s << "dp," << time_to(2) << ',' << runs[2].back().loss << ',' << dp_le << ",with_g," << n << '\n';
  s << "md," << time_to(3) << ',' << runs[3].back().loss << ',' << md_le << ",with_g," << n << '\n';
  s_file.commit();
}

// ---- Part 2: IWD vs decay-all vs decay-none on the tiny LM -----------------------------

// The run of one decay policy: the examples' short Pre-Norm recipe on the
// grammar task, batch 8, RMSNorm with DP scale vectors.
train::Setup setup_for(scalevec::DecayPolicy policy, bool quick) {
  train::Setup s = scaleref::examples::short_pre_norm_run(train::TaskKind::grammar, quick);
  s.model.norm = lm::NormKind::rmsnorm;
  s.model.scale_vectors = lm::ScaleVectors::dp;
  s.model.scale_vector_decay = policy;
  s.train.batch = 8;
  // A short run needs a strong decay for decay to act at all: AdamW shrinks a
  // decayed parameter by (1 - lr weight_decay) per step.
  s.train.adamw.weight_decay = 0.3;
  train::validate(s);
  return s;
}

// RMS of every parameter whose name ends in `suffix` (e.g. "attn_norm.gamma": the g's).
double rms_of(const train::Result& r, const std::string& suffix) {
  double sq = 0;
  long count = 0;
  for (std::size_t i = 0; i < r.params.size(); ++i) {
    const std::string& name = r.params.info[i].name;
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      sq += r.params.values[i].squaredNorm();
      count += r.params.values[i].size();
    }
  }
  return count ? std::sqrt(sq / static_cast<double>(count)) : NAN;
}

void train_all(const std::filesystem::path& out, bool quick) {
  std::printf(
      "Part 2: IWD on the tiny LM (Pre-Norm RMSNorm, DP scale vectors: g before and a after\n"
      "q, k, v, gate, up; grammar task, 4 layers, d_model %d, AdamW lr 3e-3, weight_decay 0.3,\n"
      "%d steps). g = the blocks' RMSNorm gains (Input-Norm), a = the output-side vectors\n"
      "(Output-Norm, the project's classification).\n",
      quick ? 16 : 64, quick ? 10 : 400);
  scaleref::io::AtomicFile summary_file(out / "summary_lm.csv");
  std::ostream& summary = summary_file.stream();
  summary << "policy,decays,val_loss_end,best_val_loss,train_loss_end,rms_g_end,rms_a_end,"
             "unigram_loss\n";
  std::printf("%-11s %-7s %10s %10s %10s %10s\n", "policy", "decays", "val (end)", "best val",
              "RMS(g)", "RMS(a)");
  for (const scalevec::DecayPolicy p :
       {scalevec::DecayPolicy::decay_none, scalevec::DecayPolicy::iwd,
        scalevec::DecayPolicy::decay_all}) {
    const char* policy = spec::name_of(scalevec::kDecayPolicies, p);
    const train::Setup s = setup_for(p, quick);
    scaleref::io::AtomicFile csv_file(out / (std::string("run_") + policy + ".csv"));
    std::ostream& csv = csv_file.stream();
    const train::Result r = train::run(s, &csv, nullptr);
    csv_file.commit();
    double best = r.evals.front().val_loss;
    for (const auto& e : r.evals) best = std::min(best, e.val_loss);
    const double g = rms_of(r, "_norm.gamma"), a = rms_of(r, ".a");
    const std::string decays = std::string(policy) == "iwd"         ? "g"
                               : std::string(policy) == "decay_all" ? "g+a"
                                                                    : "-";
    std::printf("%-11s %-7s %10.4f %10.4f %10.4f %10.4f\n", policy, decays.c_str(),
                r.evals.back().val_loss, best, g, a);
    std::fflush(stdout);
    summary << policy << ',' << decays << ',' << r.evals.back().val_loss << ',' << best << ','
            << r.last_loss << ',' << g << ',' << a << ',' << r.task.unigram_loss << '\n';
  }
  summary_file.commit();
  std::printf("(RMS(g) includes the final norm's gain; all start at 1.)\n");
}

}  // namespace

int main(int argc, char** argv) {
  const scaleref::examples::Args args =
      scaleref::examples::start(argc, argv, "scaleref_example_scalevec");
  std::printf(
      "scalevec: scale vectors add no expressivity to a Pre-Norm model (g can be folded into\n"
      "the next matrix) yet change how it trains (scalevec paper, Theorem 2.2 and IWD; the\n"
      "formulas are the project's reading of the paper, whose copy lost them).\n"
      "  - Theorem 2.2: with a scale vector, W diag(g) reaches the teacher faster than W alone\n"
      "    under gradient flow: g grows with W and amplifies its own updates.\n"
      "  - IWD: decay the Input-Norm vectors g, not the Output-Norm ones.\n\n");
  flows(args.out, args.quick);
  train_all(args.out, args.quick);
  std::printf("\nCSV files written to %s\n", args.out.string().c_str());
  return 0;
}
