// The scale-vector placements on the GPU (scaleref/cuda/scalevec.hpp): bad
// input is a scaleref::Error naming the function before anything reaches the
// device (these tests run without a GPU, through the check_* functions that
// forward and backward run first); on a GPU, every strategy matches the
// reference in fp64, backward replays bit for bit, and HG is, branch by
// branch, bitwise the "standard" strategy. cuda_check's scalevec family is the
// full grid of strategies x dtypes x shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <scaleref/cuda/device.hpp>
#include <scaleref/cuda/scalevec.hpp>
#include <scaleref/random/philox.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <vector>

#include "error_support.hpp"

namespace scaleref::scalevec {
// gtest prints a parameter with PrintTo, found next to its type.
void PrintTo(Strategy s, std::ostream* os) { *os << strategy_name(s); }
}  // namespace scaleref::scalevec

namespace {

using namespace scaleref;
namespace sv = scaleref::cuda::scalevec;
using cuda::Rows;
using sv::Strategy;
using test::error_of;
using test::mentions;
using M = Mat<double>;
using i64 = std::int64_t;

using sv::kStrategies;

std::string strategy_test_name(const ::testing::TestParamInfo<Strategy>& info) {
  return sv::strategy_name(info.param);
}

// ---- bad input (no device needed) ------------------------------------------------------------

// A well-formed view that is never dereferenced: the checks reject the call first.
Rows<float> fake(i64 rows, i64 cols) {
  return {reinterpret_cast<float*>(std::uintptr_t{256}), rows, cols, cols};
}
const float* fake_vector() { return fake(1, 1).data; }

// x [4 x 8] -> y [4 x 6] with every parameter present.
sv::Params<float> full_params() {
  sv::Params<float> p;
  p.W = cuda::as_const(fake(6, 8));
  p.g = p.a = p.r = p.u = fake_vector();
  return p;
}

TEST(CudaScalevecApi, RejectsAMissingParameterTheStrategyReads) {
  const std::pair<Strategy, const char*> cases[] = {
      {Strategy::dp, "g"}, {Strategy::ap, "a"}, {Strategy::md, "u"}};
  for (const auto& [s, name] : cases) {
    sv::Params<float> p = full_params();
    if (s == Strategy::dp) p.g = nullptr;
    if (s == Strategy::ap) p.a = nullptr;
    if (s == Strategy::md) p.u = nullptr;
    const auto e = error_of([&] {
      sv::check_forward<float>(p, {s, 1e-6, 1}, cuda::as_const(fake(4, 8)), fake(4, 6));
    });
    EXPECT_TRUE(mentions(e, "cuda::scalevec::forward")) << e;
    EXPECT_TRUE(mentions(e, std::string("expected ") + name)) << e;
    EXPECT_TRUE(mentions(e, sv::strategy_name(s))) << e;
  }
}

TEST(CudaScalevecApi, AcceptsAbsentParametersTheStrategyDoesNotRead) {
  sv::Params<float> p;
  p.W = cuda::as_const(fake(6, 8));
  EXPECT_EQ(error_of([&] {
              sv::check_forward<float>(p, {Strategy::none, 1e-6, 1}, cuda::as_const(fake(4, 8)),
                                       fake(4, 6));
            }),
            "no error");
}

TEST(CudaScalevecApi, RejectsHeadsThatDoNotDivideDOutForDNP) {
  const auto e = error_of([] {
    sv::check_forward<float>(full_params(), {Strategy::dnp, 1e-6, 4}, cuda::as_const(fake(4, 8)),
                             fake(4, 6));
  });
  EXPECT_TRUE(mentions(e, "cuda::scalevec::forward")) << e;
  EXPECT_TRUE(mentions(e, "heads dividing d_out = 6")) << e;
}

TEST(CudaScalevecApi, RejectsMismatchedShapes) {
  const auto w = error_of([] {  // W's d_in is not x's
    sv::check_forward<float>(full_params(), {}, cuda::as_const(fake(4, 7)), fake(4, 6));
  });
  EXPECT_TRUE(mentions(w, "cuda::scalevec::forward")) << w;
  EXPECT_TRUE(mentions(w, "W [6x8]")) << w;
  const auto y = error_of([] {  // y is not [N x d_out]
    sv::check_forward<float>(full_params(), {}, cuda::as_const(fake(4, 8)), fake(4, 8));
  });
  EXPECT_TRUE(mentions(y, "expected y [4x6]")) << y;
}

TEST(CudaScalevecApi, RejectsANegativeEps) {
  const auto e = error_of([] {
    sv::check_forward<float>(full_params(), {Strategy::standard, -1.0, 1},
                             cuda::as_const(fake(4, 8)), fake(4, 6));
  });
  EXPECT_TRUE(mentions(e, "eps")) << e;
}

TEST(CudaScalevecApi, RejectsAGradientForAParameterTheStrategyDoesNotHave) {
  sv::Cache<float> cache;
  sv::Grads<float> g;
  g.dg = fake(1, 8).data;
  const auto e = error_of([&] {
    sv::check_backward<float>(full_params(), {Strategy::ap, 1e-6, 1}, cache,
                              cuda::as_const(fake(4, 8)), cuda::as_const(fake(4, 6)), fake(4, 8),
                              g);
  });
  EXPECT_TRUE(mentions(e, "cuda::scalevec::backward")) << e;
  EXPECT_TRUE(mentions(e, "dg asked for, but AP has no g")) << e;
}

TEST(CudaScalevecApi, RejectsABackwardWithoutItsForwardsCache) {
  const sv::Cache<float> empty;
  const auto e = error_of([&] {
    sv::check_backward<float>(full_params(), {}, empty, cuda::as_const(fake(4, 8)),
                              cuda::as_const(fake(4, 6)), fake(4, 8), {});
  });
  EXPECT_TRUE(mentions(e, "cuda::scalevec::backward")) << e;
  EXPECT_TRUE(mentions(e, "cache is empty")) << e;
}

TEST(CudaScalevecApi, RejectsABackwardWhoseCacheIsAnotherForwards) {
  sv::Cache<float> other;  // as forward would leave it: DP on x [4 x 8] -> [4 x 6]
  other.strategy = Strategy::dp;
  other.rows = 4;
  other.d_in = 8;
  other.d_out = 6;
  const auto e = error_of([&] {
    sv::check_backward<float>(full_params(), {Strategy::standard, 1e-6, 1}, other,
                              cuda::as_const(fake(4, 8)), cuda::as_const(fake(4, 6)), fake(4, 8),
                              {});
  });
  EXPECT_TRUE(mentions(e, "a DP cache")) << e;
}

TEST(CudaScalevecApi, RejectsHGWithNoBranchesOrMismatchedCounts) {
  const auto none =
      error_of([] { sv::check_forward_hg<float>({}, 1e-6, cuda::as_const(fake(4, 8)), {}); });
  EXPECT_TRUE(mentions(none, "cuda::scalevec::forward_hg")) << none;
  EXPECT_TRUE(mentions(none, "at least one branch")) << none;
  const std::vector<sv::Branch<float>> two{{cuda::as_const(fake(6, 8)), fake_vector()},
                                           {cuda::as_const(fake(3, 8)), fake_vector()}};
  const auto outputs =
      error_of([&] { sv::check_forward_hg<float>(two, 1e-6, cuda::as_const(fake(4, 8)), {}); });
  EXPECT_TRUE(mentions(outputs, "expected 2 outputs")) << outputs;
  const auto gain = error_of([] {
    sv::check_forward_hg<float>({{cuda::as_const(fake(6, 8)), nullptr}}, 1e-6,
                                cuda::as_const(fake(4, 8)), {fake(4, 6)});
  });
  EXPECT_TRUE(mentions(gain, "expected g_0")) << gain;
  const sv::HGCache<float> empty;
  const auto cache = error_of([&] {
    sv::check_backward_hg<float>(two, empty, cuda::as_const(fake(4, 8)),
                                 {cuda::as_const(fake(4, 6)), cuda::as_const(fake(4, 3))},
                                 fake(4, 8), {{}, {}});
  });
  EXPECT_TRUE(mentions(cache, "cuda::scalevec::backward_hg")) << cache;
  EXPECT_TRUE(mentions(cache, "cache is empty")) << cache;
}

// ---- on a GPU --------------------------------------------------------------------------------

bool have_device(std::string* why) {
  const auto info = cuda::query_device();
  *why = info.reason;
  return info.available;
}

// rows x cols values uniform in [lo, hi) from Philox stream (7, tensor).
M uniform(std::uint32_t tensor, i64 rows, i64 cols, double lo, double hi) {
  M m(rows, cols);
  for (i64 k = 0; k < m.size(); ++k)
    m.data()[k] = lo + (hi - lo) * random::uniform(7, tensor, static_cast<std::uint64_t>(k));
  return m;
}

// A dense matrix on the device, rounded to T, and its way back.
template <class T>
struct OnDevice {
  cuda::DeviceBuffer<T> buf;
  i64 rows, cols;
  explicit OnDevice(const M& m) : rows(m.rows()), cols(m.cols()) {
    std::vector<T> h(static_cast<std::size_t>(m.size()));
    for (i64 k = 0; k < m.size(); ++k) h[k] = cuda::from_double<T>(m.data()[k]);
    buf = cuda::DeviceBuffer<T>(h);
  }
  OnDevice(i64 r, i64 c) : OnDevice(M::Zero(r, c)) {}
  Rows<T> view() { return {buf.data(), rows, cols, cols}; }
  Rows<const T> cview() { return {buf.data(), rows, cols, cols}; }
  T* data() { return buf.data(); }
  M values() const {
    const std::vector<T> h = buf.download();
    M m(rows, cols);
    for (i64 k = 0; k < m.size(); ++k) m.data()[k] = cuda::to_double(h[k]);
    return m;
  }
  std::vector<T> bits() const { return buf.download(); }
};

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// Everything one strategy reads and writes, for x [n x d_in] -> y [n x d_out].
template <class T>
struct Layer {
  i64 n, d_in, d_out;
  sv::Config c;
  M x, W, g, a, r, u, dy;
  OnDevice<T> X, Wd, G, A, R, U, DY, Y;
  sv::Cache<T> cache;
  cuda::Workspace ws;

  Layer(Strategy s, i64 n_, i64 d_in_, i64 d_out_, int heads, double eps)
      : n(n_),
        d_in(d_in_),
        d_out(d_out_),
        c{s, eps, s == Strategy::dnp ? heads : 1},
        x(uniform(1, n, d_in, -2, 2)),
        W(uniform(2, d_out, d_in, -0.5, 0.5)),
        g(uniform(3, 1, d_in, 0.25, 2)),
        a(uniform(4, 1, d_out, 0.25, 2)),
        r(uniform(5, 1, 1, 0.5, 2)),
        u(uniform(6, 1, d_in, -2, 2)),
        dy(uniform(7, n, d_out, -1, 1)),
        X(x),
        Wd(W),
        G(g),
        A(a),
        R(r),
        U(u),
        DY(dy),
        Y(n, d_out) {}

  sv::Params<T> params() {
    sv::Params<T> p;
    p.W = Wd.cview();
    p.g = G.data();
    p.a = A.data();
    p.r = R.data();
    p.u = U.data();
    return p;
  }
  void forward(cuda::Blas& blas) { sv::forward<T>(blas, params(), c, X.cview(), Y.view(), &cache); }
};

// The gradients one backward writes.
template <class T>
struct Outputs {
  OnDevice<T> dx, dW, dg, da, dr, du;
  Outputs(i64 n, i64 d_in, i64 d_out)
      : dx(n, d_in), dW(d_out, d_in), dg(1, d_in), da(1, d_out), dr(1, 1), du(1, d_in) {}
  sv::Grads<T> grads(Strategy s) {
    sv::Grads<T> g;
    g.dW = dW.view();
    if (sv::uses_g(s)) g.dg = dg.data();
    if (sv::uses_a(s)) g.da = da.data();
    if (s == Strategy::md) {
      g.dr = dr.data();
      g.du = du.data();
    }
    return g;
  }
  template <class L>
  void backward(cuda::Blas& blas, L& l) {
    sv::backward<T>(blas, l.params(), l.c, l.cache, l.X.cview(), l.DY.cview(), dx.view(),
                    grads(l.c.strategy), l.ws);
  }
};

namespace ref = scaleref::scalevec;

// |got - want| <= 1e-12 max(1, max |want|) entry by entry: fp64 sums of a few
// dozen terms are good to ~1e-14.
void expect_close(const M& got, const M& want, const char* what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  const double tol = 1e-12 * std::max(1.0, want.cwiseAbs().maxCoeff());
  for (i64 k = 0; k < want.size(); ++k)
    ASSERT_NEAR(got.data()[k], want.data()[k], tol) << what << " entry " << k;
}

class CudaScalevec : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!have_device(&why)) GTEST_SKIP() << why;
  }
};

class CudaScalevecStrategy : public ::testing::TestWithParam<Strategy> {
 protected:
  void SetUp() override {
    std::string why;
    if (!have_device(&why)) GTEST_SKIP() << why;
  }
};

// x [6 x 10] -> [6 x 8], DNP with 2 heads of 4, eps = 0.1 (large enough to matter).
TEST_P(CudaScalevecStrategy, MatchesTheReferenceInFp64) {
  const Strategy s = GetParam();
  cuda::Blas blas;
  Layer<double> l(s, 6, 10, 8, 2, 0.1);
  Outputs<double> o(l.n, l.d_in, l.d_out);
  l.forward(blas);
  o.backward(blas, l);

  ref::Params<double> p;
  p.W = l.W;
  if (sv::uses_g(s)) p.g = l.g;
  if (sv::uses_a(s)) p.a = l.a;
  if (s == Strategy::md) {
    p.r = l.r;
    p.u = l.u;
  }
  const ref::Config c{s, l.c.eps, l.c.heads};
  ref::Cache<double> k;
  const M y = ref::forward(p, c, l.x, &k);
  const ref::Grads<double> want = ref::backward(p, c, k, l.dy);
  expect_close(l.Y.values(), y, "y");
  expect_close(o.dx.values(), want.dx, "dx");
  expect_close(o.dW.values(), want.dW, "dW");
  if (sv::uses_g(s)) expect_close(o.dg.values(), want.dg, "dg");
  if (sv::uses_a(s)) expect_close(o.da.values(), want.da, "da");
  if (s == Strategy::md) {
    expect_close(o.dr.values(), want.dr, "dr");
    expect_close(o.du.values(), want.du, "du");
  }
}

// 9000 rows: more than the backward's 1024 blocks x 8 rows, so every block adds
// several rows into its partial sums.
TEST_P(CudaScalevecStrategy, BackwardReplaysBitForBit) {
  const Strategy s = GetParam();
  cuda::Blas blas;
  Layer<float> l(s, 9000, 24, 16, 4, 1e-6);
  Outputs<float> first(l.n, l.d_in, l.d_out), second(l.n, l.d_in, l.d_out);
  l.forward(blas);
  first.backward(blas, l);
  second.backward(blas, l);
  EXPECT_TRUE(same_bits(first.dx.bits(), second.dx.bits()));
  EXPECT_TRUE(same_bits(first.dW.bits(), second.dW.bits()));
  EXPECT_TRUE(same_bits(first.dg.bits(), second.dg.bits()));
  EXPECT_TRUE(same_bits(first.da.bits(), second.da.bits()));
  EXPECT_TRUE(same_bits(first.dr.bits(), second.dr.bits()));
  EXPECT_TRUE(same_bits(first.du.bits(), second.du.bits()));
}

TEST_P(CudaScalevecStrategy, ParameterGradientsDoNotDependOnWhetherDxIsWanted) {
  const Strategy s = GetParam();
  cuda::Blas blas;
  Layer<float> l(s, 33, 20, 12, 3, 1e-6);
  Outputs<float> with(l.n, l.d_in, l.d_out), without(l.n, l.d_in, l.d_out);
  l.forward(blas);
  with.backward(blas, l);
  sv::backward<float>(blas, l.params(), l.c, l.cache, l.X.cview(), l.DY.cview(), Rows<float>{},
                      without.grads(s), l.ws);
  EXPECT_TRUE(same_bits(with.dW.bits(), without.dW.bits()));
  EXPECT_TRUE(same_bits(with.dg.bits(), without.dg.bits()));
  EXPECT_TRUE(same_bits(with.da.bits(), without.da.bits()));
  EXPECT_TRUE(same_bits(with.dr.bits(), without.dr.bits()));
  EXPECT_TRUE(same_bits(with.du.bits(), without.du.bits()));
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, CudaScalevecStrategy, ::testing::ValuesIn(kStrategies),
                         strategy_test_name);

// Three branches on one x: each branch's y, dW and dg are the bits of the
// "standard" strategy on that branch alone, and dx is the fixed-order fp32
// sum of the branches' standard dx, rounded once.
TEST_F(CudaScalevec, HGIsThePerBranchStandardStrategy) {
  const i64 n = 20, d_in = 32;
  const std::vector<i64> widths{24, 13, 32};
  const double eps = 1e-6;
  cuda::Blas blas;
  OnDevice<float> X(uniform(10, n, d_in, -2, 2)), DX(n, d_in);
  std::vector<OnDevice<float>> W, G, DY, Y, DW, DG;
  for (std::size_t b = 0; b < widths.size(); ++b) {
    const auto id = static_cast<std::uint32_t>(11 + 3 * b);
    W.emplace_back(uniform(id, widths[b], d_in, -0.5, 0.5));
    G.emplace_back(uniform(id + 1, 1, d_in, 0.25, 2));
    DY.emplace_back(uniform(id + 2, n, widths[b], -1, 1));
    Y.emplace_back(n, widths[b]);
    DW.emplace_back(widths[b], d_in);
    DG.emplace_back(1, d_in);
  }
  std::vector<sv::Branch<float>> branches;
  std::vector<Rows<float>> y;
  std::vector<Rows<const float>> dy;
  std::vector<sv::BranchGrads<float>> grads;
  for (std::size_t b = 0; b < widths.size(); ++b) {
    branches.push_back({W[b].cview(), G[b].data()});
    y.push_back(Y[b].view());
    dy.push_back(DY[b].cview());
    grads.push_back({DW[b].view(), DG[b].data()});
  }
  sv::HGCache<float> hg;
  cuda::Workspace ws;
  sv::forward_hg<float>(blas, branches, eps, X.cview(), y, &hg);
  sv::backward_hg<float>(blas, branches, hg, X.cview(), dy, DX.view(), grads, ws);

  std::vector<float> sum(static_cast<std::size_t>(n * d_in), 0.0f);
  for (std::size_t b = 0; b < widths.size(); ++b) {
    OnDevice<float> y1(n, widths[b]), dx1(n, d_in), dW1(widths[b], d_in), dg1(1, d_in);
    sv::Params<float> p;
    p.W = W[b].cview();
    p.g = G[b].data();
    const sv::Config c{Strategy::standard, eps, 1};
    sv::Cache<float> cache;
    sv::forward<float>(blas, p, c, X.cview(), y1.view(), &cache);
    sv::Grads<float> g;
    g.dW = dW1.view();
    g.dg = dg1.data();
    sv::backward<float>(blas, p, c, cache, X.cview(), DY[b].cview(), dx1.view(), g, ws);
    EXPECT_TRUE(same_bits(Y[b].bits(), y1.bits())) << "y of branch " << b;
    EXPECT_TRUE(same_bits(DW[b].bits(), dW1.bits())) << "dW of branch " << b;
    EXPECT_TRUE(same_bits(DG[b].bits(), dg1.bits())) << "dg of branch " << b;
    const std::vector<float> share = dx1.bits();
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += share[k];
  }
  EXPECT_TRUE(same_bits(DX.bits(), sum)) << "dx";
}

TEST_F(CudaScalevec, ForwardAndBackwardRunTheChecks) {
  cuda::Blas blas;
  Layer<float> l(Strategy::dp, 4, 8, 6, 1, 1e-6);
  sv::Params<float> p = l.params();
  p.g = nullptr;
  const auto f =
      error_of([&] { sv::forward<float>(blas, p, l.c, l.X.cview(), l.Y.view(), &l.cache); });
  EXPECT_TRUE(mentions(f, "cuda::scalevec::forward")) << f;
  const auto b = error_of([&] {
    sv::backward<float>(blas, l.params(), l.c, l.cache, l.X.cview(), l.DY.cview(), Rows<float>{},
                        {}, l.ws);
  });
  EXPECT_TRUE(mentions(b, "cuda::scalevec::backward")) << b;
  EXPECT_TRUE(mentions(b, "cache is empty")) << b;
}

}  // namespace
