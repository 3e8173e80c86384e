// Example: SeeDNorm (seednorm paper, "SeeDNorm: Self-Rescaled Dynamic
// Normalization") against RMSNorm and DyT, when the input's scale changes.
//
// The three normalizations, for one row x of D features (RMS(x) = sqrt(mean x^2 + eps)):
//   RMSNorm   y = gamma (.) x / RMS(x)                                (seednorm eq. 2)
//   DyT       y = gamma (.) tanh(a x) + b                             (eq. 3)
//   SeeDNorm  y = [tanh(x . beta^T) alpha + gamma] (.) x / RMS(x)     (eq. 4)
//
// Part 1 (eq. 5 and 29): scale the input, x -> k x, for k from 1e-4 to 1e4,
// and call each module's forward and backward (scaleref/norm/*.hpp) directly.
//   - eq. 5: RMSNorm's output does not depend on k at all (the input's norm is
//     lost); SeeDNorm's only through tanh(k x . beta^T), which is bounded, so
//     its output stays in [gamma - alpha, gamma + alpha] x_hat and still tells
//     small inputs from large ones. DyT's output follows k linearly for small
//     k (it fades out) and saturates at +-gamma for large k (it clips).
//   - eq. 29: the gradient reaching the input shrinks like 1 / k for RMSNorm
//     and SeeDNorm (a layer fed a huge input passes back a small gradient, a
//     built-in brake). DyT's gradient a (1 - tanh^2(a k x)) goes to zero
//     exponentially for large k: inputs that large stop learning.
//   SeeDNorm initializes beta = 0, where it equals RMSNorm exactly; here beta
//   is a fixed random vector (std 1 / sqrt(D)), like one learned in training.
//
// Part 2: the tiny LM (Pre-Norm, kv_recall task: recall the value of a key seen
// earlier in the sequence) trained three times with norm =
// rmsnorm, dyt, seednorm: same data, same steps, same seed; loss curves.
//
// Run:  scaleref_example_seednorm --out DIR [--quick]
// CSV:  DIR/scale_sweep.csv (part 1), DIR/run_<norm>.csv (part 2, the trainer's
//       log), DIR/summary.csv
// Plot: examples/plot_seednorm.py DIR docs/examples

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <scaleref/io/atomic_file.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

#include "example_support.hpp"

namespace {

namespace norm = scaleref::norm;
namespace train = scaleref::train;
namespace lm = scaleref::lm;
using Mat = scaleref::Mat<double>;

// A [rows, cols] matrix of standard normals from the project's Philox stream.
Mat normals(long rows, long cols, std::uint32_t tensor, double scale = 1.0) {
  Mat m(rows, cols);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < cols; ++j)
      m(i, j) =
          scale * scaleref::random::normal(0, tensor, static_cast<std::uint64_t>(i * cols + j));
  return m;
}

double rms(const Mat& m) { return std::sqrt(m.squaredNorm() / static_cast<double>(m.size())); }

// What one module does with the input k x: its output's RMS, and the norms of
// the gradients of L = <dy, y> with respect to the input and to its parameters.
struct Measure {
  double out_rms, grad_x, grad_params;
};

// ---- Part 1: the input-scale sweep ------------------------------------------------

void sweep(const std::filesystem::path& out, bool quick) {
  constexpr long N = 16, D = 64;  // 16 rows (tokens) of 64 features
  const Mat x = normals(N, D, 1);
  const Mat dy = normals(N, D, 2);  // a fixed upstream gradient

  const norm::rmsnorm::Config rms_c;  // eps = 1e-6, the tiny LM's default
  const auto rms_p = norm::rmsnorm::init<double>(D);
  const norm::dyt::Config dyt_c;  // alpha = 0.5, gamma = 1, beta = 0
  const auto dyt_p = norm::dyt::init<double>(D, dyt_c);
  norm::seednorm::Config seed_c;  // tanh, eps = 1e-6, alpha = 1, gamma = 1
  auto seed_p = norm::seednorm::init<double>(D, seed_c);
  seed_p.beta = normals(1, D, 3, 1.0 / std::sqrt(static_cast<double>(D)));  // "trained" beta

  auto rms_at = [&](const Mat& in) {
    norm::rmsnorm::Cache<double> c;
    const Mat y = norm::rmsnorm::forward(rms_p, rms_c, in, &c);
    const auto g = norm::rmsnorm::backward(rms_p, rms_c, c, dy);
    return Measure{rms(y), g.dx.norm(), g.dgamma.norm()};
  };
  auto dyt_at = [&](const Mat& in) {
    norm::dyt::Cache<double> c;
    const Mat y = norm::dyt::forward(dyt_p, dyt_c, in, &c);
    const auto g = norm::dyt::backward(dyt_p, dyt_c, c, dy);
    return Measure{
        rms(y), g.dx.norm(),
        std::sqrt(g.dalpha.squaredNorm() + g.dgamma.squaredNorm() + g.dbeta.squaredNorm())};
  };
  // SeeDNorm also reports the self-rescaling factor tanh(k x . beta^T) (mean |.| over rows)
  // and the gradient of beta alone, which eq. 20 keeps bounded through tanh'.
  double seed_s = 0, seed_dbeta = 0;
  auto seed_at = [&](const Mat& in) {
    norm::seednorm::Cache<double> c;
    const Mat y = norm::seednorm::forward(seed_p, seed_c, in, &c);
    const auto g = norm::seednorm::backward(seed_p, seed_c, c, dy);
    seed_s = c.z.array().tanh().abs().mean();
    seed_dbeta = g.dbeta.norm();
    return Measure{
        rms(y), g.dx.norm(),
        std::sqrt(g.dalpha.squaredNorm() + g.dbeta.squaredNorm() + g.dgamma.squaredNorm())};
  };

  scaleref::io::AtomicFile csv_file(out / "scale_sweep.csv");
  std::ostream& csv = csv_file.stream();
  csv << "k,rmsnorm_out_rms,rmsnorm_grad_x,rmsnorm_grad_params,dyt_out_rms,dyt_grad_x,"
         "dyt_grad_params,seednorm_out_rms,seednorm_grad_x,seednorm_grad_params,"
         "seednorm_tanh_abs,seednorm_grad_beta\n";
  csv.precision(17);
  std::printf("Part 1: x -> k x, %ld rows of D = %ld standard normals, eps = %g\n", N, D,
              rms_c.eps);
  std::printf("%8s | %-21s | %-21s | %-29s\n", "", "RMSNorm", "DyT", "SeeDNorm");
  std::printf("%8s | %9s %11s | %9s %11s | %9s %11s %7s\n", "k", "out RMS", "|dL/dx|", "out RMS",
              "|dL/dx|", "out RMS", "|dL/dx|", "|tanh|");
  const int per_decade = quick ? 1 : 8;
  for (int e = -4 * per_decade; e <= 4 * per_decade; ++e) {
    const double k = std::pow(10.0, static_cast<double>(e) / per_decade);
    const Mat in = k * x;
    const Measure r = rms_at(in), d = dyt_at(in), s = seed_at(in);
    csv << k << ',' << r.out_rms << ',' << r.grad_x << ',' << r.grad_params << ',' << d.out_rms
        << ',' << d.grad_x << ',' << d.grad_params << ',' << s.out_rms << ',' << s.grad_x << ','
        << s.grad_params << ',' << seed_s << ',' << seed_dbeta << '\n';
    if (e % per_decade == 0)  // print one row per decade
      std::printf("%8.0e | %9.4f %11.4g | %9.4f %11.4g | %9.4f %11.4g %7.4f\n", k, r.out_rms,
                  r.grad_x, d.out_rms, d.grad_x, s.out_rms, s.grad_x, seed_s);
  }
  csv_file.commit();
  std::printf(
      "Below k ~ 1e-3, mean((k x)^2) drops under eps = 1e-6 and the eps inside RMS(x) takes\n"
      "over: RMSNorm's and SeeDNorm's outputs shrink and their gradients stop growing (the\n"
      "paper's eq. 5 and 29 drop eps). |dL/dx| is the norm of the input gradient for a fixed\n"
      "random upstream gradient dy.\n\n");
}

// ---- Part 2: training the tiny LM with each norm -------------------------------------

// The run of one norm: the examples' short Pre-Norm recipe on kv_recall, batch 16.
train::Setup setup_for(lm::NormKind norm, bool quick) {
  train::Setup s = scaleref::examples::short_pre_norm_run(train::TaskKind::kv_recall, quick);
  s.model.norm = norm;
  s.train.batch = 16;
  train::validate(s);
  return s;
}

void train_all(const std::filesystem::path& out, bool quick) {
  std::printf(
      "Part 2: the tiny LM (Pre-Norm, kv_recall task, 4 layers, d_model %d, AdamW lr 3e-3, %d "
      "steps),\nonce per norm; same data, same seed.\n",
      quick ? 16 : 64, quick ? 10 : 400);
  scaleref::io::AtomicFile summary_file(out / "summary.csv");
  std::ostream& summary = summary_file.stream();
  summary << "norm,val_loss_first_eval,val_loss_end,best_val_loss,train_loss_end,unigram_loss\n";
  std::printf("%-9s %16s %14s %14s\n", "norm", "val (1st eval)", "val (end)", "best val");
  for (const lm::NormKind norm :
       {lm::NormKind::rmsnorm, lm::NormKind::dyt, lm::NormKind::seednorm}) {
    const char* n = lm::norm_name(norm);
    const train::Setup s = setup_for(norm, quick);
    scaleref::io::AtomicFile csv_file(out / (std::string("run_") + n + ".csv"));
    std::ostream& csv = csv_file.stream();
    const train::Result r = train::run(s, &csv, nullptr);
    csv_file.commit();
    double best = r.evals.front().val_loss;
    for (const auto& e : r.evals) best = std::min(best, e.val_loss);
    const double first = r.evals.size() > 1 ? r.evals[1].val_loss : r.evals[0].val_loss;
    std::printf("%-9s %16.4f %14.4f %14.4f\n", n, first, r.evals.back().val_loss, best);
    std::fflush(stdout);
    summary << n << ',' << first << ',' << r.evals.back().val_loss << ',' << best << ','
            << r.last_loss << ',' << r.task.unigram_loss << '\n';
  }
  summary_file.commit();
}

}  // namespace

int main(int argc, char** argv) {
  const scaleref::examples::Args args =
      scaleref::examples::start(argc, argv, "scaleref_example_seednorm");
  std::printf(
      "seednorm: how RMSNorm, DyT and SeeDNorm respond when their input is scaled by k\n"
      "(seednorm eq. 2-4, 5 and 29), and how the tiny LM trains with each.\n"
      "  - RMSNorm:  y = gamma x / RMS(x): the same output for every k > 0 (the norm is lost),\n"
      "    input gradient ~ 1/k.\n"
      "  - DyT:      y = gamma tanh(a x) + b: fades out for small k, clips for large k, and its\n"
      "    gradient vanishes for large k.\n"
      "  - SeeDNorm: y = [tanh(x . beta) alpha + gamma] x / RMS(x): the factor tanh(k x . beta)\n"
      "    keeps a bounded trace of the scale; input gradient ~ 1/k like RMSNorm.\n\n");
  sweep(args.out, args.quick);
  train_all(args.out, args.quick);
  std::printf("\nCSV files written to %s\n", args.out.string().c_str());
  return 0;
}
