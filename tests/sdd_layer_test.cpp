// The SDD layer y = alpha (.) norm(V x) (sdd eq. 2-3) and the plain layer
// y = W x (eq. 1, 4): gradients three ways, the invariances, eq. 28's
// orthogonality stated exactly, errors.
#include <gtest/gtest.h>
#include <omp.h>
#include <rapidcheck/gtest.h>

#include <scaleref/autodiff/sdd.hpp>

#include "norm_support.hpp"

namespace {

using namespace scaleref;
using namespace scaleref::test;

struct Case {
  M x, V, alpha;
  sdd::Config c;
};

// x [n, d_in] at 1e-9..1e9, V [d_out, d_in] at 1e-7..1e7, alpha away from 1.
rc::Gen<Case> sdd_case() {
  return rc::gen::mapcat(
      rc::gen::tuple(verify::gen::extent(4), verify::gen::extent(6), verify::gen::extent(6), eps()),
      [](const std::tuple<long, long, long, double>& t) {
        const auto [n, d_in, d_out, e] = t;
        return rc::gen::map(
            rc::gen::tuple(input(n, d_in),
                           verify::gen::matrix(d_out, d_in, verify::gen::decades(-6, 6, 1)),
                           parameter(d_out)),
            [e](const std::tuple<M, M, M>& m) {
              return Case{std::get<0>(m), std::get<1>(m), std::get<2>(m), sdd::Config{e}};
            });
      });
}

// How much z = x V^T cancels, row by row: max_j (|x_i| |V|^T)_j / RMS(z_i) >= 1.
M cancellation(const M& x, const M& V) {
  const M z = x * V.transpose(), terms = x.cwiseAbs() * V.cwiseAbs().transpose();
  M c(x.rows(), 1);
  for (long i = 0; i < x.rows(); ++i)
    c(i, 0) = terms.row(i).maxCoeff() / std::sqrt(z.row(i).squaredNorm() / z.cols());
  return c;
}

// The terms dx, dV, dalpha are summed from (the backward with absolute values),
// times the cancellation in z: a running-error bound for verify::agreement.
std::vector<double> term_scale(const Case& k, const M& dy) {
  sdd::Cache<double> cache;
  sdd::forward<double>({k.V, k.alpha}, k.c, k.x, &cache);
  const M cz = cancellation(k.x, k.V);
  M T(dy.rows(), dy.cols());  // |dz| terms
  M dalpha = M::Zero(1, dy.cols());
  for (long i = 0; i < dy.rows(); ++i) {
    const M g = dy.row(i).cwiseProduct(k.alpha).cwiseAbs();
    const M zh = cache.z_hat.row(i).cwiseAbs();
    T.row(i) = cache.r(i, 0) * cz(i, 0) * (g + zh * g.cwiseProduct(zh).mean());
    dalpha += cz(i, 0) * dy.row(i).cwiseAbs().cwiseProduct(zh);
  }
  return {(T * k.V.cwiseAbs()).maxCoeff(), (T.transpose() * k.x.cwiseAbs()).maxCoeff(),
          dalpha.maxCoeff()};
}

RC_GTEST_PROP(SDD, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const Case k = *sdd_case();
  const M dy = *output_gradient(k.x.rows(), k.V.rows());
  RC_CLASSIFY(k.V.rows() != k.V.cols(), "rectangular V");
  RC_CLASSIFY(k.V.rows() == 1, "d_out = 1");
  RC_CLASSIFY(k.c.eps == 0, "eps = 0 (the paper)");
  check_three_ways(autodiff::analytic_sdd(k.c), autodiff::tape_sdd_problem(k.c),
                   {k.x, k.V, k.alpha}, dy, term_scale(k, dy));
}

RC_GTEST_PROP(PlainLinear, AnalyticMatchesTapeAndFiniteDifferences, ()) {
  const Case k = *sdd_case();
  const M dy = *output_gradient(k.x.rows(), k.V.rows());
  // dx = dy W and dW = dy^T x: sums of products, judged against |dy| |W| and |dy|^T |x|.
  const std::vector<double> scale{(dy.cwiseAbs() * k.V.cwiseAbs()).maxCoeff(),
                                  (dy.cwiseAbs().transpose() * k.x.cwiseAbs()).maxCoeff()};
  check_three_ways(autodiff::analytic_linear(), autodiff::tape_linear_problem(), {k.x, k.V}, dy,
                   scale);
}

Mat<Real50> sdd50(const Case& k, const Mat<Real50>& V, const Mat<Real50>& x) {
  return sdd::forward<Real50>({V, cast<Real50>(k.alpha)}, {0.0}, x);
}

// eq. 2-3 at eps = 0: y does not change when V or x is scaled by k > 0.
// Powers of two scale exactly, so in double the output is bitwise the same;
// any k, in 50 digits, to 1e-40 of |alpha| times the cancellation in z.
RC_GTEST_PROP(SDD, InvariantToScalingVAndXAtEpsZero, ()) {
  Case k = *sdd_case();
  k.c.eps = 0;
  const double two = std::ldexp(1.0, *rc::gen::inRange(-40, 41));
  const M y = sdd::forward<double>({k.V, k.alpha}, k.c, k.x);
  RC_ASSERT(sdd::forward<double>({M(two * k.V), k.alpha}, k.c, k.x) == y);
  RC_ASSERT(sdd::forward<double>({k.V, k.alpha}, k.c, M(two * k.x)) == y);
  const Real50 s =
      pow(Real50(10), *rc::gen::inRange(-8, 9)) * Real50(*rc::gen::inRange(1, 1000)) / 7;
  const Mat<Real50> V = cast<Real50>(k.V), x = cast<Real50>(k.x), y50 = sdd50(k, V, x);
  const double tol = 1e-40 * k.alpha.cwiseAbs().maxCoeff() * cancellation(k.x, k.V).maxCoeff();
  RC_ASSERT(static_cast<double>((sdd50(k, Mat<Real50>(s * V), x) - y50).cwiseAbs().maxCoeff()) <=
            tol);
  RC_ASSERT(static_cast<double>((sdd50(k, V, Mat<Real50>(s * x)) - y50).cwiseAbs().maxCoeff()) <=
            tol);
}

// eq. 3: ||norm(V x)||_RMS = 1 at eps = 0: 4 ulps in double (a sum of squares,
// a root, a division), 1e-45 in 50 digits.
RC_GTEST_PROP(SDD, NormalizedOutputHasUnitRMSAtEpsZero, ()) {
  Case k = *sdd_case();
  sdd::Cache<double> c64;
  sdd::forward<double>({k.V, k.alpha}, {0.0}, k.x, &c64);
  sdd::Cache<Real50> c50;
  sdd::forward<Real50>({cast<Real50>(k.V), cast<Real50>(k.alpha)}, {0.0}, cast<Real50>(k.x), &c50);
  const long d = k.V.rows();
  for (long i = 0; i < k.x.rows(); ++i) {
    RC_ASSERT(std::abs(std::sqrt(c64.z_hat.row(i).squaredNorm() / d) - 1) <= 4 * 2.2e-16);
    RC_ASSERT(static_cast<double>(abs(sqrt(c50.z_hat.row(i).squaredNorm() / d) - 1)) <= 1e-45);
  }
}

// eq. 28: J_norm(z) = (1 / RMS(z)) (I - z z^T / (n RMS(z)^2)) maps z to 0, so
// the backward's dz_i = J^T g_i is orthogonal to z_i. Hence, exactly,
//   <dV, V>_F = sum_i dz_i . z_i = 0   and   x_i . dx_i = dz_i . z_i = 0,
// and with eps > 0 (J no longer kills z): dz_i . z_i = eps r_i^2 (g_i . z_hat_i),
// g_i = dy_i (.) alpha. In 50 digits, to 1e-40 of the size of the terms
// dz_i . z_i cancels from, sum_j r_i |g_ij| |z_ij| (twice: g . z and the
// projection), times the cancellation in z. (Not of |dV| |V|: at d_out = 1,
// eps = 0, norm(z) = sign(z) and dz is rounding noise itself.)
RC_GTEST_PROP(SDD, GradientIsOrthogonalToTheScaleDirections, ()) {
  const Case k = *sdd_case();
  const Mat<Real50> x = cast<Real50>(k.x), V = cast<Real50>(k.V), alpha = cast<Real50>(k.alpha);
  const Mat<Real50> dy = cast<Real50>(*output_gradient(k.x.rows(), k.V.rows()));
  sdd::Cache<Real50> cache;
  sdd::forward<Real50>({V, alpha}, k.c, x, &cache);
  const auto g = sdd::backward<Real50>({V, alpha}, k.c, cache, dy);
  Real50 expected = 0, terms = 0;
  for (long i = 0; i < x.rows(); ++i) {
    const Mat<Real50> gi = dy.row(i).cwiseProduct(alpha);
    const Mat<Real50> zi = cache.z_hat.row(i) / cache.r(i, 0);
    expected +=
        Real50(k.c.eps) * cache.r(i, 0) * cache.r(i, 0) * gi.cwiseProduct(cache.z_hat.row(i)).sum();
    terms += 2 * cache.r(i, 0) * gi.cwiseAbs().cwiseProduct(zi.cwiseAbs()).sum();
  }
  const double tol = 1e-40 * cancellation(k.x, k.V).maxCoeff() * static_cast<double>(terms);
  RC_ASSERT(static_cast<double>(abs(g.dV.cwiseProduct(V).sum() - expected)) <= tol);
  if (k.c.eps == 0) {
    Real50 xd = 0;
    for (long i = 0; i < x.rows(); ++i) xd += abs(x.row(i).dot(g.dx.row(i)));
    RC_ASSERT(static_cast<double>(xd) <= tol);
  }
}

TEST(SDD, BackwardIsRepeatableAndThreadCountIndependent) {
  const long n = 700, d_in = 48, d_out = 56;  // z has 39200 entries: threads run
  ASSERT_GE(n * d_out, kParallelEntries);
  M x(n, d_in), V(d_out, d_in), dy(n, d_out);
  for (long i = 0; i < x.size(); ++i) x.data()[i] = std::sin(0.31 * i);
  for (long i = 0; i < V.size(); ++i) V.data()[i] = 0.05 * std::cos(0.7 * i);
  for (long i = 0; i < dy.size(); ++i) dy.data()[i] = std::sin(0.17 * i + 1);
  const sdd::Params<double> p{V, M::Constant(1, d_out, 0.3)};
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    sdd::Cache<double> k;
    sdd::forward(p, sdd::Config::authors_code(), x, &k);
    return sdd::backward(p, sdd::Config::authors_code(), k, dy);
  };
  const int before = omp_get_max_threads();
  const auto a = run(1), b = run(1), c = run(2);
  omp_set_num_threads(before);
  EXPECT_TRUE(a.dx == b.dx && a.dV == b.dV && a.dalpha == b.dalpha);
  EXPECT_TRUE(a.dx == c.dx && a.dV == c.dV && a.dalpha == c.dalpha);
}

TEST(SDD, BadInputIsRejectedWithAClearError) {
  const M x = M::Ones(2, 3);
  const sdd::Params<double> p{M::Ones(4, 3), M::Ones(1, 4)};
  EXPECT_NE(error_of([&] {
              sdd::forward<double>({M::Ones(4, 2), p.alpha}, {}, x);
            }).find("V [d_out x 3]"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              sdd::forward<double>({p.V, M::Ones(1, 3)}, {}, x);
            }).find("alpha [1x4]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { sdd::forward(p, {-1.0}, x); }).find("eps >= 0"), std::string::npos);
  M zero_row = x;
  zero_row.row(1).setZero();
  EXPECT_NE(error_of([&] { sdd::forward(p, sdd::Config::paper(), zero_row); }).find("row 1"),
            std::string::npos);
  EXPECT_NO_THROW(sdd::forward(p, sdd::Config::authors_code(), zero_row));
  sdd::Params<double> bad = p;
  bad.V(2, 1) = std::nan("");
  EXPECT_NE(error_of([&] { sdd::forward(bad, {}, x); }).find("finite V"), std::string::npos);
  bad = p;
  bad.alpha(0, 0) = INFINITY;
  EXPECT_NE(error_of([&] { sdd::forward(bad, {}, x); }).find("finite alpha"), std::string::npos);
  EXPECT_NE(error_of([&] { linear::forward<double>({M::Ones(2, 5)}, x); }).find("W [d_out x 3]"),
            std::string::npos);
}

}  // namespace
