// Storage that is reused (types.hpp): a forward and backward called again with
// the same shapes, and a training step of the tiny LM after its first, make
// no heap allocation. Heap allocations are counted by replacing malloc
// (reference/bench/alloc_count.hpp, linked into this test); each case runs its
// code once to size the storage, then counts the allocations of a second
// call. The sizes put the row loops and products on the OpenMP threads when
// the test runs with more than one (and in plain loops with one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <scaleref/autodiff/lm.hpp>
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/linear/plain.hpp>
#include <scaleref/lm/model.hpp>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <scaleref/sdd/layer.hpp>
#include <scaleref/train/optim.hpp>
#include <string>

#include "../reference/bench/alloc_count.hpp"

namespace {

using namespace scaleref;
using M = Mat<double>;

// The heap allocations of the second call of f.
std::uint64_t second_call_allocations(const std::function<void()>& f) {
  f();
  const std::uint64_t before = bench::allocations();
  f();
  return bench::allocations() - before;
}

// Deterministic values in [-1, 1), different per (stream, entry).
M values(Eigen::Index rows, Eigen::Index cols, std::uint64_t stream) {
  M m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i)
    m.data()[i] = 2 * random::uniform(stream, 0, static_cast<std::uint64_t>(i)) - 1;
  return m;
}

M row(Eigen::Index d, std::uint64_t stream) {
  return (values(1, d, stream).array() + 1.5).matrix();
}

constexpr Eigen::Index kN = 256, kD = 128;  // 256 x 128 entries: on the threads (rows.hpp)

// The counter works: a heap allocation that escapes is seen.
volatile double* g_escape = nullptr;

TEST(AllocCount, SeesAHeapAllocation) {
  void* (*volatile allocate)(std::size_t) = std::malloc;  // a call the compiler cannot drop
  const std::uint64_t before = bench::allocations();
  void* p = allocate(1000);
  EXPECT_EQ(bench::allocations() - before, 1u);
  std::free(p);
  EXPECT_GE(second_call_allocations([] {
              M m = M::Ones(64, 64);
              g_escape = m.data();
            }),
            1u);
}

TEST(AllocReuse, RMSNorm) {
  const M x = values(kN, kD, 1), dy = values(kN, kD, 2);
  const norm::rmsnorm::Params<double> p{row(kD, 3)};
  norm::rmsnorm::Cache<double> k;
  norm::rmsnorm::Grads<double> g;
  M y;
  EXPECT_EQ(second_call_allocations([&] {
              norm::rmsnorm::forward(p, {}, x, y, k);
              norm::rmsnorm::backward(p, {}, k, dy, g);
            }),
            0u);
}

TEST(AllocReuse, LayerNormWithAndWithoutBias) {
  const M x = values(kN, kD, 1), dy = values(kN, kD, 2);
  for (bool bias : {true, false}) {
    const norm::layernorm::Config c{1e-5, bias};
    const norm::layernorm::Params<double> p{row(kD, 3), bias ? row(kD, 4) : M()};
    norm::layernorm::Cache<double> k;
    norm::layernorm::Grads<double> g;
    M y;
    EXPECT_EQ(second_call_allocations([&] {
                norm::layernorm::forward(p, c, x, y, k);
                norm::layernorm::backward(p, c, k, dy, g);
              }),
              0u)
        << "bias " << bias;
  }
}

TEST(AllocReuse, DyT) {
  const M x = values(kN, kD, 1), dy = values(kN, kD, 2);
  const norm::dyt::Params<double> p{M::Constant(1, 1, 0.7), row(kD, 3), row(kD, 4)};
  norm::dyt::Cache<double> k;
  norm::dyt::Grads<double> g;
  M y;
  EXPECT_EQ(second_call_allocations([&] {
              norm::dyt::forward(p, {}, x, y, k);
              norm::dyt::backward(p, {}, k, dy, g);
            }),
            0u);
}

TEST(AllocReuse, SeeDNormEveryForm) {
  using namespace norm::seednorm;
  const M x = values(kN, kD, 1), dy = values(kN, kD, 2);
  std::vector<Config> forms(5);
  forms[1].heads = 4;
  forms[2].alpha = AlphaForm::scalar;
  forms[3].beta = BetaForm::elementwise;
  forms[3].gamma = false;
  forms[4].beta = BetaForm::none;
  forms[4].alpha = AlphaForm::vector;
  for (const Config& c : forms) {
    Params<double> p = norm::seednorm::init<double>(kD, c);
    if (p.beta.size()) p.beta = 0.1 * values(1, kD, 5);
    Cache<double> k;
    Grads<double> g;
    M y;
    EXPECT_EQ(second_call_allocations([&] {
                forward(p, c, x, y, k);
                backward(p, c, k, dy, g);
              }),
              0u)
        << "heads " << c.heads << ", alpha " << static_cast<int>(c.alpha) << ", beta "
        << static_cast<int>(c.beta);
  }
}

TEST(AllocReuse, AdaSeeDNorm) {
  using namespace norm::adaseednorm;
  const M x = values(kN, kD, 1), dy = values(kN, kD, 2);
  const M gamma_c = 0.1 * values(kN, kD, 6), eta_c = 0.1 * values(kN, kD, 7);
  Params<double> p = norm::adaseednorm::init<double>(kD);
  p.beta = 0.1 * values(1, kD, 5);
  Cache<double> k;
  Grads<double> g;
  M y;
  EXPECT_EQ(second_call_allocations([&] {
              forward(p, {}, x, gamma_c, eta_c, y, k);
              backward(p, {}, k, dy, g);
            }),
            0u);
}

TEST(AllocReuse, SDDAndPlainLinear) {
  const M x = values(kN, kD, 1), dy = values(kN, 2 * kD, 2), V = values(2 * kD, kD, 3);
  const sdd::Params<double> ps{V, row(2 * kD, 4)};
  sdd::Cache<double> ks;
  sdd::Grads<double> gs;
  M y;
  EXPECT_EQ(second_call_allocations([&] {
              sdd::forward(ps, {}, x, y, ks);
              sdd::backward(ps, {}, ks, dy, gs);
            }),
            0u);
  const linear::Params<double> pl{V};
  linear::Cache<double> kl;
  linear::Grads<double> gl;
  EXPECT_EQ(second_call_allocations([&] {
              linear::forward(pl, x, y, kl);
              linear::backward(pl, kl, dy, gl);
            }),
            0u);
}

TEST(AllocReuse, ScaleVectorLinearEveryStrategy) {
  const M x = values(kN, kD, 1), dy = values(kN, kD, 2);
  for (scalevec::Strategy s : scalevec::kStrategies) {
    const scalevec::Config c{s, 1e-6, 4};
    const scalevec::Params<double> p = scalevec::init<double>(s, values(kD, kD, 3));
    scalevec::Cache<double> k;
    scalevec::Grads<double> g;
    M y;
    EXPECT_EQ(second_call_allocations([&] {
                scalevec::forward(p, c, x, y, k);
                scalevec::backward(p, c, k, dy, g);
              }),
              0u)
        << scalevec::strategy_name(s);
  }
}

// The tape (autodiff/tape.hpp, "Storage"), cleared and recorded again with the
// same shapes, allocates none of its values and gradients again. What a
// recording still asks of the heap is bookkeeping and its result:
//   - the gradients handed back to the caller (counted exactly below);
//   - per record at most one rule whose captures outgrow std::function's
//     16-byte inline buffer (libstdc++): slice_cols' three indices (24 bytes),
//     concat_cols' vector of part ids (24 bytes + 8 per part, 4 parts here);
//     with the lists of leaves and results, under 64 bytes a record.
// Without the reuse, every value and gradient is allocated again: the sweep's
// [kN, kD] matrices alone are 256 KiB each.
constexpr std::uint64_t kBookkeepingPerRecord = 64;

std::uint64_t bytes_of(const std::vector<M>& ms) {
  std::uint64_t b = 0;
  for (const M& m : ms) b += static_cast<std::uint64_t>(m.size()) * sizeof(double);
  return b;
}

TEST(AllocReuse, TapeRecordedAgainAllocatesOnlyBookkeeping) {
  const M x0 = values(kN, kD, 1), dy = values(kN, kD, 2);
  norm::seednorm::Config c;
  c.heads = 4;  // slice_cols and concat_cols, one head per [kN, kD / 4] block
  const norm::seednorm::Params<double> p0 = norm::seednorm::init<double>(kD, c);
  autodiff::Tape<double> t;
  std::vector<M> grads;
  auto record = [&] {
    t.clear();
    const auto x = t.leaf(x0), alpha = t.leaf(p0.alpha), beta = t.leaf(p0.beta),
               gamma = t.leaf(p0.gamma);
    const auto y = autodiff::tape_seednorm(t, x, alpha, beta, gamma, c);
    grads = t.gradients(y, dy, {x, alpha, beta, gamma});
  };
  record();
  record();  // the lists of kept matrices have reached their sizes
  const std::uint64_t before = bench::allocated_bytes();
  record();
  const std::uint64_t bytes = bench::allocated_bytes() - before;
  EXPECT_LE(bytes, bytes_of(grads) + kBookkeepingPerRecord * t.size())
      << t.size() << " records; gradients " << bytes_of(grads) << " bytes";
}

// The model of these tests: the benchmark's form (lm_bench_setup.hpp) at a
// smaller size, and a batch of `sequences` sequences of 32 tokens.
lm::Config small_lm() {
  lm::Config c;
  c.vocab = 64;
  c.d_model = 32;
  c.n_layers = 2;
  c.n_heads = 4;
  c.max_seq = 32;
  return c;
}

lm::Batch small_batch(const lm::Config& c, long sequences) {
  lm::Batch b{sequences, 32, {}, {}};
  for (long i = 0; i < b.rows(); ++i) {
    b.tokens.push_back(static_cast<int>(i * 7 % c.vocab));
    b.targets.push_back(static_cast<int>(i * 5 % c.vocab));
  }
  return b;
}

TEST(AllocReuse, TapeOfTheLanguageModelRecordedAgain) {
  const lm::Config c = small_lm();
  const lm::ParamStore<double> p = lm::init_params<double>(c);
  const lm::Batch b = small_batch(c, 4);
  autodiff::Tape<double> t;
  std::uint64_t returned = 0;
  auto record = [&] {
    const auto [loss, g] = autodiff::tape_lm_gradients(t, c, p, b);
    returned = bytes_of(g.values);
  };
  record();
  record();
  const std::uint64_t before = bench::allocated_bytes();
  record();
  const std::uint64_t bytes = bench::allocated_bytes() - before;
  // The builder's own inputs, made for every recording (autodiff/src/lm.cpp):
  // one-hot tokens and targets [rows, vocab] and positions [rows, max_seq].
  const std::uint64_t one_hots =
      static_cast<std::uint64_t>(b.rows() * (2 * c.vocab + c.max_seq)) * sizeof(double);
  EXPECT_LE(bytes, returned + one_hots + kBookkeepingPerRecord * t.size())
      << t.size() << " records; gradients " << returned << " bytes";
}

// The training step of the README's benchmark (scaleref_lm_bench) at a
// smaller size, and the model's other forms.
struct LmCase {
  std::string name;
  std::function<void(lm::Config&)> set;
};

TEST(AllocReuse, TrainingStepOfEveryModelForm) {
  const std::vector<LmCase> cases{
      {"rmsnorm pre-norm (the benchmark's)", [](lm::Config&) {}},
      {"layernorm", [](lm::Config& c) { c.norm = lm::NormKind::layernorm; }},
      {"dyt", [](lm::Config& c) { c.norm = lm::NormKind::dyt; }},
      {"seednorm, 2 heads",
       [](lm::Config& c) {
         c.norm = lm::NormKind::seednorm_mh;
         c.norm_heads = 2;
       }},
      {"sdd everywhere, layernorm inside",
       [](lm::Config& c) {
         c.sdd = lm::parse_sdd_set("all");
         c.sdd_norm = lm::SddNorm::layernorm;
       }},
      {"scale vectors MD", [](lm::Config& c) { c.scale_vectors = lm::ScaleVectors::md; }},
      {"scale vectors HG", [](lm::Config& c) { c.scale_vectors = lm::ScaleVectors::hg; }},
      {"scale vectors DNP", [](lm::Config& c) { c.scale_vectors = lm::ScaleVectors::dnp; }},
      {"qk_norm and gated attention, post-norm",
       [](lm::Config& c) {
         c.qk_norm = true;
         c.gated_attention = true;
         c.placement = lm::Placement::post;
       }},
  };
  for (const LmCase& lc : cases) {
    lm::Config c = small_lm();
    lc.set(c);
    lm::ParamStore<double> p = lm::init_params<double>(c);
    const lm::Batch b = small_batch(c, 8);
    lm::Cache<double> cache;
    lm::ParamStore<double> g;
    train::AdamW<double> opt(p, train::AdamWConfig{});
    EXPECT_EQ(second_call_allocations([&] {
                lm::forward(c, p, b, &cache);
                lm::backward(c, p, b, cache, g);
                train::clip_grad_norm(g, 1.0);
                opt.step(p, g, 1e-3);
              }),
              0u)
        << lc.name;
  }
}

}  // namespace
