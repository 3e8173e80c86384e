// scaleref_tape_bench: how much slower the tape's gradient is than the
// hand-derived backward, on the same inputs, for every normalization method,
// SDD, the plain linear map and the tiny LM.
//
// One measurement of a method is its full gradient from the inputs. The
// analytic side runs the reference's forward and backward in their into-forms
// (types.hpp: output, Cache and Grads kept from one rep to the next, as a
// training loop keeps them). The tape side records the forward on a tape and
// sweeps it in reverse (Problem::from_tape, whose tape keeps its matrices from
// one call to the next: tape.hpp, "Storage"); it also copies the inputs into
// its leaves and hands back copies of the gradients, which is part of what a
// tape costs. The LM is lm::forward + lm::backward (Cache and gradients kept)
// against autodiff::tape_lm_gradients on a kept tape. After one warm-up of
// each, the two sides run in --reps alternated pairs; printed are each side's
// median time and the median of the pairs' ratios tape / analytic (the tape
// is an independent check, not a fast path).
//
//   scaleref_tape_bench [--reps N] [--n N] [--d D] [--only NAME]   threads: OMP_NUM_THREADS
//
// Defaults: 5 reps (alternated pairs), [N, D] = [512, 512] for the layers; the LM at
// scaleref_lm_bench's configuration (d_model 128, 4 layers, 4 heads, sequence
// 128, batch 16, vocab 256). --only runs one case: a method's name as printed,
// or "lm".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <scaleref/autodiff/lm.hpp>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/autodiff/sdd.hpp>
#include <scaleref/linear/plain.hpp>
#include <scaleref/lm/model.hpp>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/sdd/layer.hpp>
#include <string>
#include <vector>

#include "../../reference/bench/lm_bench_setup.hpp"

namespace {

using namespace scaleref;
using M = Mat<double>;

double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Both sides once to warm up, then `reps` alternated pairs (analytic, tape):
// a slow spell of the machine lands on both sides of a pair, and the median
// of the pairs' ratios discounts it. Prints a row of the table.
void compare(const std::string& name, const std::function<void()>& analytic,
             const std::function<void()>& tape, int reps) {
  analytic();
  tape();
  std::vector<double> a, t, ratio;
  for (int i = 0; i < reps; ++i) {
    a.push_back(seconds(analytic));
    t.push_back(seconds(tape));
    ratio.push_back(t.back() / a.back());
  }
  std::printf("%-18s %12.3f %12.3f %10.2f\n", name.c_str(), median(a) * 1e3, median(t) * 1e3,
              median(ratio));
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

// A method's inputs by name, as its Problem orders them; an absent one is empty.
struct Named {
  const std::vector<std::string>& names;
  const verify::Inputs<double>& in;
  M operator()(const std::string& name) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return in[i];
    return M();
  }
};

// One forward + backward of a layer in its into-forms, on storage the returned
// function keeps from call to call.
using Step = std::function<void()>;

template <class Params, class Cache, class Grads, class Config>
Step layer_step(Params p, Config c, const M& x, const M& dy) {
  return [p, c, &x, &dy, y = M(), k = Cache(), g = Grads()]() mutable {
    forward(p, c, x, y, k);  // found by argument-dependent lookup in the layer's namespace
    backward(p, c, k, dy, g);
  };
}

Step analytic_step(const std::string& name, const norm::seednorm::Config& heads8, const Named& in,
                   const M& dy) {
  const M& x = in.in[0];
  namespace n = norm;
  if (name == "rmsnorm")
    return layer_step<n::rmsnorm::Params<double>, n::rmsnorm::Cache<double>,
                      n::rmsnorm::Grads<double>>({in("gamma")}, n::rmsnorm::Config{}, x, dy);
  if (name == "layernorm")
    return layer_step<n::layernorm::Params<double>, n::layernorm::Cache<double>,
                      n::layernorm::Grads<double>>({in("gamma"), in("beta")},
                                                   n::layernorm::Config{}, x, dy);
  if (name == "dyt")
    return layer_step<n::dyt::Params<double>, n::dyt::Cache<double>, n::dyt::Grads<double>>(
        {in("alpha"), in("gamma"), in("beta")}, n::dyt::Config{}, x, dy);
  if (name == "seednorm" || name == "seednorm_heads8")
    return layer_step<n::seednorm::Params<double>, n::seednorm::Cache<double>,
                      n::seednorm::Grads<double>>(
        {in("alpha"), in("beta"), in("gamma")}, name == "seednorm" ? n::seednorm::Config{} : heads8,
        x, dy);
  if (name == "sdd")
    return layer_step<sdd::Params<double>, sdd::Cache<double>, sdd::Grads<double>>(
        {in("V"), in("alpha")}, sdd::Config{}, x, dy);
  if (name == "adaseednorm") {
    const n::adaseednorm::Params<double> p{in("alpha"), in("beta")};
    return [p, &x, &dy, gamma_c = in("gamma_c"), eta_c = in("eta_c"), y = M(),
            k = n::adaseednorm::Cache<double>(), g = n::adaseednorm::Grads<double>()]() mutable {
      n::adaseednorm::forward(p, {}, x, gamma_c, eta_c, y, k);
      n::adaseednorm::backward(p, {}, k, dy, g);
    };
  }
  // linear (no Config)
  const linear::Params<double> p{in("W")};
  return [p, &x, &dy, y = M(), k = linear::Cache<double>(), g = linear::Grads<double>()]() mutable {
    linear::forward(p, x, y, k);
    linear::backward(p, k, dy, g);
  };
}

struct Case {
  std::string name;
  verify::Problem analytic, tape;  // the analytic Problem names the inputs and shapes dy
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
  std::string only;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--reps") {
      reps = parse("--reps", argv[i + 1]);
    } else if (i + 1 < argc && a == "--n") {
      n = parse("--n", argv[i + 1]);
    } else if (i + 1 < argc && a == "--d") {
      d = parse("--d", argv[i + 1]);
    } else if (i + 1 < argc && a == "--only") {
      only = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: scaleref_tape_bench [--reps N] [--n N] [--d D] [--only NAME]\n");
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
  std::printf(
      "scaleref_tape_bench: double, [N, D] = [%d, %d], %d alternated pairs (medians: each "
      "side's time, and the pairs' ratio)\n",
      n, d, reps);
  std::printf("%-18s %12s %12s %10s\n", "method", "analytic ms", "tape ms", "tape/analytic");
  if (!only.empty() && only != "lm" &&
      std::none_of(cases.begin(), cases.end(), [&](const Case& c) { return c.name == only; })) {
    std::fprintf(stderr, "scaleref_tape_bench: --only expects lm or one of:");
    for (const Case& c : cases) std::fprintf(stderr, " %s", c.name.c_str());
    std::fprintf(stderr, "; got '%s'\n", only.c_str());
    return 2;
  }
  for (const Case& c : cases) {
    if (!only.empty() && only != c.name) continue;
    const std::string method = c.name.substr(0, c.name.find('_'));
    verify::Inputs<double> in;
    std::uint32_t stream = 1;
    for (const std::string& name : c.analytic.input_names)
      in.push_back(input(method, name, n, d, stream++));
    const M y = c.analytic.f64.forward(in);
    const M dy = values(y.rows(), y.cols(), 99, -1, 1);
    compare(
        c.name, analytic_step(c.name, heads8, Named{c.analytic.input_names, in}, dy),
        [&] { c.tape.f64.backward(in, dy); }, reps);
  }

  if (!only.empty() && only != "lm") return 0;
  const lm::Config c = bench::lm_config();
  const lm::ParamStore<double> p = lm::init_params<double>(c);
  const lm::Batch b = bench::lm_batch(c);
  lm::Cache<double> cache;
  lm::ParamStore<double> g;
  autodiff::Tape<double> tape;  // recorded again every rep, as the analytic side reuses its cache
  compare(
      "lm (bench config)",
      [&] {
        lm::forward(c, p, b, &cache);
        lm::backward(c, p, b, cache, g);
      },
      [&] { autodiff::tape_lm_gradients(tape, c, p, b); }, reps);
  return 0;
}
