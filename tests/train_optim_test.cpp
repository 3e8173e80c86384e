// The trainer's optimizers, clipping and learning-rate schedule
// (scaleref/train/optim.hpp), checked against trajectories computed by hand
// from PyTorch's algorithms and against the properties their definitions imply.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <scaleref/lm/params.hpp>
#include <scaleref/train/optim.hpp>
#include <string>

#include "error_support.hpp"
#include <vector>

namespace {

using scaleref::test::error_of;
using scaleref::test::mentions;

using namespace scaleref;
using train::AdamW;
using train::AdamWConfig;
using train::LrSchedule;
using train::LrShape;
using train::SGD;
using train::SGDConfig;

template <class S>
lm::ParamStore<S> two_params(double w0, double w1) {
  lm::ParamStore<S> p;
  p.info.push_back({"decayed", 1, 1, lm::Kind::matrix, true, 1, init::Role::query});
  p.info.push_back({"not_decayed", 1, 1, lm::Kind::norm, false, 1, init::Role::embedding});
  p.values.push_back(Mat<S>::Constant(1, 1, S(w0)));
  p.values.push_back(Mat<S>::Constant(1, 1, S(w1)));
  return p;
}

template <class S>
lm::ParamStore<S> grads_of(const lm::ParamStore<S>& like, double g0, double g1) {
  lm::ParamStore<S> g = like.zeros_like();
  g.values[0](0, 0) = S(g0);
  g.values[1](0, 0) = S(g1);
  return g;
}

// torch.optim.AdamW's update written out by hand (lr 0.1, weight_decay 0.1,
// betas (0.9, 0.999), eps 1e-8): gradients (0.5, 0.25) then (-0.25, 1.5) for a
// decayed parameter starting at 1 and a non-decayed one starting at -2.
// Step 1, decayed:     theta = 1 (1 - 0.01) = 0.99; m = 0.05, v = 2.5e-4;
//                      m_hat = 0.5, sqrt(v_hat) = 0.5; theta = 0.99 - 0.1 0.5 / (0.5 + 1e-8)
//                      = 0.890000002.
// Step 2, decayed:     theta = 0.890000002 (0.99); m = 0.02, v = 3.1225e-4;
//                      theta -= (0.1 / 0.19) m / (sqrt(v) / sqrt(0.001999) + 1e-8)
//                      = 0.8544662986878463.
// The non-decayed parameter: -2.099999996, then -2.184412520678292 (no shrink).
TEST(TrainAdamW, MatchesTwoHandComputedSteps) {
  auto p = two_params<double>(1.0, -2.0);
  AdamW<double> opt(p, AdamWConfig{0.9, 0.999, 1e-8, 0.1});
  opt.step(p, grads_of(p, 0.5, 0.25), 0.1);
  EXPECT_NEAR(p.values[0](0, 0), 0.890000002, 1e-15);
  EXPECT_NEAR(p.values[1](0, 0), -2.099999996, 1e-15);
  opt.step(p, grads_of(p, -0.25, 1.5), 0.1);
  EXPECT_NEAR(p.values[0](0, 0), 0.8544662986878463, 4e-16);
  EXPECT_NEAR(p.values[1](0, 0), -2.184412520678292, 8e-16);
  EXPECT_EQ(opt.steps(), 2);
  EXPECT_DOUBLE_EQ(opt.exp_avg().values[0](0, 0), 0.02);
  EXPECT_NEAR(opt.exp_avg_sq().values[0](0, 0), 3.1225e-4, 1e-18);
}

// The same trajectory in 50 digits agrees with the double one to double's rounding.
TEST(TrainAdamW, Real50AgreesWithDouble) {
  auto p = two_params<Real50>(1.0, -2.0);
  AdamW<Real50> opt(p, AdamWConfig{0.9, 0.999, 1e-8, 0.1});
  opt.step(p, grads_of(p, 0.5, 0.25), 0.1);
  opt.step(p, grads_of(p, -0.25, 1.5), 0.1);
  EXPECT_NEAR(static_cast<double>(p.values[0](0, 0)), 0.8544662986878463, 4e-16);
  EXPECT_NEAR(static_cast<double>(p.values[1](0, 0)), -2.184412520678292, 8e-16);
}

// With zero gradients Adam's step is 0 / (0 + eps) = 0: only decoupled decay
// moves a parameter, by exactly the factor (1 - lr lambda), and only in the
// decayed group, which the methods' ParamInfo.decay defines.
TEST(TrainAdamW, DecayReachesExactlyTheDecayedGroup) {
  lm::Config c;
  c.vocab = 8;
  c.d_model = 4;
  c.n_layers = 1;
  c.n_heads = 1;
  c.max_seq = 4;
  auto p = lm::init_params<double>(c);
  const auto before = p;
  AdamW<double> opt(p, AdamWConfig{0.9, 0.999, 1e-8, 0.5});
  opt.step(p, p.zeros_like(), 0.1);
  long decayed = 0, kept = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p.info[i].decay) {
      ++decayed;
      EXPECT_EQ(p.values[i], Mat<double>(before.values[i] * (1 - 0.1 * 0.5))) << p.info[i].name;
    } else {
      ++kept;
      EXPECT_EQ(p.values[i], before.values[i]) << p.info[i].name;
    }
  }
  EXPECT_GT(decayed, 0);
  EXPECT_GT(kept, 0);  // the RMSNorm gains
  EXPECT_EQ(train::group_names(p.info, true).size(), static_cast<std::size_t>(decayed));
  EXPECT_EQ(train::group_names(p.info, false).size(), static_cast<std::size_t>(kept));
}

TEST(TrainAdamW, RejectsBadHyperparameters) {
  auto p = two_params<double>(1, 1);
  EXPECT_TRUE(mentions(error_of([&] {
                         AdamW<double>(p, AdamWConfig{1.0, 0.999, 1e-8, 0});
                       }),
                       "beta1"));
  EXPECT_TRUE(mentions(error_of([&] {
                         AdamW<double>(p, AdamWConfig{0.9, -0.1, 1e-8, 0});
                       }),
                       "beta2"));
  EXPECT_TRUE(mentions(error_of([&] { AdamW<double>(p, AdamWConfig{0.9, 0.999, -1, 0}); }), "eps"));
  EXPECT_TRUE(mentions(error_of([&] {
                         AdamW<double>(p, AdamWConfig{0.9, 0.999, 1e-8, -1});
                       }),
                       "weight_decay"));
  AdamW<double> opt(p, AdamWConfig{});
  EXPECT_TRUE(mentions(error_of([&] { opt.step(p, p.zeros_like(), -0.1); }), "lr"));
  auto bad = p.zeros_like();
  bad.values[1](0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(mentions(error_of([&] { opt.step(p, bad, 0.1); }), "not_decayed"));
  auto other = two_params<double>(1, 1);
  other.values.pop_back();
  other.info.pop_back();
  EXPECT_TRUE(mentions(error_of([&] { opt.step(p, other, 0.1); }), "one layout"));
}

// torch.optim.SGD with momentum 0.5, dampening 0, by hand (lr 0.1):
// g1 = 1: b = 1, theta = 1 - 0.1 = 0.9; g2 = 2: b = 0.5 + 2 = 2.5, theta = 0.9 - 0.25 = 0.65.
TEST(TrainSGD, MomentumMatchesHandComputedSteps) {
  auto p = two_params<double>(1.0, 1.0);
  SGD<double> opt(p, SGDConfig{0.5, false, 0.0, false});
  opt.step(p, grads_of(p, 1.0, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(p.values[0](0, 0), 0.9);
  opt.step(p, grads_of(p, 2.0, 2.0), 0.1);
  EXPECT_DOUBLE_EQ(p.values[0](0, 0), 0.65);
  EXPECT_DOUBLE_EQ(opt.momentum_buffer().values[0](0, 0), 2.5);
}

// SGD and clipping in 50 digits: the same hand-computed values.
TEST(TrainSGD, Real50MatchesHandComputedSteps) {
  auto p = two_params<Real50>(1.0, 1.0);
  SGD<Real50> opt(p, SGDConfig{0.5, false, 0.0, false});
  opt.step(p, grads_of(p, 1.0, 1.0), 0.1);
  opt.step(p, grads_of(p, 2.0, 2.0), 0.1);
  EXPECT_NEAR(static_cast<double>(p.values[0](0, 0)), 0.65, 1e-16);
  auto g = grads_of(p, 3.0, 4.0);
  EXPECT_EQ(train::clip_grad_norm(g, 1.0), Real50(5));
  EXPECT_NEAR(static_cast<double>(train::global_norm(g)), 1.0, 1e-6);
}

// Coupled (PyTorch) decay adds lambda theta to the gradient, so it enters the
// momentum buffer; decoupled decay shrinks theta by (1 - lr lambda) instead.
// Only the decayed group is affected in either form.
TEST(TrainSGD, CoupledAndDecoupledDecay) {
  auto p = two_params<double>(2.0, 2.0);
  SGD<double> coupled(p, SGDConfig{0.0, false, 0.5, false});
  coupled.step(p, grads_of(p, 1.0, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(p.values[0](0, 0), 2.0 - 0.1 * (1.0 + 0.5 * 2.0));  // 1.8
  EXPECT_DOUBLE_EQ(p.values[1](0, 0), 2.0 - 0.1 * 1.0);                // 1.9
  auto q = two_params<double>(2.0, 2.0);
  SGD<double> decoupled(q, SGDConfig{0.0, false, 0.5, true});
  decoupled.step(q, grads_of(q, 1.0, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(q.values[0](0, 0), 2.0 * (1 - 0.05) - 0.1);  // 1.8 as well, at step 1
  EXPECT_DOUBLE_EQ(q.values[1](0, 0), 1.9);
  // with momentum the two differ from step 2 on: coupled decay is in the buffer
  auto a = two_params<double>(2.0, 2.0), b = two_params<double>(2.0, 2.0);
  SGD<double> ca(a, SGDConfig{0.9, false, 0.5, false}), cb(b, SGDConfig{0.9, false, 0.5, true});
  for (int k = 0; k < 2; ++k) {
    ca.step(a, grads_of(a, 1.0, 1.0), 0.1);
    cb.step(b, grads_of(b, 1.0, 1.0), 0.1);
  }
  // coupled: d1 = 2, b1 = 2, theta = 1.8; d2 = 1 + 0.9 = 1.9, b2 = 1.8 + 1.9 = 3.7, theta = 1.43
  EXPECT_DOUBLE_EQ(a.values[0](0, 0), 1.43);
  // decoupled: theta = 2 0.95 - 0.1 = 1.8; theta = 1.8 0.95 - 0.1 (0.9 + 1) = 1.52
  EXPECT_DOUBLE_EQ(b.values[0](0, 0), 1.52);
}

TEST(TrainSGD, NesterovAndErrors) {
  auto p = two_params<double>(1.0, 1.0);
  SGD<double> opt(p, SGDConfig{0.5, true, 0.0, false});
  opt.step(p, grads_of(p, 1.0, 0.0), 0.1);  // b = 1, d = 1 + 0.5 = 1.5
  EXPECT_DOUBLE_EQ(p.values[0](0, 0), 0.85);
  EXPECT_TRUE(mentions(error_of([&] {
                         SGD<double>(p, SGDConfig{1.0, false, 0, false});
                       }),
                       "momentum"));
  EXPECT_TRUE(mentions(error_of([&] {
                         SGD<double>(p, SGDConfig{0.0, true, 0, false});
                       }),
                       "nesterov"));
  EXPECT_TRUE(mentions(error_of([&] {
                         SGD<double>(p, SGDConfig{0.0, false, -1, false});
                       }),
                       "weight_decay"));
  EXPECT_TRUE(mentions(error_of([&] { opt.step(p, p.zeros_like(), -1); }), "lr"));
}

// clip_grad_norm_: a total norm of 5 clipped to 1 scales by 1 / (5 + 1e-6),
// and the pre-clip norm is returned; under the limit nothing changes, bitwise.
TEST(TrainClip, ScalesToMaxNormAndReturnsPreClipNorm) {
  auto p = two_params<double>(0, 0);
  auto g = grads_of(p, 3.0, 4.0);
  EXPECT_DOUBLE_EQ(train::global_norm(g), 5.0);
  EXPECT_DOUBLE_EQ(train::clip_grad_norm(g, 1.0), 5.0);
  EXPECT_DOUBLE_EQ(g.values[0](0, 0), 3.0 * (1.0 / (5.0 + 1e-6)));
  EXPECT_DOUBLE_EQ(g.values[1](0, 0), 4.0 * (1.0 / (5.0 + 1e-6)));
  EXPECT_NEAR(train::global_norm(g), 1.0, 1e-6);
  auto h = grads_of(p, 3.0, 4.0);
  EXPECT_DOUBLE_EQ(train::clip_grad_norm(h, 10.0), 5.0);
  EXPECT_EQ(h.values[0](0, 0), 3.0);
  EXPECT_EQ(h.values[1](0, 0), 4.0);
  EXPECT_TRUE(mentions(error_of([&] { train::clip_grad_norm(h, 0.0); }), "max_norm"));
  h.values[0](0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(mentions(error_of([&] { train::clip_grad_norm(h, 1.0); }), "not finite"));
}

TEST(TrainLrSchedule, WarmupThenCosineToMinLr) {
  const LrSchedule s{LrShape::cosine, 1e-3, 1e-4, 10, 110};
  EXPECT_DOUBLE_EQ(train::lr_at(s, 1), 1e-4);  // peak / warmup
  EXPECT_DOUBLE_EQ(train::lr_at(s, 5), 5e-4);
  EXPECT_DOUBLE_EQ(train::lr_at(s, 10), 1e-3);    // warmup end: the peak
  EXPECT_DOUBLE_EQ(train::lr_at(s, 60), 5.5e-4);  // half way: (peak + min) / 2
  EXPECT_DOUBLE_EQ(train::lr_at(s, 110), 1e-4);   // the last step: min_lr
  for (long t = 11; t < 110; ++t) EXPECT_GT(train::lr_at(s, t), train::lr_at(s, t + 1));
}

TEST(TrainLrSchedule, ConstantAndErrors) {
  const LrSchedule s{LrShape::constant, 2e-3, 0.0, 4, 20};
  EXPECT_DOUBLE_EQ(train::lr_at(s, 2), 1e-3);
  EXPECT_DOUBLE_EQ(train::lr_at(s, 4), 2e-3);
  EXPECT_DOUBLE_EQ(train::lr_at(s, 20), 2e-3);
  const LrSchedule no_warmup{LrShape::cosine, 1.0, 0.0, 0, 2};
  EXPECT_DOUBLE_EQ(train::lr_at(no_warmup, 1), 0.5);
  EXPECT_DOUBLE_EQ(train::lr_at(no_warmup, 2), 0.0);
  EXPECT_TRUE(mentions(error_of([&] { train::lr_at(s, 0); }), "step"));
  EXPECT_TRUE(mentions(error_of([&] { train::lr_at(s, 21); }), "step"));
  EXPECT_TRUE(mentions(error_of([&] {
                         train::lr_at(LrSchedule{LrShape::cosine, -1, 0, 0, 5}, 1);
                       }),
                       "lr"));
  EXPECT_TRUE(mentions(error_of([&] {
                         train::lr_at(LrSchedule{LrShape::cosine, 1, 2, 0, 5}, 1);
                       }),
                       "min_lr"));
  EXPECT_TRUE(mentions(error_of([&] {
                         train::lr_at(LrSchedule{LrShape::cosine, 1, 0, 6, 5}, 1);
                       }),
                       "warmup"));
}

}  // namespace
