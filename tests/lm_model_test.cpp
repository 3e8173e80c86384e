// The tiny LM's hand-derived backward (lm/model.hpp) as a specification:
// it equals central finite differences of the loss in 50-digit arithmetic for
// every switch of lm/config.hpp, it is bitwise reproducible (run to run and
// from 1 to N threads), its probes have the documented shapes, and bad input is
// an Error that names what was wrong.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <random>
#include <scaleref/lm/model.hpp>
#include <string>

#include "error_support.hpp"
#include <vector>

namespace {

using scaleref::test::error_of;
using scaleref::test::mentions;

using namespace scaleref;
using namespace scaleref::lm;

// vocab 7, d 8, 2 layers, 2 heads, d_ff 12, T <= 4.
Config tiny(NormKind norm, Placement placement) {
  Config c;
  c.vocab = 7;
  c.d_model = 8;
  c.n_layers = 2;
  c.n_heads = 2;
  c.d_ff = 12;
  c.max_seq = 4;
  c.norm = norm;
  c.norm_heads = 2;
  c.placement = placement;
  c.final_norm = placement != Placement::post;  // post runs without one: both settings covered
  c.init_sigma = 0.4;  // O(1) activations: attention far from uniform, every path exercised
  c.seed = 7;
  return c;
}

// B 2, T 4, three positions that do not count.
Batch tiny_batch() {
  Batch b;
  b.batch = 2;
  b.seq = 4;
  b.tokens = {3, 0, 6, 2, 5, 5, 1, 4};
  b.targets = {0, -1, 2, 6, -1, 4, 3, -1};
  return b;
}

// The initial parameters with every entry moved off its initial value (gains of 1 and
// biases of 0 hide a wrong use of gamma or beta in a backward): matrices get a relative
// jitter, every other tensor an additive N(0, 0.3^2).
ParamStore<double> jittered(const Config& c, unsigned seed = 11) {
  ParamStore<double> p = init_params<double>(c);
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0.0, 0.3);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const bool table = p.info[i].kind == Kind::matrix || p.info[i].kind == Kind::embedding;
    for (Eigen::Index e = 0; e < p.values[i].size(); ++e) {
      double& v = p.values[i].data()[e];
      v = table ? v * (1.0 + noise(gen)) + 0.05 * noise(gen) : v + noise(gen);
    }
  }
  return p;
}

struct GradReport {
  double worst_abs = 0, worst_rel = 0, worst_share = 0;  // share: of the tolerance
  std::string worst_at;
  long checked = 0;
};

// The analytic gradient against central differences, both in 50 digits.
//
// Step h = 1e-15: the central difference's truncation error is h^2 |f'''| / 6 ~ 1e-31 for
// this O(1) loss, its rounding error ~ 1e-50 |f| / h ~ 1e-35, so an exact formula agrees
// to ~1e-28 or better. Tolerance |a - fd| <= 1e-22 + 1e-20 |fd|: six orders above that
// noise, and ~15 orders below the 1e-6 .. 1e-2 that a dropped or wrong term produces.
//
// Every entry of tensors with <= 6 entries is checked, 6 sampled entries of larger ones
// (a full Jacobian row costs two 50-digit forwards per entry; the grid has ~80 models).
GradReport check_gradient(const Config& c, const std::string& label) {
  const Batch b = tiny_batch();
  const ParamStore<Real50> p = cast_params<Real50>(jittered(c));
  Cache<Real50> cache;
  forward<Real50>(c, p, b, &cache);
  const ParamStore<Real50> g = backward<Real50>(c, p, b, cache);
  const Real50 h("1e-15");
  GradReport rep;
  std::mt19937 pick(3);
  ParamStore<Real50> q = p;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Eigen::Index size = p.values[i].size();
    std::vector<Eigen::Index> entries;
    if (size <= 6) {
      for (Eigen::Index e = 0; e < size; ++e) entries.push_back(e);
    } else {
      std::uniform_int_distribution<Eigen::Index> u(0, size - 1);
      for (int s = 0; s < 6; ++s) entries.push_back(u(pick));
    }
    for (Eigen::Index e : entries) {
      const Real50 x = p.values[i].data()[e];
      const Real50 xp = x + h, xm = x - h;
      q.values[i].data()[e] = xp;
      const Real50 fp = forward<Real50>(c, q, b);
      q.values[i].data()[e] = xm;
      const Real50 fm = forward<Real50>(c, q, b);
      q.values[i].data()[e] = x;
      const Real50 fd = (fp - fm) / (xp - xm);
      const Real50 a = g.values[i].data()[e];
      const Real50 err = abs(a - fd);
      const Real50 tol = Real50("1e-22") + Real50("1e-20") * abs(fd);
      const double share = static_cast<double>(err / tol);
      ++rep.checked;
      if (share > rep.worst_share) {
        rep.worst_share = share;
        rep.worst_at = p.info[i].name + "[" + std::to_string(e) + "]";
      }
      rep.worst_abs = std::max(rep.worst_abs, static_cast<double>(err));
      if (abs(fd) > Real50("1e-12"))
        rep.worst_rel = std::max(rep.worst_rel, static_cast<double>(err / abs(fd)));
      EXPECT_LE(err, tol) << label << ": " << p.info[i].name << "[" << e
                          << "]: analytic = " << a.str(25) << ", FD = " << fd.str(25)
                          << ", |error| = " << err.str(5) << ", h = 1e-15";
    }
  }
  std::printf(
      "[ %s ] %ld entries, worst |a - fd| = %.3g, worst relative = %.3g, %.2g of the "
      "tolerance at %s\n",
      label.c_str(), rep.checked, rep.worst_abs, rep.worst_rel, rep.worst_share,
      rep.worst_at.c_str());
  return rep;
}

// ---- the grid: norm kind x placement x sdd x gated attention (scale_vectors standard) ----

struct GridCase {
  NormKind norm;
  Placement placement;
  bool sdd;
  bool gated;
};

void PrintTo(const GridCase& g, std::ostream* os) {
  *os << norm_name(g.norm) << ", " << placement_name(g.placement) << ", sdd "
      << (g.sdd ? "all" : "none") << ", gated " << g.gated;
}

std::string grid_name(const testing::TestParamInfo<GridCase>& info) {
  const GridCase& g = info.param;
  return std::string(norm_name(g.norm)) + "_" + placement_name(g.placement) + "_sdd" +
         (g.sdd ? "All" : "None") + (g.gated ? "_gated" : "_ungated");
}

std::vector<GridCase> grid() {
  std::vector<GridCase> out;
  for (NormKind n : {NormKind::rmsnorm, NormKind::layernorm, NormKind::dyt, NormKind::seednorm,
                     NormKind::seednorm_mh})
    for (Placement pl : {Placement::pre, Placement::post, Placement::none})
      for (bool sdd : {false, true})
        for (bool gated : {false, true}) out.push_back({n, pl, sdd, gated});
  return out;
}

class LmGradientGrid : public testing::TestWithParam<GridCase> {};

TEST_P(LmGradientGrid, AnalyticEqualsFiftyDigitFiniteDifferences) {
  const GridCase& g = GetParam();
  Config c = tiny(g.norm, g.placement);
  c.sdd = parse_sdd_set(g.sdd ? "all" : "none");
  c.gated_attention = g.gated;
  check_gradient(c, grid_name(testing::TestParamInfo<GridCase>(g, 0)));
}

INSTANTIATE_TEST_SUITE_P(NormPlacementSddGate, LmGradientGrid, testing::ValuesIn(grid()),
                         grid_name);

// ---- every scale-vector strategy x sdd (rmsnorm, Pre-Norm) --------------------------------

struct SvCase {
  ScaleVectors sv;
  bool sdd;
};

void PrintTo(const SvCase& s, std::ostream* os) {
  *os << scale_vectors_name(s.sv) << ", sdd " << (s.sdd ? "all" : "none");
}

std::string sv_name(const testing::TestParamInfo<SvCase>& info) {
  return std::string(scale_vectors_name(info.param.sv)) + (info.param.sdd ? "_sddAll" : "_sddNone");
}

class LmGradientScaleVectors : public testing::TestWithParam<SvCase> {};

TEST_P(LmGradientScaleVectors, AnalyticEqualsFiftyDigitFiniteDifferences) {
  const SvCase& s = GetParam();
  Config c = tiny(NormKind::rmsnorm, Placement::pre);
  c.scale_vectors = s.sv;
  c.sdd = parse_sdd_set(s.sdd ? "all" : "none");
  c.gated_attention = true;  // the gate reads the q map's input: HG's g_q, MD's g
  check_gradient(c, sv_name(testing::TestParamInfo<SvCase>(s, 0)));
}

std::vector<SvCase> sv_grid() {
  std::vector<SvCase> out;
  for (ScaleVectors sv : {ScaleVectors::none, ScaleVectors::standard, ScaleVectors::hg,
                          ScaleVectors::ap, ScaleVectors::dp, ScaleVectors::dnp, ScaleVectors::md})
    for (bool sdd : {false, true}) out.push_back({sv, sdd});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Strategies, LmGradientScaleVectors, testing::ValuesIn(sv_grid()), sv_name);

// ---- the remaining switches ---------------------------------------------------------------

TEST(LmGradient, QkNormTiedNoPositionsSddLayerNorm) {
  Config c = tiny(NormKind::rmsnorm, Placement::pre);
  c.qk_norm = true;
  c.tie_embeddings = true;  // dE gets the embedding's and the head's share
  c.positions = false;
  c.sdd = parse_sdd_set("q,v,o,up");
  c.sdd_norm = SddNorm::layernorm;
  c.gated_attention = true;
  check_gradient(c, "qk_norm+tied+no_positions+sdd_layernorm");
}

TEST(LmGradient, QkNormWithDnpAndSdd) {
  Config c = tiny(NormKind::rmsnorm, Placement::pre);
  c.qk_norm = true;
  c.scale_vectors = ScaleVectors::dnp;
  c.sdd = parse_sdd_set("all");
  check_gradient(c, "qk_norm+DNP+sdd_all");
}

TEST(LmGradient, TiedSeedNormMultiHeadPostNorm) {
  Config c = tiny(NormKind::seednorm_mh, Placement::post);
  c.tie_embeddings = true;
  c.final_norm = true;
  c.qk_norm = true;
  c.sdd = parse_sdd_set("k,gate,down");
  c.sdd_norm = SddNorm::layernorm;
  check_gradient(c, "seednorm_mh+post+final+tied+qk_norm+sdd_layernorm");
}

TEST(LmGradient, NoFinalNormPreNorm) {
  Config c = tiny(NormKind::layernorm, Placement::pre);
  c.final_norm = false;
  check_gradient(c, "layernorm+pre+no_final_norm");
}

// ---- reproducibility -------------------------------------------------------------------------

// Big enough that the row loops (B T d >= kParallelEntries), the row reductions, matmul
// and the attention blocks run threaded.
Config medium() {
  Config c = tiny(NormKind::seednorm, Placement::pre);
  c.d_model = 128;
  c.n_heads = 4;
  c.d_ff = 160;
  c.vocab = 31;
  c.max_seq = 32;
  c.gated_attention = true;
  c.qk_norm = true;
  c.sdd = parse_sdd_set("q,up");
  return c;
}

Batch medium_batch(const Config& c) {
  Batch b;
  b.batch = 8;
  b.seq = 32;
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> tok(0, static_cast<int>(c.vocab) - 1);
  for (long i = 0; i < b.rows(); ++i) {
    b.tokens.push_back(tok(gen));
    b.targets.push_back(i % 5 == 0 ? -1 : tok(gen));
  }
  return b;
}

bool bitwise_equal(const ParamStore<double>& a, const ParamStore<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a.values[i].rows() != b.values[i].rows() || a.values[i].cols() != b.values[i].cols() ||
        std::memcmp(a.values[i].data(), b.values[i].data(),
                    sizeof(double) * static_cast<std::size_t>(a.values[i].size())) != 0)
      return false;
  return true;
}

TEST(LmModel, BackwardTwiceIsBitwiseEqual) {
  const Config c = medium();
  const Batch b = medium_batch(c);
  const ParamStore<double> p = jittered(c);
  Cache<double> k1, k2;
  const double l1 = forward<double>(c, p, b, &k1), l2 = forward<double>(c, p, b, &k2);
  EXPECT_EQ(std::memcmp(&l1, &l2, sizeof l1), 0);
  EXPECT_TRUE(bitwise_equal(backward<double>(c, p, b, k1), backward<double>(c, p, b, k1)));
  EXPECT_TRUE(bitwise_equal(backward<double>(c, p, b, k1), backward<double>(c, p, b, k2)));
}

TEST(LmModel, OneThreadAndManyThreadsGiveTheSameBits) {
  const Config c = medium();
  const Batch b = medium_batch(c);
  const ParamStore<double> p = jittered(c);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  Cache<double> k1;
  const double l1 = forward<double>(c, p, b, &k1);
  const ParamStore<double> g1 = backward<double>(c, p, b, k1);
  omp_set_num_threads(std::max(4, threads));
  Cache<double> k4;
  const double l4 = forward<double>(c, p, b, &k4);
  const ParamStore<double> g4 = backward<double>(c, p, b, k4);
  omp_set_num_threads(threads);
  EXPECT_EQ(std::memcmp(&l1, &l4, sizeof l1), 0);
  EXPECT_TRUE(bitwise_equal(g1, g4));
}

// ---- the loss and the probes -----------------------------------------------------------------

TEST(LmModel, ZeroHeadGivesLogVocab) {
  // logits = 0 everywhere: every counted position costs log(vocab).
  const Config c = tiny(NormKind::rmsnorm, Placement::pre);
  ParamStore<double> p = jittered(c);
  p.at("head").setZero();
  EXPECT_NEAR(forward<double>(c, p, tiny_batch()), std::log(7.0), 1e-15);
}

TEST(LmModel, CacheProbesHaveTheDocumentedShapes) {
  Config c = tiny(NormKind::dyt, Placement::post);
  c.gated_attention = true;
  const Batch b = tiny_batch();
  Cache<double> k;
  forward<double>(c, jittered(c), b, &k);
  ASSERT_EQ(k.residual.size(), 3u);
  ASSERT_EQ(k.block_output.size(), 2u);
  ASSERT_EQ(k.attention.size(), 2u);
  for (const auto& x : k.residual) EXPECT_EQ(shape_str(x), "[8x8]");
  for (int l = 0; l < 2; ++l) {
    EXPECT_EQ(k.block_output[l], k.residual[l + 1]);
    ASSERT_EQ(k.attention[l].size(), 4u);  // B H
    for (const auto& A : k.attention[l]) {
      ASSERT_EQ(shape_str(A), "[4x4]");
      for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(A.row(i).sum(), 1.0, 1e-15);                  // a softmax row
        for (int j = i + 1; j < 4; ++j) EXPECT_EQ(A(i, j), 0.0);  // causal
      }
    }
  }
  EXPECT_EQ(shape_str(k.logits), "[8x7]");
}

// ---- bad input ---------------------------------------------------------------------------------

TEST(LmModel, TokenOutsideVocabIsError) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre);
  Batch b = tiny_batch();
  b.tokens[5] = 7;
  const std::string m = error_of([&] { forward<double>(c, jittered(c), b); });
  EXPECT_NE(m.find("lm::forward"), std::string::npos) << m;
  EXPECT_NE(m.find("token 5 = 7"), std::string::npos) << m;
}

TEST(LmModel, WrongShapedParameterIsErrorNamingIt) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre);
  ParamStore<double> p = jittered(c);
  p.at("layers.1.attn.k.W") = Mat<double>::Zero(8, 7);
  const std::string m = error_of([&] { forward<double>(c, p, tiny_batch()); });
  EXPECT_NE(m.find("layers.1.attn.k.W"), std::string::npos) << m;
  EXPECT_NE(m.find("[8x7]"), std::string::npos) << m;
  Cache<double> k;
  const ParamStore<double> good = jittered(c);
  forward<double>(c, good, tiny_batch(), &k);
  EXPECT_NE(error_of([&] { backward<double>(c, p, tiny_batch(), k); }).find("layers.1.attn.k.W"),
            std::string::npos);
}

TEST(LmModel, NonFiniteParameterIsErrorNamingIt) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre);
  ParamStore<double> p = jittered(c);
  p.at("final_norm.gamma")(0, 3) = std::nan("");
  const std::string m = error_of([&] { forward<double>(c, p, tiny_batch()); });
  EXPECT_NE(m.find("final_norm.gamma"), std::string::npos) << m;
}

TEST(LmModel, ParametersOfAnotherConfigAreError) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre);
  const ParamStore<double> p = jittered(tiny(NormKind::layernorm, Placement::pre));
  EXPECT_NE(error_of([&] { forward<double>(c, p, tiny_batch()); }).find("lm::forward"),
            std::string::npos);
}

TEST(LmModel, BackwardWithoutForwardIsError) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre);
  const Cache<double> empty;
  EXPECT_NE(
      error_of([&] { backward<double>(c, jittered(c), tiny_batch(), empty); }).find("lm::backward"),
      std::string::npos);
}

}  // namespace
