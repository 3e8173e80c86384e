// The tiny LM's configuration: options in, a validated Config out, the
// parameter layout and its initialization. Bad configurations are Errors that
// name the offending key.
#include <gtest/gtest.h>

#include <scaleref/lm/params.hpp>
#include <scaleref/train/trainer.hpp>
#include <string>
#include <vector>

#include "error_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::lm;
using scaleref::test::error_of;
using scaleref::test::mentions;
using scaleref::train::Options;
using scaleref::train::parse_model_config;

Config parse(const std::vector<std::string>& args) {
  Options o;
  o.read_args(args);
  Config c = parse_model_config(o);
  o.finish();
  return c;
}

std::string parse_error(const std::vector<std::string>& args) {
  return error_of([&] { parse(args); });
}

// ---- options --------------------------------------------------------------------------

TEST(LmOptions, FileThenFlagsLaterOverridesEarlier) {
  Options o;
  o.read_text("# a comment\nd_model = 32   # trailing comment\n\nn_heads=2\n");
  o.read_args({"--d_model=16", "--norm", "dyt"});
  const Config c = parse_model_config(o);
  o.finish();
  EXPECT_EQ(c.d_model, 16);
  EXPECT_EQ(c.n_heads, 2);
  EXPECT_EQ(c.norm, NormKind::dyt);
}

TEST(LmOptions, MalformedLinesAndValuesNameTheKey) {
  Options o;
  EXPECT_TRUE(mentions(error_of([&] { o.read_text("d_model 32\n", "f.cfg"); }), "f.cfg:1"));
  EXPECT_TRUE(mentions(parse_error({"--d_model=3x"}), "'d_model'"));
  EXPECT_TRUE(mentions(parse_error({"--norm_eps=tiny"}), "'norm_eps'"));
  EXPECT_TRUE(mentions(parse_error({"--qk_norm=maybe"}), "'qk_norm'"));
  EXPECT_TRUE(mentions(parse_error({"--seed=-1"}), "'seed'"));
  EXPECT_TRUE(mentions(error_of([] {
                         Options o;
                         o.read_args({"--d_model"});
                       }),
                       "--d_model expects a value"));
}

TEST(LmOptions, AnUnknownKeyIsAnErrorNamingIt) {
  EXPECT_TRUE(mentions(parse_error({"--nrom=rmsnorm"}), "nrom"));
}

// ---- the bad configurations the issue names ---------------------------------------------

TEST(LmConfig, HeadsThatDoNotDivideDModel) {
  EXPECT_TRUE(mentions(parse_error({"--d_model=64", "--n_heads=3"}), "'n_heads'"));
  EXPECT_TRUE(mentions(parse_error({"--norm=seednorm_mh", "--norm_heads=5"}), "'norm_heads'"));
}

TEST(LmConfig, UnknownMethodNames) {
  EXPECT_TRUE(mentions(parse_error({"--norm=batchnorm"}), "'norm'"));
  EXPECT_TRUE(mentions(parse_error({"--placement=sandwich"}), "'placement'"));
  EXPECT_TRUE(mentions(parse_error({"--scale_vectors=XP"}), "'scale_vectors'"));
  EXPECT_TRUE(mentions(parse_error({"--init=orthogonal"}), "'init'"));
  EXPECT_TRUE(mentions(parse_error({"--sdd=q,z"}), "'sdd'"));
}

TEST(LmConfig, SddWithANormThatIsNotScaleInvariant) {
  for (const char* kind : {"dyt", "seednorm", "seednorm_mh"})
    EXPECT_TRUE(
        mentions(parse_error({"--sdd=all", std::string("--sdd_norm=") + kind}), "'sdd_norm'"))
        << kind;
  EXPECT_EQ(parse({"--sdd=all", "--sdd_norm=layernorm"}).sdd_norm, SddNorm::layernorm);
}

TEST(LmConfig, LirWithSir) {
  EXPECT_TRUE(mentions(parse_error({"--lir=true", "--sir=true"}), "'lir'"));
  EXPECT_TRUE(mentions(parse_error({"--lir=true", "--init=xavier_normal"}), "'lir'"));
}

TEST(LmConfig, ScaleVectorStrategiesNeedAPreNormRmsnorm) {
  EXPECT_TRUE(mentions(parse_error({"--scale_vectors=DP", "--norm=layernorm"}), "'scale_vectors'"));
  EXPECT_TRUE(mentions(parse_error({"--scale_vectors=HG", "--placement=post"}), "'scale_vectors'"));
  EXPECT_EQ(parse({"--scale_vectors=MD"}).scale_vectors, ScaleVectors::md);
}

// ---- layout and initialization ----------------------------------------------------------

const ParamInfo& info(const std::vector<ParamInfo>& l, const std::string& name) {
  for (const auto& p : l)
    if (p.name == name) return p;
  throw std::runtime_error("no parameter " + name);
}

bool has(const std::vector<ParamInfo>& l, const std::string& name) {
  for (const auto& p : l)
    if (p.name == name) return true;
  return false;
}

TEST(LmLayout, WeightDecayFollowsEachMethodsData) {
  // SeeDNorm decays alpha and beta, not gamma (seednorm Sec. 3.1); SDD's alpha
  // is decayed (authors' code); matrices and tables always.
  const auto seed = layout(parse({"--norm=seednorm", "--sdd=o"}));
  EXPECT_TRUE(info(seed, "layers.0.attn_norm.alpha").decay);
  EXPECT_TRUE(info(seed, "layers.0.attn_norm.beta").decay);
  EXPECT_FALSE(info(seed, "layers.0.attn_norm.gamma").decay);
  EXPECT_TRUE(info(seed, "layers.0.attn.o.alpha").decay);
  EXPECT_TRUE(info(seed, "layers.0.attn.o.V").decay);
  EXPECT_TRUE(info(seed, "embed").decay);
  // IWD: Input-Norm vectors (g, r, u) decayed, Output-Norm ones (a) not.
  const auto iwd = layout(parse({"--scale_vectors=DP", "--scale_vector_decay=iwd"}));
  EXPECT_TRUE(info(iwd, "layers.0.attn_norm.gamma").decay);
  EXPECT_FALSE(info(iwd, "layers.0.attn.q.a").decay);
  const auto none = layout(parse({"--scale_vectors=DP"}));
  EXPECT_FALSE(info(none, "layers.0.attn_norm.gamma").decay);
}

TEST(LmLayout, EachStrategyHasItsScaleVectors) {
  EXPECT_FALSE(has(layout(parse({"--scale_vectors=none"})), "layers.0.attn_norm.gamma"));
  const auto hg = layout(parse({"--scale_vectors=HG"}));
  for (const char* n : {"attn.q.g", "attn.k.g", "attn.v.g", "ffn.gate.g", "ffn.up.g"})
    EXPECT_TRUE(has(hg, std::string("layers.1.") + n)) << n;
  const auto md = layout(parse({"--scale_vectors=MD"}));
  EXPECT_EQ(info(md, "layers.0.ffn_norm.r").cols, 1);
  EXPECT_EQ(info(md, "layers.0.ffn_norm.u").cols, 64);
  EXPECT_TRUE(has(layout(parse({"--scale_vectors=DNP"})), "layers.0.ffn.up.a"));
  const auto tied = layout(parse({"--tie_embeddings=true", "--positions=false"}));
  EXPECT_FALSE(has(tied, "head"));
  EXPECT_FALSE(has(tied, "pos"));
}

TEST(LmInit, IsAPureFunctionOfTheConfigAndFollowsTheInitializer) {
  const Config c = parse({"--init=gamma", "--init_gamma=1", "--seed=7"});
  const auto a = init_params<double>(c), b = init_params<double>(c);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a.values[i], b.values[i]) << a.info[i].name;
  // gamma-init: std d_in^-1; the FFN down map reads d_ff = 256 inputs.
  const Mat<double>& down = a.at("layers.0.ffn.down.W");
  EXPECT_NEAR(std::sqrt(down.squaredNorm() / down.size()), 1.0 / 256, 0.05 / 256);
  const auto other = init_params<double>(parse({"--init=gamma", "--init_gamma=1", "--seed=8"}));
  EXPECT_NE(a.at("embed"), other.at("embed"));
  // SDD: alpha = 1/sqrt(L) on the residual outputs (sdd Sec. 4.1), 1 elsewhere.
  const auto s = init_params<double>(parse({"--sdd=all", "--n_layers=4"}));
  EXPECT_EQ(s.at("layers.2.ffn.down.alpha")(0, 0), 0.5);
  EXPECT_EQ(s.at("layers.2.ffn.up.alpha")(0, 0), 1.0);
}

TEST(LmInit, LirDividesTheStdByTheSquareRootOfTheLayerIndex) {
  const auto p = init_params<double>(parse({"--lir=true", "--n_layers=4", "--d_model=128"}));
  auto std_of = [&](const std::string& n) {
    const Mat<double>& w = p.at(n);
    return std::sqrt(w.squaredNorm() / w.size());
  };
  // 4 x 128 x 128 draws per estimate: relative SE ~ 1/sqrt(2 16384) = 0.6%.
  EXPECT_NEAR(std_of("layers.0.attn.q.W") / std_of("layers.3.attn.q.W"), 2.0, 0.06);
  EXPECT_NEAR(std_of("embed"), 0.02, 0.02 * 0.05);
}

}  // namespace
