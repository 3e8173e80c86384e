// The tape's semantics: accumulation, leaves and constants, repeatability,
// thread-count independence, the conventions at non-smooth points, and
// scaleref::Error for bad input naming the op and both shapes.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <scaleref/autodiff/tape.hpp>
#include <string>

namespace {

using scaleref::Error;
using scaleref::Mat;
using scaleref::Real50;
using scaleref::autodiff::Tape;
using scaleref::autodiff::Var;
using M = Mat<double>;

M filled(long rows, long cols, double start, double step) {
  M m(rows, cols);
  for (long i = 0; i < m.size(); ++i) m.data()[i] = start + step * static_cast<double>(i);
  return m;
}

bool bitwise_equal(const M& a, const M& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * a.size()) == 0;
}

// Expects `op` to throw scaleref::Error whose message contains every fragment.
void expect_error(const std::function<void()>& op, std::initializer_list<std::string> fragments) {
  try {
    op();
    ADD_FAILURE() << "no scaleref::Error thrown";
  } catch (const Error& e) {
    const std::string what = e.what();
    for (const auto& f : fragments) EXPECT_NE(what.find(f), std::string::npos) << what;
  }
}

TEST(Tape, ValueUsedTwiceAccumulatesBothPaths) {
  Tape<double> t;
  const Var<double> x = t.leaf(filled(2, 3, 0.5, 0.25));
  const Var<double> y = t.sum(t.mul(x, x));  // sum x^2 through two uses of x
  const auto g = t.gradients(y, {x});
  EXPECT_TRUE(bitwise_equal(g[0], 2.0 * t.value(x)));
}

TEST(Tape, ConstantsGetNoGradientAndUnusedLeavesGetZeros) {
  Tape<double> t;
  const auto x = t.leaf(filled(2, 2, 1, 1));
  const auto c = t.constant(filled(2, 2, 3, 0));
  const auto unused = t.leaf(filled(1, 4, 1, 1));
  const auto y = t.sum(t.mul(x, c));
  const auto g = t.gradients(y, {x, c, unused});
  EXPECT_TRUE(bitwise_equal(g[0], t.value(c)));
  EXPECT_TRUE((g[1].array() == 0).all());
  EXPECT_EQ(g[2].rows(), 1);
  EXPECT_EQ(g[2].cols(), 4);
  EXPECT_TRUE((g[2].array() == 0).all());
}

TEST(Tape, GradientsOfAnySubsetOfLeaves) {
  Tape<double> t;
  const auto a = t.leaf(filled(3, 2, 0.1, 0.3));
  const auto b = t.leaf(filled(2, 4, -0.7, 0.2));
  const auto y = t.sum(t.tanh(t.matmul(a, b)));
  const auto both = t.gradients(y, {a, b});
  const auto only_b = t.gradients(y, {b});
  EXPECT_TRUE(bitwise_equal(both[1], only_b[0]));
}

TEST(Tape, GradientsTwiceOnOneTapeAreBitwiseEqual) {
  Tape<double> t;
  const auto x = t.leaf(filled(4, 5, -1.3, 0.17));
  const auto g = t.leaf(filled(1, 5, 0.9, 0.05));
  const auto r = t.rsqrt(t.add_constant(t.row_mean(t.square(x)), 1e-6));
  const auto y = t.mul_rowvec(t.mul_colvec(x, r), g);
  const M dy = filled(4, 5, 0.3, -0.11);
  const auto first = t.gradients(y, dy, {x, g});
  const auto second = t.gradients(y, dy, {x, g});
  EXPECT_TRUE(bitwise_equal(first[0], second[0]));
  EXPECT_TRUE(bitwise_equal(first[1], second[1]));
}

// RMSNorm's graph on t, as in tape.hpp's example.
Var<double> rmsnorm_on(Tape<double>& t, Var<double> x, Var<double> g) {
  const auto r = t.rsqrt(t.add_constant(t.row_mean(t.square(x)), 1e-6));
  return t.mul_rowvec(t.mul_colvec(x, r), g);
}

TEST(Tape, AClearedTapeRecordsAgainAsIfNew) {
  Tape<double> reused;
  for (int round = 0; round < 3; ++round) {
    // Rounds 0 and 1: the same shapes, other values; round 2: other shapes.
    const long n = round < 2 ? 4 : 3, d = round < 2 ? 5 : 7;
    const M x0 = filled(n, d, -1.3 + round, 0.17), g0 = filled(1, d, 0.9, 0.05 * (round + 1));
    const M dy = filled(n, d, 0.3, -0.11);
    reused.clear();
    const auto x = reused.leaf(x0), g = reused.leaf(g0);
    const auto got = reused.gradients(rmsnorm_on(reused, x, g), dy, {x, g});
    Tape<double> fresh;
    const auto fx = fresh.leaf(x0), fg = fresh.leaf(g0);
    const auto want = fresh.gradients(rmsnorm_on(fresh, fx, fg), dy, {fx, fg});
    EXPECT_EQ(reused.size(), fresh.size()) << "round " << round;
    for (std::size_t i = 0; i < want.size(); ++i)
      EXPECT_TRUE(bitwise_equal(got[i], want[i])) << "round " << round << ", gradient " << i;
  }
}

// Causal attention, big enough that matmul runs on several threads.
std::vector<M> attention_gradients(int threads) {
  omp_set_num_threads(threads);
  const long t_len = 96, d = 64;
  Tape<double> t;
  const auto q = t.leaf(filled(t_len, d, -0.5, 1.0 / (t_len * d)));
  const auto k = t.leaf(filled(t_len, d, 0.4, -0.7 / (t_len * d)));
  const auto v = t.leaf(filled(t_len, d, 0.1, 0.3 / (t_len * d)));
  const auto p = t.row_softmax(t.causal_mask(t.scale(t.matmul(q, t.transpose(k)), 0.125)));
  const auto y = t.matmul(p, v);
  return t.gradients(y, filled(t_len, d, 1.0, -1.0 / (t_len * d)), {q, k, v});
}

TEST(Tape, ResultsDoNotDependOnThreadCount) {
  const int before = omp_get_max_threads();
  const auto one = attention_gradients(1);
  const auto four = attention_gradients(4);
  const auto three = attention_gradients(3);
  omp_set_num_threads(before);
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(bitwise_equal(one[i], four[i])) << "gradient " << i << ", 1 vs 4 threads";
    EXPECT_TRUE(bitwise_equal(one[i], three[i])) << "gradient " << i << ", 1 vs 3 threads";
  }
}

TEST(Tape, HardtanhDerivativeIsZeroAtAndBeyondTheEdges) {
  Tape<double> t;
  M x(1, 6);
  x << -2.0, -1.0, -0.5, 0.5, 1.0, 3.0;
  const auto v = t.leaf(x);
  const auto g = t.gradients(t.sum(t.hardtanh(v)), {v})[0];
  M expected(1, 6);
  expected << 0, 0, 1, 1, 0, 0;  // PyTorch's convention: 1 only strictly inside (-1, 1)
  EXPECT_TRUE(bitwise_equal(g, expected));
}

TEST(Tape, CausalMaskHidesTheFutureAndPassesNoGradientThere) {
  Tape<double> t;
  const auto s = t.leaf(filled(3, 3, 0.2, 0.1));
  const auto m = t.causal_mask(s);
  for (long i = 0; i < 3; ++i)
    for (long j = 0; j < 3; ++j) {
      if (j > i)
        EXPECT_EQ(t.value(m)(i, j), -std::numeric_limits<double>::infinity());
      else
        EXPECT_EQ(t.value(m)(i, j), t.value(s)(i, j));
    }
  const auto p = t.row_softmax(m);
  EXPECT_EQ(t.value(p)(0, 0), 1.0);  // the first token attends to itself only
  const auto g = t.gradients(m, M::Ones(3, 3), {s})[0];
  EXPECT_EQ(g(0, 1), 0.0);
  EXPECT_EQ(g(1, 0), 1.0);
}

TEST(Tape, RunsIn50Digits) {
  Tape<Real50> t;
  Mat<Real50> x(1, 1);
  x << Real50("0.5");
  const auto v = t.leaf(x);
  const auto g = t.gradients(t.sum(t.tanh(v)), {v})[0];
  const Real50 th = tanh(Real50("0.5"));
  EXPECT_EQ(g(0, 0), Real50(1) - th * th);
}

TEST(TapeErrors, ShapeMismatchNamesOpAndBothShapes) {
  Tape<double> t;
  const auto a = t.leaf(M::Ones(3, 4));
  const auto b = t.leaf(M::Ones(5, 2));
  const auto row = t.leaf(M::Ones(1, 3));
  const auto col = t.leaf(M::Ones(2, 1));
  expect_error([&] { t.add(a, b); }, {"tape::add", "[3x4]", "[5x2]"});
  expect_error([&] { t.sub(a, b); }, {"tape::sub", "[3x4]", "[5x2]"});
  expect_error([&] { t.mul(a, b); }, {"tape::mul", "[3x4]", "[5x2]"});
  expect_error([&] { t.div(a, b); }, {"tape::div", "[3x4]", "[5x2]"});
  expect_error([&] { t.matmul(a, b); }, {"tape::matmul", "[3x4]", "[5x2]"});
  expect_error([&] { t.add_rowvec(a, row); }, {"tape::add_rowvec", "[3x4]", "[1x3]"});
  expect_error([&] { t.mul_rowvec(a, row); }, {"tape::mul_rowvec", "[3x4]", "[1x3]"});
  expect_error([&] { t.add_colvec(a, col); }, {"tape::add_colvec", "[3x4]", "[2x1]"});
  expect_error([&] { t.mul_colvec(a, col); }, {"tape::mul_colvec", "[3x4]", "[2x1]"});
  expect_error([&] { t.mul_scalar(a, row); }, {"tape::mul_scalar", "[3x4]", "[1x3]"});
  expect_error([&] { t.concat_cols({a, b}); }, {"tape::concat_cols", "[3x4]", "[5x2]"});
  expect_error([&] { t.slice_cols(a, 2, 3); }, {"tape::slice_cols", "[3x4]"});
  expect_error([&] { t.causal_mask(a); }, {"tape::causal_mask", "[3x4]"});
  expect_error([&] { t.gradients(a, M::Ones(5, 2), {a}); }, {"tape::gradients", "[3x4]", "[5x2]"});
  expect_error([&] { t.gradients(a, {a}); }, {"tape::gradients", "1x1", "[3x4]"});
}

TEST(TapeErrors, EmptyLeavesAndForeignVarsAreRejected) {
  Tape<double> t, other;
  expect_error([&] { t.leaf(M(0, 3)); }, {"tape::leaf", "[0x3]"});
  expect_error([&] { t.constant(M(2, 0)); }, {"tape::constant", "[2x0]"});
  const auto foreign = other.leaf(M::Ones(1, 1));
  expect_error([&] { t.exp(foreign); }, {"tape::exp", "another tape"});
}

TEST(TapeErrors, VarsFromBeforeAClearAreRejected) {
  Tape<double> t;
  const auto old = t.leaf(M::Ones(2, 2));
  const auto old_second = t.leaf(M::Ones(2, 2));
  t.clear();
  const auto now = t.leaf(M::Ones(2, 2));  // the same id as `old`
  expect_error([&] { t.add(old, now); }, {"tape::add", "before the tape's last clear()"});
  expect_error([&] { t.gradients(now, M::Ones(2, 2), {old}); }, {"tape::gradients", "clear()"});
  // An id beyond the new recording's records: still named as stale, not foreign.
  expect_error([&] { t.exp(old_second); }, {"tape::exp", "before the tape's last clear()"});
}

TEST(TapeErrors, EveryOpChecksItsVarsBeforeReadingThem) {
  Tape<double> t;  // empty: an unchecked read of a record would be out of bounds
  const Var<double> none{};
  expect_error([&] { t.add_constant(none, 1.0); }, {"tape::add_constant", "another tape"});
  expect_error([&] { t.scale(none, 2.0); }, {"tape::scale", "another tape"});
  expect_error([&] { t.slice_cols(none, 0, 1); }, {"tape::slice_cols", "another tape"});
  expect_error([&] { t.row_softmax(none); }, {"tape::row_softmax", "another tape"});
}

TEST(TapeErrors, AVarOfADestroyedTapeAtTheSameAddressIsRejected) {
  // Two tapes built one after the other in the same storage: the second must
  // not take the first one's Var for its own.
  alignas(Tape<double>) unsigned char storage[sizeof(Tape<double>)];
  auto* first = new (storage) Tape<double>;
  const auto stale = first->leaf(M::Ones(2, 2));
  first->~Tape<double>();
  auto* second = new (storage) Tape<double>;
  second->leaf(M::Ones(2, 2));
  expect_error([&] { second->exp(stale); }, {"tape::exp"});
  second->~Tape<double>();
}

TEST(TapeErrors, AFailedOpLeavesTheTapeUsable) {
  Tape<double> t;
  const auto a = t.leaf(filled(2, 2, 1, 1));
  const std::size_t before = t.size();
  EXPECT_THROW(t.matmul(a, t.leaf(M::Ones(3, 3))), Error);
  EXPECT_EQ(t.size(), before + 1);  // the second leaf only; no half-made record
  const auto g = t.gradients(t.sum(a), {a})[0];
  EXPECT_TRUE((g.array() == 1).all());
}

}  // namespace
