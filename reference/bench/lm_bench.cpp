// Speed of the tiny LM's forward + backward and of a whole training step
// (forward, backward, global-norm clipping, AdamW), in double with OpenMP, at
// the configuration issue 7 names: d_model 128, 4 layers, 4 heads, sequence
// 128, batch 16 (vocab 256, SwiGLU width 4 d, Pre-Norm RMSNorm).
// scripts/bench_lm_torch.py is the same model in PyTorch float64;
// scripts/bench_lm.sh runs the two in alternation and prints their ratios.
//
//   scaleref_lm_bench [--reps N] [--warmup N]     threads: OMP_NUM_THREADS
//
// Each phase reuses one Cache and one gradient store across its steps, as the
// trainer does. Per phase it prints the median, min and max time over the
// repetitions after the warm-up, and for the timed steps the most heap
// allocations any one step made (counted by replacing malloc: alloc_count.hpp)
// and the median of the minor page faults per step (getrusage's ru_minflt,
// the pages the kernel handed out and zeroed). A step that reuses its storage
// makes 0 allocations and, after the warm-up, about 0 faults.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <scaleref/lm/model.hpp>
#include <scaleref/train/optim.hpp>
#include <string>
#include <vector>

#include "alloc_count.hpp"
#include "lm_bench_setup.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using namespace scaleref;

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct Sample {
  double seconds;
  std::uint64_t allocations;
  long faults;
};

template <class F>
std::vector<Sample> timed(F&& f, int reps, int warmup) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<Sample> out;
  for (int i = 0; i < reps; ++i) {
    const long f0 = minor_faults();
    const std::uint64_t a0 = bench::allocations();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    out.push_back({std::chrono::duration<double>(t1 - t0).count(), bench::allocations() - a0,
                   minor_faults() - f0});
  }
  return out;
}

void report(const char* name, const std::vector<Sample>& s, long tokens) {
  std::vector<double> t;
  std::vector<long> faults;
  std::uint64_t most_allocations = 0;
  for (const Sample& x : s) {
    t.push_back(x.seconds);
    faults.push_back(x.faults);
    most_allocations = std::max(most_allocations, x.allocations);
  }
  std::sort(t.begin(), t.end());
  std::sort(faults.begin(), faults.end());
  const double med = t[t.size() / 2];
  std::printf(
      "scaleref %s: median %.1f ms (min %.1f, max %.1f) over %zu reps, %.0f tokens/s; "
      "per step: %llu heap allocations (most), %ld minor page faults (median)\n",
      name, med * 1e3, t.front() * 1e3, t.back() * 1e3, t.size(), tokens / med,
      static_cast<unsigned long long>(most_allocations), faults[faults.size() / 2]);
}

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == '\0' || *end != '\0' || v < 0 || v > 1000000) {
    std::fprintf(stderr, "scaleref_lm_bench: %s expects a count, got '%s'\n", flag, text);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10, warmup = 2;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    if (i + 1 < argc && a == "--reps") {
      reps = parse_count("--reps", argv[i + 1]);
    } else if (i + 1 < argc && a == "--warmup") {
      warmup = parse_count("--warmup", argv[i + 1]);
    } else {
      std::fprintf(stderr, "usage: scaleref_lm_bench [--reps N] [--warmup N]\n");
      return 2;
    }
  }
  if (reps < 1) {
    std::fprintf(stderr, "scaleref_lm_bench: expected --reps >= 1\n");
    return 2;
  }
  const lm::Config c = bench::lm_config();
  lm::ParamStore<double> p = lm::init_params<double>(c);
  const lm::Batch b = bench::lm_batch(c);
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  std::printf(
      "scaleref double, %d threads, d_model %ld, %ld layers, %ld heads, seq %ld, batch %ld, "
      "vocab %ld\n",
      threads, c.d_model, c.n_layers, c.n_heads, b.seq, b.batch, c.vocab);
  lm::Cache<double> cache;
  lm::ParamStore<double> g;
  report("forward+backward",
         timed(
             [&] {
               lm::forward(c, p, b, &cache);
               lm::backward(c, p, b, cache, g);
             },
             reps, warmup),
         b.rows());
  train::AdamW<double> opt(p, train::AdamWConfig{0.9, 0.999, 1e-8, 0.1});
  report("training step (AdamW, clip)",
         timed(
             [&] {
               lm::forward(c, p, b, &cache);
               lm::backward(c, p, b, cache, g);
               train::clip_grad_norm(g, 1.0);
               opt.step(p, g, 1e-3);
             },
             reps, warmup),
         b.rows());
  return 0;
}
