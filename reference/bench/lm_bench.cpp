// Tokens per second of the tiny LM's forward + backward and of a whole
// training step (forward, backward, global-norm clipping, AdamW), in double
// with OpenMP, at the configuration issue 7 names: d_model 128, 4 layers, 4
// heads, sequence 128, batch 16 (vocab 256, SwiGLU width 4 d, Pre-Norm
// RMSNorm). scripts/bench_lm_torch.py times the same model in PyTorch float64
// on the same machine.
//
//   scaleref_lm_bench [--reps N] [--warmup N]     threads: OMP_NUM_THREADS
//
// Prints the median, min and max over the repetitions after the warm-up.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <scaleref/lm/model.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/train/optim.hpp>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using namespace scaleref;

template <class F>
std::vector<double> timed(F&& f, int reps, int warmup) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return t;
}

void report(const char* name, std::vector<double> t, long tokens) {
  std::sort(t.begin(), t.end());
  const double med = t[t.size() / 2];
  std::printf("scaleref %s: median %.1f ms (min %.1f, max %.1f) over %zu reps, %.0f tokens/s\n",
              name, med * 1e3, t.front() * 1e3, t.back() * 1e3, t.size(), tokens / med);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 10, warmup = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--reps")
      reps = std::atoi(argv[i + 1]);
    else if (a == "--warmup")
      warmup = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: scaleref_lm_bench [--reps N] [--warmup N]\n");
      return 2;
    }
  }
  if (reps < 1 || warmup < 0) {
    std::fprintf(stderr, "scaleref_lm_bench: expected --reps >= 1 and --warmup >= 0\n");
    return 2;
  }
  lm::Config c;
  c.vocab = 256;
  c.d_model = 128;
  c.n_layers = 4;
  c.n_heads = 4;
  c.max_seq = 128;
  lm::ParamStore<double> p = lm::init_params<double>(c);
  lm::Batch b{16, 128, {}, {}};
  for (long i = 0; i < b.rows(); ++i) {
    b.tokens.push_back(static_cast<int>(random::uniform(1, 0, 2 * i) * c.vocab));
    b.targets.push_back(static_cast<int>(random::uniform(1, 0, 2 * i + 1) * c.vocab));
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  std::printf("scaleref double, %d threads, d_model %ld, %ld layers, %ld heads, seq %ld, batch %ld, "
              "vocab %ld\n",
              threads, c.d_model, c.n_layers, c.n_heads, b.seq, b.batch, c.vocab);
  report("forward+backward",
         timed(
             [&] {
               lm::Cache<double> cache;
               lm::forward(c, p, b, &cache);
               const auto g = lm::backward(c, p, b, cache);
               (void)g;
             },
             reps, warmup),
         b.rows());
  train::AdamW<double> opt(p, train::AdamWConfig{0.9, 0.999, 1e-8, 0.1});
  report("training step (AdamW, clip)",
         timed(
             [&] {
               lm::Cache<double> cache;
               lm::forward(c, p, b, &cache);
               auto g = lm::backward(c, p, b, cache);
               train::clip_grad_norm(g, 1.0);
               opt.step(p, g, 1e-3);
             },
             reps, warmup),
         b.rows());
  return 0;
}
