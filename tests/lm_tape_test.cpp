// The tiny LM on the tape (autodiff/lm.hpp), checked two ways on a model small
// enough to check every switch of lm/config.hpp:
//
//  TapeLmFd      the tape's gradient vs central finite differences of the tape's
//                own loss, both in 50 digits, on sampled entries of every
//                parameter. Proves the tape formulation differentiates itself
//                exactly (the primitives are FD-checked one by one elsewhere;
//                this checks how they are wired).
//  TapeLmVsModel the tape's gradient vs the hand-derived backward of the
//                reference model (lm/model.hpp), every entry of every parameter
//                and the two losses: in double (round-off, ~1e-12), and in 50
//                digits (the formulas themselves, to 1e-30).
//
// The model: vocab 7, d 8, 2 layers, 2 heads, d_ff 12, B 2, T 4 (max_seq 6, so
// two position rows are never read and must get a zero gradient), some targets
// -1. Parameters start at lm::init_params with init_sigma 0.4 (so attention is
// far from uniform), then every non-matrix parameter is moved off its initial
// value: v <- v (1 + 0.3 u) + 0.2 u' with u, u' uniform in [-1, 1] (ones and
// zeros hide a wrong use of a gain or a bias).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <ostream>
#include <scaleref/autodiff/lm.hpp>
#include <scaleref/lm/model.hpp>
#include <scaleref/verify/compare.hpp>
#include <string>
#include <vector>

namespace {

using namespace scaleref;
using lm::Config;
using lm::NormKind;
using lm::Placement;
using lm::ScaleVectors;

// ---- the cases --------------------------------------------------------------------------

struct Case {
  std::string name;
  Config c;
};

Config tiny(NormKind norm, Placement placement, bool sdd_all, bool gated,
            ScaleVectors sv = ScaleVectors::standard) {
  Config c;
  c.vocab = 7;
  c.d_model = 8;
  c.n_layers = 2;
  c.n_heads = 2;
  c.d_ff = 12;
  c.max_seq = 6;
  c.norm = norm;
  c.norm_heads = norm == NormKind::seednorm_mh ? 2 : 1;
  c.placement = placement;
  c.final_norm = placement == Placement::pre;  // train::parse_model_config's default
  c.gated_attention = gated;
  c.sdd = lm::parse_sdd_set(sdd_all ? "all" : "none");
  c.scale_vectors = sv;
  c.init_sigma = 0.4;
  c.seed = 7;
  return c;
}

std::string case_name(const Config& c) {
  std::string n = std::string(lm::norm_name(c.norm)) + "_" + lm::placement_name(c.placement) +
                  "_sv" + lm::scale_vectors_name(c.scale_vectors) + (c.any_sdd() ? "_sdd" : "") +
                  (c.gated_attention ? "_gated" : "") + (c.qk_norm ? "_qknorm" : "") +
                  (c.tie_embeddings ? "_tied" : "") + (c.positions ? "" : "_nopos") +
                  (c.sdd_norm == lm::SddNorm::layernorm ? "_sddln" : "");
  return n;
}

// gtest prints a parameter with this (its name, not its bytes).
void PrintTo(const Case& k, std::ostream* os) { *os << k.name; }

Case make(Config c) { return Case{case_name(c), c}; }

// Appends k unless a case of that name is there (the grids overlap at rmsnorm, pre, standard).
void add_case(std::vector<Case>& out, const Case& k) {
  for (const Case& have : out)
    if (have.name == k.name) return;
  out.push_back(k);
}

// The four single switches the grids do not vary (on top of a Pre-Norm RMSNorm model).
std::vector<Case> single_switches() {
  std::vector<Case> out;
  Config qk = tiny(NormKind::rmsnorm, Placement::pre, false, true);
  qk.qk_norm = true;
  out.push_back(make(qk));
  Config tied = tiny(NormKind::rmsnorm, Placement::pre, false, false);
  tied.tie_embeddings = true;
  out.push_back(make(tied));
  Config nopos = tiny(NormKind::rmsnorm, Placement::pre, false, false);
  nopos.positions = false;
  out.push_back(make(nopos));
  Config ln = tiny(NormKind::rmsnorm, Placement::pre, true, false);
  ln.sdd_norm = lm::SddNorm::layernorm;
  out.push_back(make(ln));
  return out;
}

constexpr NormKind kNorms[] = {NormKind::rmsnorm, NormKind::layernorm, NormKind::dyt,
                               NormKind::seednorm, NormKind::seednorm_mh};
constexpr Placement kPlacements[] = {Placement::pre, Placement::post, Placement::none};
constexpr ScaleVectors kStrategies[] = {
    ScaleVectors::none, ScaleVectors::standard, ScaleVectors::hg, ScaleVectors::ap,
    ScaleVectors::dp,   ScaleVectors::dnp,      ScaleVectors::md};

// The full grid: norm x placement x sdd x gate (standard scale vectors), every
// strategy x sdd x gate (Pre-Norm RMSNorm), and the single switches.
std::vector<Case> full_grid() {
  std::vector<Case> out;
  for (NormKind n : kNorms)
    for (Placement p : kPlacements)
      for (bool sdd : {false, true})
        for (bool gated : {false, true}) out.push_back(make(tiny(n, p, sdd, gated)));
  for (ScaleVectors s : kStrategies)
    for (bool sdd : {false, true})
      for (bool gated : {false, true})
        add_case(out, make(tiny(NormKind::rmsnorm, Placement::pre, sdd, gated, s)));
  for (const Case& k : single_switches()) add_case(out, k);
  return out;
}

// The 50-digit FD cases (each costs ~2 loss evaluations per sampled entry in 50
// digits): every norm under pre and post with SDD and the gate on, placement
// none, every strategy with SDD and the gate on, and the single switches.
std::vector<Case> fd_grid() {
  std::vector<Case> out;
  for (NormKind n : kNorms)
    for (Placement p : {Placement::pre, Placement::post})
      out.push_back(make(tiny(n, p, true, true)));
  out.push_back(make(tiny(NormKind::rmsnorm, Placement::none, true, true)));
  for (ScaleVectors s : kStrategies)
    add_case(out, make(tiny(NormKind::rmsnorm, Placement::pre, true, true, s)));
  for (const Case& k : single_switches()) add_case(out, k);
  return out;
}

// ---- inputs ---------------------------------------------------------------------------------

// Uniform in [-1, 1] from a 64-bit LCG: deterministic on every platform.
struct Uniform {
  std::uint64_t state;
  double operator()() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1;
  }
};

lm::ParamStore<double> perturbed_params(const Config& c) {
  lm::ParamStore<double> p = lm::init_params<double>(c);
  Uniform u{12345};
  for (std::size_t i = 0; i < p.size(); ++i) {
    const lm::Kind k = p.info[i].kind;
    if (k == lm::Kind::matrix || k == lm::Kind::embedding) continue;  // already random
    Mat<double>& v = p.values[i];
    for (Eigen::Index j = 0; j < v.size(); ++j) {
      const double a = u(), b = u();
      v.data()[j] = v.data()[j] * (1 + 0.3 * a) + 0.2 * b;
    }
  }
  return p;
}

lm::Batch tiny_batch() {
  lm::Batch b;
  b.batch = 2;
  b.seq = 4;
  b.tokens = {3, 0, 6, 2, 5, 5, 1, 4};
  b.targets = {0, -1, 2, 6, 5, 1, -1, 3};
  return b;
}

// ---- (1) the tape against its own finite differences, 50 digits ---------------------------

Real50 tape_loss50(const Config& c, const lm::ParamStore<Real50>& p, const lm::Batch& b) {
  autodiff::Tape<Real50> t;
  std::vector<autodiff::Var<Real50>> leaves;
  for (const auto& v : p.values) leaves.push_back(t.constant(v));
  return t.value(autodiff::tape_lm_loss(t, c, leaves, b))(0, 0);
}

// Tolerance of the 50-digit check (|tape - FD| <= atol + rtol (|tape| + |FD|) / 2):
// the central difference with step h = 1e-15 max(|x|, rms(x_p)) has truncation
// error ~h^2 |f'''| ~ 1e-30 and rounding ~1e-50 / h = 1e-35, times the loss's
// conditioning; rtol 1e-20 and atol 1e-22 leave >= 7 digits of room, while a
// wrong gradient is off by O(|g|) >= 1e-6 on the entries checked.
const verify::Tolerance kFd50{
    1e-22, 1e-20, "50-digit central FD, h = 1e-15 scale: error ~1e-30 (docs/design.md)"};

class TapeLmFd : public ::testing::TestWithParam<Case> {};

TEST_P(TapeLmFd, GradientMatches50DigitFiniteDifferences) {
  const Config& c = GetParam().c;
  const lm::Batch b = tiny_batch();
  const lm::ParamStore<Real50> p = lm::cast_params<Real50>(perturbed_params(c));
  const auto [loss, grads] = autodiff::tape_lm_gradients<Real50>(c, p, b);
  EXPECT_EQ(loss, tape_loss50(c, p, b));  // the leaf-built and constant-built losses agree
  Uniform pick{99};
  double worst = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Mat<Real50>& x = p.values[i];
    const Real50 scale = x.norm() / sqrt(Real50(x.size()));
    // Entry 0, the last entry and one random entry of every parameter.
    std::vector<Eigen::Index> entries{0, x.size() - 1,
                                      static_cast<Eigen::Index>((pick() + 1) / 2 * (x.size() - 1))};
    Mat<Real50> fd(1, 3), tape(1, 3);
    for (std::size_t e = 0; e < entries.size(); ++e) {
      const Eigen::Index j = entries[e];
      const Real50 h = Real50("1e-15") * std::max(abs(x.data()[j]), scale);
      lm::ParamStore<Real50> plus = p, minus = p;
      plus.values[i].data()[j] += h;
      minus.values[i].data()[j] -= h;
      fd(0, e) = (tape_loss50(c, plus, b) - tape_loss50(c, minus, b)) / (2 * h);
      tape(0, e) = grads.values[i].data()[j];
    }
    const verify::Comparison r = verify::compare(p.info[i].name, tape, fd, kFd50);
    EXPECT_TRUE(r.ok()) << r.str();
    worst = std::max(worst, r.max_rel_err);
  }
  RecordProperty("worst_rel_err", std::to_string(worst));
  std::printf("  %s: worst relative |tape - FD50| over sampled entries = %.3g\n",
              GetParam().name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(EverySwitch, TapeLmFd, ::testing::ValuesIn(fd_grid()),
                         [](const auto& info) { return info.param.name; });

// ---- properties of the tape formulation itself -----------------------------------------------

TEST(TapeLm, PositionRowsNeverReadGetZeroGradient) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre, false, false);
  const auto [loss, grads] =
      autodiff::tape_lm_gradients<double>(c, perturbed_params(c), tiny_batch());
  const Mat<double>& dpos = grads.at("pos");
  EXPECT_TRUE((dpos.bottomRows(c.max_seq - tiny_batch().seq).array() == 0).all());
  EXPECT_GT(dpos.topRows(tiny_batch().seq).cwiseAbs().maxCoeff(), 0);
}

TEST(TapeLm, EveryGridConfigGivesAFiniteLossAndGradient) {
  for (const Case& k : full_grid()) {
    const auto [loss, grads] =
        autodiff::tape_lm_gradients<double>(k.c, perturbed_params(k.c), tiny_batch());
    EXPECT_TRUE(std::isfinite(loss)) << k.name;
    for (std::size_t i = 0; i < grads.size(); ++i)
      EXPECT_TRUE(all_finite(grads.values[i])) << k.name << " " << grads.info[i].name;
  }
}

TEST(TapeLm, RunTwiceIsBitwiseEqual) {
  const Config c = tiny(NormKind::seednorm_mh, Placement::pre, true, true);
  const auto p = perturbed_params(c);
  const auto a = autodiff::tape_lm_gradients<double>(c, p, tiny_batch());
  const auto b = autodiff::tape_lm_gradients<double>(c, p, tiny_batch());
  EXPECT_EQ(a.first, b.first);
  for (std::size_t i = 0; i < p.size(); ++i)
    EXPECT_TRUE((a.second.values[i].array() == b.second.values[i].array()).all()) << p.info[i].name;
}

TEST(TapeLm, RejectsAParameterListOfTheWrongLength) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre, false, false);
  autodiff::Tape<double> t;
  std::vector<autodiff::Var<double>> leaves;
  for (const auto& v : perturbed_params(c).values) leaves.push_back(t.leaf(v));
  leaves.pop_back();
  EXPECT_THROW(autodiff::tape_lm_loss(t, c, leaves, tiny_batch()), Error);
}

TEST(TapeLm, RejectsAParameterOfTheWrongShape) {
  const Config c = tiny(NormKind::rmsnorm, Placement::pre, false, false);
  lm::ParamStore<double> p = perturbed_params(c);
  p.values[0] = Mat<double>::Ones(2, 2);
  EXPECT_THROW(autodiff::tape_lm_gradients<double>(c, p, tiny_batch()), Error);
}

// ---- (2) the tape against the reference model's hand-derived backward, double ------------

// Two checks per case. In 50 digits the two formulations must give the same
// numbers (model50 vs tape50): any difference in the formulas shows at O(1) of
// the entry, and round-off is ~1e-50 times the terms' size, so a tolerance of
// 1e-30 of the gradient's size leaves 20 digits of room; this check, not the
// double one, is what proves the formulas equal, entry by entry, small ones too.
//
// In double (model64 vs tape64), |tape - model| <= 1e-13 G + 1e-12 max|g_p| +
// 1e-12 (|tape| + |model|) / 2 for block g_p, with G = max |g| over every
// parameter: both sides are double evaluations of the same sums in different
// orders, each off by a few hundred ulps of the terms it sums (~1e2 terms, the
// norms' and softmax's conditioning ~1e2). The terms can be of the gradient's
// size G even where the entry itself cancels to ~0: under SDD the maps are
// scale-invariant in their input, so MD's d loss / d r vanishes up to sdd_eps
// (measured: 1.7e-7 from terms ~1e-1, both double sides within 4.4e-16 of the
// 50-digit value, which model50 and tape50 share to 5e-50); the G term covers
// that round-off, the block term every other entry.
const double kRel64 = 1e-12, kGlobal64 = 1e-13;
const double kRel50 = 1e-30;

double max_abs(const lm::ParamStore<double>& g) {
  double m = 0;
  for (const auto& v : g.values) m = std::max(m, v.cwiseAbs().maxCoeff());
  return m;
}

class TapeLmVsModel : public ::testing::TestWithParam<Case> {};

TEST_P(TapeLmVsModel, GradientMatchesHandDerivedBackwardInDouble) {
  const Config& c = GetParam().c;
  const lm::Batch b = tiny_batch();
  const lm::ParamStore<double> p = perturbed_params(c);
  lm::Cache<double> cache;
  const double model_loss = lm::forward<double>(c, p, b, &cache);
  const lm::ParamStore<double> model = lm::backward<double>(c, p, b, cache);
  const auto [tape_loss, tape] = autodiff::tape_lm_gradients<double>(c, p, b);
  EXPECT_NEAR(tape_loss, model_loss, kRel64 * std::abs(model_loss));
  ASSERT_EQ(model.size(), p.size());
  const double G = max_abs(model);
  double worst_share = 0, worst_rel = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    ASSERT_EQ(model.info[i].name, p.info[i].name);
    const double block = model.values[i].cwiseAbs().maxCoeff();
    const verify::Tolerance tol{kGlobal64 * G + kRel64 * block, kRel64,
                                "double vs double: 1e-13 G + 1e-12 max|block| (see kRel64)"};
    const verify::Comparison r =
        verify::compare(p.info[i].name, tape.values[i], model.values[i], tol);
    EXPECT_TRUE(r.ok()) << r.str();
    worst_share = std::max(worst_share, r.worst_share);
    worst_rel = std::max(worst_rel, r.max_abs_err / (block > 0 ? block : 1));
  }
  std::printf("  %s: max |tape - model| / max|block| = %.3g, worst share of tolerance %.3g\n",
              GetParam().name.c_str(), worst_rel, worst_share);
}

TEST_P(TapeLmVsModel, GradientEqualsHandDerivedBackwardIn50Digits) {
  const Config& c = GetParam().c;
  const lm::Batch b = tiny_batch();
  const lm::ParamStore<Real50> p = lm::cast_params<Real50>(perturbed_params(c));
  lm::Cache<Real50> cache;
  const Real50 model_loss = lm::forward<Real50>(c, p, b, &cache);
  const lm::ParamStore<Real50> model = lm::backward<Real50>(c, p, b, cache);
  const auto [tape_loss, tape] = autodiff::tape_lm_gradients<Real50>(c, p, b);
  EXPECT_LE(static_cast<double>(abs(tape_loss - model_loss)), kRel50);
  ASSERT_EQ(model.size(), p.size());
  double G = 0;
  for (const auto& v : model.values) G = std::max(G, static_cast<double>(v.cwiseAbs().maxCoeff()));
  double worst = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const verify::Tolerance tol{kRel50 * G, kRel50, "50 digits vs 50 digits: 1e-30 G"};
    const verify::Comparison r =
        verify::compare(p.info[i].name, tape.values[i], model.values[i], tol);
    EXPECT_TRUE(r.ok()) << r.str();
    worst = std::max(worst, r.max_abs_err / G);
  }
  std::printf("  %s: max |tape50 - model50| / G = %.3g\n", GetParam().name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(EverySwitch, TapeLmVsModel, ::testing::ValuesIn(full_grid()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
