// scaleref_norm_bench: forward + backward of every normalization method of the
// CPU reference (reference/include/scaleref/norm/), in double, on one
// [N, D] = [4096, 4096] batch.
//
// What it measures. One iteration is forward (with a Cache) followed by the
// analytic backward, on fixed inputs built once, outside the timed loop:
//   RMSNorm, LayerNorm (with bias), DyT (with bias), SeeDNorm (vector alpha,
//   dot beta, tanh), SeeDNorm with 8 heads (eq. 7), AdaSeeDNorm (eq. 8).
// Parameters sit away from their initialization (SeeDNorm's alpha and beta are
// nonzero, so the self-rescaling branch does real work); inputs are sin / cos
// of the element index. The time includes everything the reference does:
// input validation and the fixed order row reductions for the parameter
// gradients; the output, cache and gradients are kept across iterations, as a
// caller that checks many batches keeps them (types.hpp), so no iteration
// allocates. SDD (sdd/layer.hpp, eps 0) adds its three products with V
// [D, D]: y = alpha (.) norm(x V^T), dV, dx. It is a reference, not a
// kernel: these numbers say how long an oracle check takes, and give a floor
// to compare an optimized (CUDA) implementation with.
//
// Bytes per second: a minimal-traffic model, the same for every method. It
// counts only the [N, D] tensors a fused implementation must read or write at
// minimum, each once, times sizeof(double):
//   - forward reads its [N, D] inputs and writes y;
//   - backward reads x again (not an [N, D] cache: the per-row statistics and
//     every elementwise intermediate are recomputed from x and O(N) saved row
//     scalars), reads dy and its other [N, D] inputs, and writes each [N, D]
//     gradient that is not merely an alias of an input;
//   - parameter vectors (1 x D), their gradients and per-row statistics
//     (N x 1) are O(N + D) and not counted.
// So a method with T such tensors reports T * N * D * 8 bytes per iteration.
// The reference itself moves more than this (it stores x_hat and other [N, D]
// caches and temporaries); the figure is an effective bandwidth, comparable
// across methods and with a GPU kernel measured under the same model.
//
// How to run (after `cmake -S . -B build && cmake --build build`):
//   build/reference/scaleref_norm_bench
//   OMP_NUM_THREADS=8 build/reference/scaleref_norm_bench --benchmark_filter=SeeDNorm
//   build/reference/scaleref_norm_bench --benchmark_min_time=0.5 --benchmark_repetitions=5
//   SCALEREF_BENCH_N=256 SCALEREF_BENCH_D=256 build/reference/scaleref_norm_bench  # smoke run
// Every standard Google Benchmark flag works (--benchmark_filter,
// --benchmark_format=json, --benchmark_out=FILE, ...). The methods parallelize
// over rows with OpenMP, so the wall-clock time is reported (UseRealTime);
// OMP_NUM_THREADS sets the thread count. N and D come from SCALEREF_BENCH_N
// and SCALEREF_BENCH_D (default 4096 each; D must be divisible by 8 for the
// multi-head case). A [4096, 4096] double tensor is 128 MiB; AdaSeeDNorm's
// peak is about 2 GiB.
//
// The numbers are machine-specific (core count, memory bandwidth, compiler,
// build type): compare runs on one machine only, and build in Release.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/rows.hpp>
#include <scaleref/sdd/layer.hpp>
#include <scaleref/types.hpp>
#include <string>

namespace {

using scaleref::Mat;
namespace norm = scaleref::norm;
using Index = Eigen::Index;

constexpr Index kDefaultSize = 4096;
constexpr int kHeads = 8;  // the multi-head SeeDNorm case

// A positive size from the environment variable `name`, or `fallback` when it
// is unset; anything else is reported and ends the program.
Index size_from_env(const char* name, Index fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (*end != '\0' || v <= 0) {
    std::fprintf(stderr, "scaleref_norm_bench: %s must be a positive integer, got '%s'\n", name,
                 text);
    std::exit(2);
  }
  return static_cast<Index>(v);
}

Index g_n = kDefaultSize;
Index g_d = kDefaultSize;

// An [n, d] matrix with entry (i, j) = f(i, j), filled row-parallel (so each
// row is first touched by the thread that later works on it).
template <class F>
Mat<double> fill(Index n, Index d, F f) {
  Mat<double> m(n, d);
  scaleref::for_each_row(n, d, [&](Index i) {
    for (Index j = 0; j < d; ++j) m(i, j) = f(static_cast<double>(i), static_cast<double>(j));
  });
  return m;
}

// A 1 x D parameter row with entry j = f(j).
template <class F>
Mat<double> row(Index d, F f) {
  Mat<double> m(1, d);
  for (Index j = 0; j < d; ++j) m(0, j) = f(static_cast<double>(j));
  return m;
}

// The fixed inputs, built once (lazily, so a filtered run builds only what it
// uses) and shared by every benchmark: x and dy for all methods, and the
// condition's gamma(c), eta(c) for AdaSeeDNorm.
struct Inputs {
  Mat<double> x, dy;
};

const Inputs& inputs() {
  static const Inputs in{
      // no zero or constant rows: every row has an RMS and a variance
      fill(g_n, g_d,
           [](double i, double j) {
             return 1.5 * std::sin(0.37 * i + 0.011 * j + 0.3) + 0.5 * std::cos(0.05 * i * j + 1.0);
           }),
      fill(g_n, g_d, [](double i, double j) {
        return 0.8 * std::cos(0.23 * i - 0.017 * j + 0.7) + 0.2 * std::sin(0.031 * i * j);
      })};
  return in;
}

struct Condition {
  Mat<double> gamma_c, eta_c;
};

const Condition& condition() {
  static const Condition c{
      fill(g_n, g_d, [](double i, double j) { return 0.1 * std::sin(0.19 * i + 0.029 * j); }),
      fill(g_n, g_d, [](double i, double j) { return 0.05 * std::cos(0.13 * i - 0.041 * j); })};
  return c;
}

// Parameter rows away from every method's initialization.
Mat<double> gain(Index d) {
  return row(d, [](double j) { return 1.0 + 0.1 * std::sin(0.7 * j); });
}
Mat<double> bias(Index d) {
  return row(d, [](double j) { return 0.05 * std::cos(0.3 * j); });
}
// SeeDNorm's alpha (init: alpha_init * 1) and beta (init: 0). beta's first
// term follows x's slow sin(0.011 j) component, so x . beta is O(1) and varies
// from row to row (at 4096 x 4096: z = x . beta in [-2.3, 1.6], mean |tanh z|
// 0.67; per head of 8, z in [-0.73, 0.70]): tanh works in its curved range,
// neither near 0 nor saturated.
Mat<double> seed_alpha(Index d) {
  return row(d, [](double j) { return 0.5 + 0.2 * std::cos(0.9 * j); });
}
Mat<double> seed_beta(Index d) {
  const double dd = static_cast<double>(d);
  return row(d, [dd](double j) {
    return 2.0 / dd * std::sin(0.011 * j) + 0.3 / std::sqrt(dd) * std::cos(1.3 * j);
  });
}

// The bytes of `tensors` [N, D] double tensors, per iteration, times the
// iterations run: the minimal-traffic model at the top of this file.
void set_bytes(benchmark::State& state, int tensors) {
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(tensors) *
                          static_cast<int64_t>(g_n) * static_cast<int64_t>(g_d) *
                          static_cast<int64_t>(sizeof(double)));
  state.SetLabel(std::to_string(tensors) + " NxD tensors/iter");
}

// RMSNorm. Traffic: forward reads x, writes y; backward reads x, dy, writes
// dx. 5 tensors.
void bm_rmsnorm(benchmark::State& state) {
  const Inputs& in = inputs();
  const norm::rmsnorm::Config c{};
  norm::rmsnorm::Params<double> p{gain(g_d)};
  norm::rmsnorm::Cache<double> cache;
  Mat<double> y;
  norm::rmsnorm::Grads<double> g;
  for (auto _ : state) {
    norm::rmsnorm::forward(p, c, in.x, y, cache);
    benchmark::DoNotOptimize(y.data());
    norm::rmsnorm::backward(p, c, cache, in.dy, g);
    benchmark::DoNotOptimize(g.dx.data());
    benchmark::DoNotOptimize(g.dgamma.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 5);
}

// LayerNorm with bias. Traffic: forward reads x, writes y; backward reads x,
// dy, writes dx. 5 tensors.
void bm_layernorm(benchmark::State& state) {
  const Inputs& in = inputs();
  const norm::layernorm::Config c{};
  norm::layernorm::Params<double> p{gain(g_d), bias(g_d)};
  norm::layernorm::Cache<double> cache;
  Mat<double> y;
  norm::layernorm::Grads<double> g;
  for (auto _ : state) {
    norm::layernorm::forward(p, c, in.x, y, cache);
    benchmark::DoNotOptimize(y.data());
    norm::layernorm::backward(p, c, cache, in.dy, g);
    benchmark::DoNotOptimize(g.dx.data());
    benchmark::DoNotOptimize(g.dgamma.data());
    benchmark::DoNotOptimize(g.dbeta.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 5);
}

// DyT with bias, alpha = 0.7. Traffic: forward reads x, writes y; backward
// reads x (tanh(alpha x) is recomputed), dy, writes dx. 5 tensors.
void bm_dyt(benchmark::State& state) {
  const Inputs& in = inputs();
  const norm::dyt::Config c{};
  norm::dyt::Params<double> p{Mat<double>::Constant(1, 1, 0.7), gain(g_d), bias(g_d)};
  norm::dyt::Cache<double> cache;
  Mat<double> y;
  norm::dyt::Grads<double> g;
  for (auto _ : state) {
    norm::dyt::forward(p, c, in.x, y, cache);
    benchmark::DoNotOptimize(y.data());
    norm::dyt::backward(p, c, cache, in.dy, g);
    benchmark::DoNotOptimize(g.dx.data());
    benchmark::DoNotOptimize(g.dalpha.data());
    benchmark::DoNotOptimize(g.dgamma.data());
    benchmark::DoNotOptimize(g.dbeta.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 5);
}

// SeeDNorm (vector alpha, dot beta, gamma, tanh) with `heads` heads. Traffic:
// forward reads x, writes y; backward reads x (RMS, sigma(x . beta) per head
// and x_hat are recomputed from x and row scalars), dy, writes dx. 5 tensors,
// for one head or many.
void bm_seednorm(benchmark::State& state, int heads) {
  if (g_d % heads != 0) {
    state.SkipWithError("D is not divisible by the number of heads");
    return;
  }
  const Inputs& in = inputs();
  norm::seednorm::Config c{};
  c.heads = heads;
  norm::seednorm::Params<double> p{seed_alpha(g_d), seed_beta(g_d), gain(g_d)};
  norm::seednorm::Cache<double> cache;
  Mat<double> y;
  norm::seednorm::Grads<double> g;
  for (auto _ : state) {
    norm::seednorm::forward(p, c, in.x, y, cache);
    benchmark::DoNotOptimize(y.data());
    norm::seednorm::backward(p, c, cache, in.dy, g);
    benchmark::DoNotOptimize(g.dx.data());
    benchmark::DoNotOptimize(g.dalpha.data());
    benchmark::DoNotOptimize(g.dbeta.data());
    benchmark::DoNotOptimize(g.dgamma.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 5);
}

// AdaSeeDNorm (SeeDNorm's default form, gain fixed at 1) with a per-row
// condition gamma(c), eta(c). Traffic: forward reads x, gamma(c), eta(c),
// writes y (4); backward reads x, gamma(c), dy, writes dx and
// dgamma(c) = dy (.) u (5; u is recomputed from x). deta(c) = dy is an alias
// of an input and not counted. 9 tensors.
void bm_adaseednorm(benchmark::State& state) {
  const Inputs& in = inputs();
  const Condition& cond = condition();
  const norm::adaseednorm::Config c{};
  norm::adaseednorm::Params<double> p{seed_alpha(g_d), seed_beta(g_d)};
  norm::adaseednorm::Cache<double> cache;
  Mat<double> y;
  norm::adaseednorm::Grads<double> g;
  for (auto _ : state) {
    norm::adaseednorm::forward(p, c, in.x, cond.gamma_c, cond.eta_c, y, cache);
    benchmark::DoNotOptimize(y.data());
    norm::adaseednorm::backward(p, c, cache, in.dy, g);
    benchmark::DoNotOptimize(g.dx.data());
    benchmark::DoNotOptimize(g.dalpha.data());
    benchmark::DoNotOptimize(g.dbeta.data());
    benchmark::DoNotOptimize(g.dgamma_c.data());
    benchmark::DoNotOptimize(g.deta_c.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 9);
}

// SDD (eps = 0, the paper's) with V [D, D], V(i, j) = sin(0.29 i - 0.013 j + 0.5) / sqrt(D),
// and alpha = gain. Traffic: forward reads x, writes y; backward reads x, dy,
// writes dx (V and dV are D x D, counted like [N, D] at N = D: 2 more). 7 tensors.
void bm_sdd(benchmark::State& state) {
  const Inputs& in = inputs();
  const double scale = 1.0 / std::sqrt(static_cast<double>(g_d));
  scaleref::sdd::Params<double> p{
      fill(g_d, g_d,
           [scale](double i, double j) { return std::sin(0.29 * i - 0.013 * j + 0.5) * scale; }),
      gain(g_d)};
  const scaleref::sdd::Config c{};
  scaleref::sdd::Cache<double> cache;
  Mat<double> y;
  scaleref::sdd::Grads<double> g;
  for (auto _ : state) {
    scaleref::sdd::forward(p, c, in.x, y, cache);
    benchmark::DoNotOptimize(y.data());
    scaleref::sdd::backward(p, c, cache, in.dy, g);
    benchmark::DoNotOptimize(g.dx.data());
    benchmark::DoNotOptimize(g.dV.data());
    benchmark::DoNotOptimize(g.dalpha.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, 7);
}

void configure(benchmark::internal::Benchmark* b) {
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  g_n = size_from_env("SCALEREF_BENCH_N", kDefaultSize);
  g_d = size_from_env("SCALEREF_BENCH_D", kDefaultSize);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  benchmark::AddCustomContext("N", std::to_string(g_n));
  benchmark::AddCustomContext("D", std::to_string(g_d));
  benchmark::AddCustomContext("scalar", "double");
  benchmark::AddCustomContext("omp_max_threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext(
      "bytes_model", "minimal traffic: [N,D] tensors read/written once x 8 B (see source header)");

  const std::string shape = "/N:" + std::to_string(g_n) + "/D:" + std::to_string(g_d);
  configure(benchmark::RegisterBenchmark(("RMSNorm" + shape).c_str(), bm_rmsnorm));
  configure(benchmark::RegisterBenchmark(("LayerNorm" + shape).c_str(), bm_layernorm));
  configure(benchmark::RegisterBenchmark(("DyT" + shape).c_str(), bm_dyt));
  configure(benchmark::RegisterBenchmark(("SeeDNorm" + shape).c_str(),
                                         [](benchmark::State& s) { bm_seednorm(s, 1); }));
  configure(benchmark::RegisterBenchmark(("SeeDNorm_heads8" + shape).c_str(),
                                         [](benchmark::State& s) { bm_seednorm(s, kHeads); }));
  configure(benchmark::RegisterBenchmark(("AdaSeeDNorm" + shape).c_str(), bm_adaseednorm));
  configure(benchmark::RegisterBenchmark(("SDD" + shape).c_str(), bm_sdd));

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
