// The normalized linear map with every scale-vector strategy (scalevec/linear.hpp,
// the project's reading of the scale_vectors paper): gradients three ways for
// none, standard, AP, DP, DNP, MD and HG; the Pre-Norm absorption map and its
// inverse; the IWD policy table; errors.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <scaleref/autodiff/scalevec.hpp>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;
using scalevec::Strategy;

constexpr double kU = 0x1p-53;  // unit round-off of double

struct Case {
  M x, W, g, a, r, u;
  scalevec::Config c;
};

scalevec::Params<double> params_of(const Case& k) { return {k.W, k.g, k.a, k.r, k.u}; }

// The problem's inputs: x, W, then g / a / r / u as the strategy reads them.
Inputs<double> inputs_of(const Case& k) {
  Inputs<double> in{k.x, k.W};
  if (scalevec::uses_g(k.c.strategy)) in.push_back(k.g);
  if (scalevec::uses_a(k.c.strategy)) in.push_back(k.a);
  if (k.c.strategy == Strategy::md) {
    in.push_back(k.r);
    in.push_back(k.u);
  }
  return in;
}

// x [n, d_in] at 1e-8..1e8, W [d_out, d_in] at 1e-6..1e6, d_out = heads * w
// (heads in 1..3, so d_in != d_out is common and d = 1 happens), scale
// vectors away from 1, every strategy and eps.
rc::Gen<Case> scalevec_case() {
  return rc::gen::mapcat(
      rc::gen::tuple(verify::gen::extent(4), verify::gen::extent(6), verify::gen::extent(3),
                     rc::gen::inRange<long>(1, 4), eps(),
                     rc::gen::elementOf(scalevec::kStrategies)),
      [](const std::tuple<long, long, long, long, double, Strategy>& t) {
        const auto [n, d_in, w, heads, e, s] = t;
        const long d_out = heads * w;
        return rc::gen::map(
            rc::gen::tuple(input(n, d_in),
                           verify::gen::matrix(d_out, d_in, verify::gen::decades(-6, 6, 1)),
                           parameter(d_in), parameter(d_out), parameter(1), parameter(d_in)),
            [=](const std::tuple<M, M, M, M, M, M>& m) {
              Case k;
              std::tie(k.x, k.W, k.g, k.a, k.r, k.u) = m;
              k.c = {s, e, s == Strategy::dnp ? heads : 1};
              return k;
            });
      });
}

// The size of the terms each gradient is summed from: the backward of
// linear.hpp evaluated with absolute values, with |z| replaced by its term
// bound |s| |W|^T wherever z is used (da), and DNP's per-head dz multiplied by
// the cancellation in z (max_j (|s| |W|^T)_j / RMS(z_h) per row and head,
// at least 1), as in sdd_layer_test. A running-error bound for
// verify::agreement, in the order of inputs_of.
std::vector<double> term_scale(const Case& k, const M& dy) {
  scalevec::Cache<double> ch;
  scalevec::forward(params_of(k), k.c, k.x, &ch);
  const long n = dy.rows(), d_out = dy.cols(), d_in = k.x.cols();
  const Strategy s = k.c.strategy;
  const M As = ch.s.cwiseAbs(), AW = k.W.cwiseAbs(), Axh = ch.x_hat.cwiseAbs();
  const M Zb = As * AW.transpose();
  const M Aa = scalevec::uses_a(s) ? M(k.a.cwiseAbs()) : M(M::Ones(1, d_out));
  M Dz(n, d_out), da = M::Zero(1, d_out);
  if (s == Strategy::dnp) {
    const long w = d_out / k.c.heads;
    for (long i = 0; i < n; ++i)
      for (long h = 0; h < k.c.heads; ++h) {
        const double rz = ch.rz(i, h);
        const double cz = std::max(1.0, Zb.row(i).segment(h * w, w).maxCoeff() * rz);
        const M zh = ch.z_hat.row(i).segment(h * w, w).cwiseAbs();
        const M q =
            dy.row(i).segment(h * w, w).cwiseAbs().cwiseProduct(Aa.row(0).segment(h * w, w));
        Dz.row(i).segment(h * w, w) = rz * cz * (q + zh * q.cwiseProduct(zh).mean());
        da.row(0).segment(h * w, w) += cz * dy.row(i).segment(h * w, w).cwiseAbs().cwiseProduct(zh);
      }
  } else {
    for (long i = 0; i < n; ++i) Dz.row(i) = dy.row(i).cwiseAbs().cwiseProduct(Aa);
    da = dy.cwiseAbs().cwiseProduct(Zb).colwise().sum();
  }
  const M Ds = Dz * AW;
  const M Dg = Ds.cwiseProduct(Axh).colwise().sum();
  const M Ag = ch.gv.size() ? M(ch.gv.cwiseAbs()) : M(M::Ones(1, d_in));
  double sx = 0;
  for (long i = 0; i < n; ++i) {
    const M dxh = Ds.row(i).cwiseProduct(Ag);
    sx = std::max(
        sx, ch.rx(i, 0) * (dxh + Axh.row(i) * dxh.cwiseProduct(Axh.row(i)).mean()).maxCoeff());
  }
  std::vector<double> out{sx, (Dz.transpose() * As).maxCoeff()};
  if (scalevec::uses_g(s)) out.push_back(Dg.maxCoeff());
  if (scalevec::uses_a(s)) out.push_back(da.maxCoeff());
  if (s == Strategy::md) {
    const M uh = ch.u_hat.cwiseAbs(), rdg = std::abs(k.r(0, 0)) * Dg;
    out.push_back(Dg.cwiseProduct(uh).sum());
    out.push_back(ch.ru(0, 0) * (rdg + uh * rdg.cwiseProduct(uh).mean()).maxCoeff());
  }
  return out;
}

RC_GTEST_PROP(ScaleVec, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const Case k = *scalevec_case();
  const M dy = *output_gradient(k.x.rows(), k.W.rows());
  RC_CLASSIFY(true, scalevec::strategy_name(k.c.strategy));
  RC_CLASSIFY(k.W.rows() != k.W.cols(), "d_in != d_out");
  RC_CLASSIFY(k.W.rows() == 1 || k.W.cols() == 1, "d = 1");
  RC_CLASSIFY(k.c.heads > 1, "DNP per head");
  check_three_ways(autodiff::analytic_scalevec(k.c), autodiff::tape_scalevec_problem(k.c),
                   inputs_of(k), dy, term_scale(k, dy));
}

// HG: 1..3 branches (attention's q, k, v; the FFN's gate, up), each its own
// d_out; checked on the branch outputs side by side.
RC_GTEST_PROP(ScaleVecHG, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const long n = *verify::gen::extent(4), d_in = *verify::gen::extent(5);
  const int branches = *rc::gen::element(1, 2, 3);
  const double e = *eps();
  const M x = *input(n, d_in);
  Inputs<double> in{x};
  std::vector<scalevec::Branch<double>> br;
  for (int b = 0; b < branches; ++b) {
    const long d_out = *verify::gen::extent(4);
    br.push_back(
        {*verify::gen::matrix(d_out, d_in, verify::gen::decades(-6, 6, 1)), *parameter(d_in)});
    in.push_back(br.back().W);
    in.push_back(br.back().g);
  }
  scalevec::HGCache<double> ch;
  const auto ys = scalevec::forward_hg(br, e, x, &ch);
  long total = 0;
  for (const auto& y : ys) total += y.cols();
  const M dy = *output_gradient(n, total);
  // Term sizes: dW_b = dy_b^T s_b, ds_b = dy_b W_b, dg_b = sum ds_b (.) x_hat,
  // dx_hat = sum_b ds_b (.) g_b, dx = rms_normalize_backward, all in |.|.
  const M Axh = ch.x_hat.cwiseAbs();
  M dxh = M::Zero(n, d_in);
  std::vector<double> scale{0};
  long col = 0;
  for (int b = 0; b < branches; ++b) {
    const M Ady = dy.middleCols(col, br[b].W.rows()).cwiseAbs();
    col += br[b].W.rows();
    const M Ds = Ady * br[b].W.cwiseAbs();
    scale.push_back((Ady.transpose() * ch.s[b].cwiseAbs()).maxCoeff());
    scale.push_back(Ds.cwiseProduct(Axh).colwise().sum().maxCoeff());
    for (long i = 0; i < n; ++i) dxh.row(i) += Ds.row(i).cwiseProduct(br[b].g.cwiseAbs());
  }
  for (long i = 0; i < n; ++i)
    scale[0] = std::max(
        scale[0],
        ch.rx(i, 0) *
            (dxh.row(i) + Axh.row(i) * dxh.row(i).cwiseProduct(Axh.row(i)).mean()).maxCoeff());
  RC_CLASSIFY(true, std::to_string(branches) + " branches");
  check_three_ways(autodiff::analytic_scalevec_hg(branches, e),
                   autodiff::tape_scalevec_hg_problem(branches, e), in, dy, scale);
}

// HG with equal g_b is "standard" per branch, bitwise: the same operations.
RC_GTEST_PROP(ScaleVecHG, BranchesAreStandardMapsOnASharedNorm, ()) {
  const Case k = *scalevec_case();
  const M W2 = *verify::gen::matrix(2, k.x.cols(), verify::gen::decades(-3, 3, 1));
  const M g2 = *parameter(k.x.cols());
  const auto ys = scalevec::forward_hg<double>({{k.W, k.g}, {W2, g2}}, k.c.eps, k.x);
  const scalevec::Config std_c{Strategy::standard, k.c.eps, 1};
  RC_ASSERT(ys[0] == scalevec::forward<double>({k.W, k.g, {}, {}, {}}, std_c, k.x));
  RC_ASSERT(ys[1] == scalevec::forward<double>({W2, g2, {}, {}, {}}, std_c, k.x));
}

// Pre-Norm absorption: "none" with W' = W diag(g) against "standard" with
// (g, W). Both sum d_in terms in the same order; term k is g_k n_k W_jk against
// n_k (W_jk g_k), two roundings each, so per output
//   |y_std - y_none| <= 2 (d_in + 2) u sum_k |g_k n_k W_jk|,   u = 2^-53
// (each sum within gamma_(d_in) of its exact value, the summands within 2u).
// In 50 digits the same bound with u = 1e-49.
RC_GTEST_PROP(ScaleVec, AbsorptionGivesTheSameOutputs, ()) {
  const Case k = *scalevec_case();
  const long d_in = k.x.cols();
  const scalevec::Config std_c{Strategy::standard, k.c.eps, 1}, none_c{Strategy::none, k.c.eps, 1};
  const M y_std = scalevec::forward<double>({k.W, k.g, {}, {}, {}}, std_c, k.x);
  const M Wp = scalevec::absorb(k.g, k.W);
  const M y_none = scalevec::forward<double>({Wp, {}, {}, {}, {}}, none_c, k.x);
  scalevec::Cache<double> ch;
  scalevec::forward<double>({k.W, k.g, {}, {}, {}}, std_c, k.x, &ch);
  const M terms = ch.s.cwiseAbs() * k.W.cwiseAbs().transpose();
  const double bound = 2.0 * (d_in + 2) * kU;
  RC_ASSERT(((y_std - y_none).cwiseAbs().array() <= bound * terms.array()).all());
  const Mat<Real50> g50 = cast<Real50>(k.g), W50 = cast<Real50>(k.W), x50 = cast<Real50>(k.x);
  const Mat<Real50> d50 =
      scalevec::forward<Real50>({W50, g50, {}, {}, {}}, std_c, x50) -
      scalevec::forward<Real50>({scalevec::absorb(g50, W50), {}, {}, {}, {}}, none_c, x50);
  for (long i = 0; i < d50.size(); ++i)
    RC_ASSERT(static_cast<double>(abs(d50.data()[i])) <=
              2.0 * (d_in + 2) * 1e-49 * terms.data()[i]);
}

// unabsorb(absorb(g, W), g) = W and absorb(g, unabsorb(W', g)) = W': one
// product and one quotient per entry, so within (2u + u^2) |W_jk| (2.5u stated).
RC_GTEST_PROP(ScaleVec, AbsorptionRoundTrips, ()) {
  const Case k = *scalevec_case();
  const M back = scalevec::unabsorb(scalevec::absorb(k.g, k.W), k.g);
  RC_ASSERT(((back - k.W).cwiseAbs().array() <= 2.5 * kU * k.W.cwiseAbs().array()).all());
  const M fwd = scalevec::absorb(k.g, scalevec::unabsorb(k.W, k.g));
  RC_ASSERT(((fwd - k.W).cwiseAbs().array() <= 2.5 * kU * k.W.cwiseAbs().array()).all());
}

// At initialization every strategy's scale vectors are 1: all give "none"'s
// output exactly, except DNP, which normalizes the output (and MD's g = 1
// exactly: u / RMS(u) with u = 1 is 1 / sqrt(1)).
TEST(ScaleVec, InitialScaleVectorsAreIdentities) {
  M x(3, 4), W(5, 4);
  for (long i = 0; i < x.size(); ++i) x.data()[i] = std::sin(0.7 * i + 0.1);
  for (long i = 0; i < W.size(); ++i) W.data()[i] = std::cos(0.3 * i);
  const M y = scalevec::forward(scalevec::init<double>(Strategy::none, W), {Strategy::none}, x);
  for (Strategy s : scalevec::kStrategies) {
    if (s == Strategy::dnp) continue;
    EXPECT_TRUE(scalevec::forward(scalevec::init<double>(s, W), {s}, x) == y)
        << scalevec::strategy_name(s);
  }
}

TEST(ScaleVec, InputNormOutputNormAndTheIWDPolicy) {
  using scalevec::DecayPolicy;
  using scalevec::Placement;
  for (const auto& v : scalevec::kScaleVectors) {
    const bool input = v.name != "a";
    EXPECT_EQ(scalevec::placement_of(v.name),
              input ? Placement::input_norm : Placement::output_norm)
        << v.name;
    EXPECT_EQ(scalevec::decayed(DecayPolicy::iwd, v.name), input) << v.name;
    EXPECT_TRUE(scalevec::decayed(DecayPolicy::decay_all, v.name)) << v.name;
    EXPECT_FALSE(scalevec::decayed(DecayPolicy::decay_none, v.name)) << v.name;
  }
  EXPECT_NE(error_of([] { scalevec::decayed(DecayPolicy::iwd, "W"); }).find("got \"W\""),
            std::string::npos);
  using V = std::vector<std::string_view>;
  EXPECT_EQ(scalevec::scale_vectors(Strategy::none), V{});
  EXPECT_EQ(scalevec::scale_vectors(Strategy::standard), V{"g"});
  EXPECT_EQ(scalevec::scale_vectors(Strategy::ap), V{"a"});
  EXPECT_EQ(scalevec::scale_vectors(Strategy::dp), (V{"g", "a"}));
  EXPECT_EQ(scalevec::scale_vectors(Strategy::dnp), (V{"g", "a"}));
  EXPECT_EQ(scalevec::scale_vectors(Strategy::md), (V{"r", "u"}));
}

TEST(ScaleVec, BadInputIsRejectedWithAClearError) {
  const M x = M::Ones(2, 3), W = M::Ones(4, 3);
  auto fwd = [&](Strategy s, scalevec::Params<double> p, M xx = M(), double e = 1e-6,
                 long heads = 1) {
    return error_of([&] { scalevec::forward<double>(p, {s, e, heads}, xx.size() ? xx : x); });
  };
  const auto dp = scalevec::init<double>(Strategy::dp, W);
  const auto npos = std::string::npos;
  EXPECT_NE(fwd(Strategy::none, {M::Ones(4, 2), {}, {}, {}, {}}).find("W [d_out x 3]"), npos);
  EXPECT_NE(fwd(Strategy::dp, {W, M::Ones(1, 4), dp.a, {}, {}}).find("g [1x3]"), npos);
  EXPECT_NE(fwd(Strategy::dp, {W, dp.g, M::Ones(1, 3), {}, {}}).find("a [1x4]"), npos);
  EXPECT_NE(fwd(Strategy::md, {W, {}, {}, M::Ones(1, 2), M::Ones(1, 3)}).find("r [1x1]"), npos);
  EXPECT_NE(fwd(Strategy::md, {W, {}, {}, M::Ones(1, 1), M::Ones(1, 4)}).find("u [1x3]"), npos);
  EXPECT_NE(fwd(Strategy::md, {W, {}, {}, M::Ones(1, 1), M::Zero(1, 3)}).find("RMS(u)"), npos);
  EXPECT_NE(fwd(Strategy::dnp, dp, M(), 1e-6, 3).find("heads dividing d_out = 4"), npos);
  EXPECT_EQ(fwd(Strategy::dnp, dp, M(), 1e-6, 2), "no error");
  EXPECT_NE(fwd(Strategy::dnp, dp, M(), 1e-6, 0).find("heads >= 1"), npos);
  EXPECT_NE(fwd(Strategy::dp, dp, M(), -1.0).find("eps >= 0"), npos);
  EXPECT_NE(
      error_of([&] { scalevec::forward<double>(dp, {Strategy::dp}, M(0, 3)); }).find("non-empty"),
      npos);
  M bad = x;
  bad(1, 2) = std::nan("");
  EXPECT_NE(fwd(Strategy::dp, dp, bad).find("finite input"), npos);
  auto badp = dp;
  badp.W(0, 0) = INFINITY;
  EXPECT_NE(fwd(Strategy::dp, badp).find("finite W"), npos);
  badp = dp;
  badp.g(0, 1) = std::nan("");
  EXPECT_NE(fwd(Strategy::dp, badp).find("finite g"), npos);
  M zero_row = x;
  zero_row.row(1).setZero();
  EXPECT_NE(fwd(Strategy::dp, dp, zero_row, 0.0).find("row 1"), npos);
  EXPECT_EQ(fwd(Strategy::dp, dp, zero_row, 1e-6), "no error");
  // DNP: W (g (.) n(x)) with an all-zero head and eps = 0.
  auto zero_head = dp;
  zero_head.W.topRows(2).setZero();
  EXPECT_NE(fwd(Strategy::dnp, zero_head, M(), 0.0, 2).find("DNP's n_h"), npos);
  // backward
  scalevec::Cache<double> empty;
  EXPECT_NE(error_of([&] {
              scalevec::backward<double>(dp, {Strategy::dp}, empty, M::Ones(2, 4));
            }).find("cache is empty"),
            npos);
  scalevec::Cache<double> ch;
  scalevec::forward<double>(dp, {Strategy::dp}, x, &ch);
  EXPECT_NE(error_of([&] {
              scalevec::backward<double>(dp, {Strategy::dp}, ch, M::Ones(2, 3));
            }).find("dy [2x4]"),
            npos);
  // HG
  EXPECT_NE(
      error_of([&] {
        scalevec::forward_hg<double>({{W, M::Ones(1, 3)}, {M::Ones(2, 5), M::Ones(1, 3)}}, 1e-6, x);
      }).find("W_b [d_out x 3]"),
      npos);
  EXPECT_NE(error_of([&] {
              scalevec::forward_hg<double>({{W, M::Ones(1, 2)}}, 1e-6, x);
            }).find("g_b [1x3]"),
            npos);
  EXPECT_NE(error_of([&] { scalevec::forward_hg<double>({}, 1e-6, x); }).find("at least one"),
            npos);
  // absorption
  EXPECT_NE(error_of([&] { scalevec::absorb<double>(M::Ones(1, 2), W); }).find("g [1x3]"), npos);
  M g0 = M::Ones(1, 3);
  g0(0, 1) = 0;
  EXPECT_NE(error_of([&] { scalevec::unabsorb<double>(W, g0); }).find("g(1) = 0"), npos);
}

}  // namespace
