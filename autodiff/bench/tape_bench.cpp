// scaleref_tape_bench: how much slower the tape's gradient is than the
// hand-derived backward, on the same inputs, for every normalization method,
// SDD, the plain linear map and the tiny LM.
//
// One measurement of a method is its full gradient from the inputs: the
// analytic side runs the reference's forward and backward (the Problem's
// backward, autodiff/src/norms.cpp and sdd.cpp), the tape side records the
// forward on a tape and sweeps it in reverse (Problem::from_tape). The LM is
// lm::forward + lm::backward against autodiff::tape_lm_gradients. Each side's
// time is the median of --reps runs after one warm-up; the ratio is
// tape / analytic (the tape is an independent check, not a fast path).
//
//   scaleref_tape_bench [--reps N] [--n N] [--d D]     threads: OMP_NUM_THREADS
//
// Defaults: 5 reps, [N, D] = [512, 512] for the layers; the LM at
// scaleref_lm_bench's configuration (d_model 128, 4 layers, 4 heads, sequence
// 128, batch 16, vocab 256).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <scaleref/autodiff/lm.hpp>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/autodiff/sdd.hpp>
#include <scaleref/lm/model.hpp>
#include <scaleref/random/philox.hpp>
#include <string>
#include <vector>

#include "../../reference/bench/lm_bench_setup.hpp"

namespace {

using namespace scaleref;
using M = Mat<double>;

double median_seconds(const std::function<void()>& f, int reps) {
  f();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

M values(Eigen::Index rows, Eigen::Index cols, std::uint32_t stream, double lo, double hi) {
  M m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i)
    m.data()[i] = lo + (hi - lo) * random::uniform(7, stream, static_cast<std::uint64_t>(i));
  return m;
}

// An input of a method by its name: x and the conditions [N, D], maps [D, D],
// DyT's alpha a scalar, every other parameter a [1, D] row.
M input(const std::string& method, const std::string& name, Eigen::Index n, Eigen::Index d,
        std::uint32_t stream) {
  if (name == "x") return values(n, d, stream, -2, 2);
  if (name == "gamma_c" || name == "eta_c") return values(n, d, stream, -0.1, 0.1);
  if (name == "V" || name == "W") return values(d, d, stream, -1, 1) / std::sqrt(double(d));
  if (name == "alpha" && method == "dyt") return M::Constant(1, 1, 0.7);
  if (name == "beta" && method.find("seednorm") != std::string::npos)
    return values(1, d, stream, -0.05, 0.05);
  return values(1, d, stream, 0.5, 1.5);
}

struct Case {
  std::string name;
  verify::Problem analytic, tape;
};

int parse(const char* flag, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 1 || v > 100000) {
    std::fprintf(stderr, "scaleref_tape_bench: %s expects a positive count, got '%s'\n", flag,
                 text);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, n = 512, d = 512;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--reps") {
      reps = parse("--reps", argv[i + 1]);
    } else if (i + 1 < argc && a == "--n") {
      n = parse("--n", argv[i + 1]);
    } else if (i + 1 < argc && a == "--d") {
      d = parse("--d", argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: scaleref_tape_bench [--reps N] [--n N] [--d D]\n");
      return 2;
    }
  }
  if (d % 8 != 0) {
    std::fprintf(stderr, "scaleref_tape_bench: --d must be divisible by 8 (SeeDNorm's heads)\n");
    return 2;
  }
  norm::seednorm::Config heads8;
  heads8.heads = 8;
  std::vector<Case> cases{
      {"rmsnorm", autodiff::analytic_rmsnorm({}), autodiff::tape_rmsnorm_problem({})},
      {"layernorm", autodiff::analytic_layernorm({}), autodiff::tape_layernorm_problem({})},
      {"dyt", autodiff::analytic_dyt({}), autodiff::tape_dyt_problem({})},
      {"seednorm", autodiff::analytic_seednorm({}), autodiff::tape_seednorm_problem({})},
      {"seednorm_heads8", autodiff::analytic_seednorm(heads8),
       autodiff::tape_seednorm_problem(heads8)},
      {"adaseednorm", autodiff::analytic_adaseednorm({}), autodiff::tape_adaseednorm_problem({})},
      {"sdd", autodiff::analytic_sdd({}), autodiff::tape_sdd_problem({})},
      {"linear", autodiff::analytic_linear(), autodiff::tape_linear_problem()},
  };
  std::printf("scaleref_tape_bench: double, [N, D] = [%d, %d], %d reps (median)\n", n, d, reps);
  std::printf("%-16s %12s %12s %8s\n", "method", "analytic ms", "tape ms", "tape/analytic");
  for (const Case& c : cases) {
    const std::string method = c.name.substr(0, c.name.find('_'));
    verify::Inputs<double> in;
    std::uint32_t stream = 1;
    for (const std::string& name : c.analytic.input_names)
      in.push_back(input(method, name, n, d, stream++));
    const M y = c.analytic.f64.forward(in);
    const M dy = values(y.rows(), y.cols(), 99, -1, 1);
    const double a = median_seconds([&] { c.analytic.f64.backward(in, dy); }, reps);
    const double t = median_seconds([&] { c.tape.f64.backward(in, dy); }, reps);
    std::printf("%-16s %12.2f %12.2f %8.2f\n", c.name.c_str(), a * 1e3, t * 1e3, t / a);
  }

  const lm::Config c = bench::lm_config();
  const lm::ParamStore<double> p = lm::init_params<double>(c);
  const lm::Batch b = bench::lm_batch(c);
  lm::Cache<double> cache;
  lm::ParamStore<double> g;
  const double a = median_seconds(
      [&] {
        lm::forward(c, p, b, &cache);
        lm::backward(c, p, b, cache, g);
      },
      reps);
  const double t = median_seconds([&] { autodiff::tape_lm_gradients(c, p, b); }, reps);
  std::printf("%-16s %12.2f %12.2f %8.2f\n", "lm (bench config)", a * 1e3, t * 1e3, t / a);
  return 0;
}
