// cuda_check's normalization cases: RMSNorm (with and without gamma, per
// head), LayerNorm (with and without bias), DyT, SeeDNorm (every alpha form,
// heads 1 and 4, every activation on one shape), AdaSeeDNorm; forward and
// backward, every dtype, the shape grid of support.cpp. Parameters are drawn
// away from their initial values (ones and zeros hide a wrong use of gamma).
//
// Tolerance terms (compare.hpp): y and dx of a norm depend on a row sum of
// D (or the head's w) terms; a parameter gradient on a sum over N rows (N D
// for a scalar parameter) of terms that each carry a row statistic, itself a
// sum of D terms: N + D in all (the emulator's first run found SeeDNorm's
// dbeta at 2 x 65536 fp64 3.8x over a bound of N alone: dz_h's dot product
// over 65536 columns cancels); DyT's y and dx are element-wise. A norm's dx
// is a difference of terms that can cancel far below their size (a width-1
// row: dx = r g (1 - x_hat^2) with x_hat^2 = x^2 / (x^2 + eps) next to 1), so
// its atol is relative to the terms (term_scale), not to dx; so is SeeDNorm's
// dalpha, a sum over rows whose terms cancel (3 rows of width 1 left fp32's
// dalpha at 2.1x a bound relative to its own size). Where sigma'(z) enters
// (SeeDNorm's dbeta and dx, DyT's dx and dalpha), the terms' size takes
// spec::activate_derivative_scale, not |sigma'(z)|: a GPU's tanh is a few
// ulps from the host's, and 1 - t^2 cancels (on an H100 the GPU's fp64 and
// fp32 dbeta at 1 x 1 used 1.9 of a tolerance relative to |sigma'(z)|; the
// emulator, on the host's tanh, cannot show it).
#include <scaleref/cuda/dyt.hpp>
#include <scaleref/cuda/layernorm.hpp>
#include <scaleref/cuda/rmsnorm.hpp>
#include <scaleref/cuda/seednorm.hpp>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/layernorm.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>

#include "families.hpp"

namespace scaleref::cuda::check {

namespace {

// A device copy of x's shape with zeros (and NaN padding) to write into.
template <class T>
DeviceMatrix<T> output_like(const Shape& s) {
  return DeviceMatrix<T>(MatD::Zero(s.rows, s.cols), s.stride);
}

template <class T>
DeviceMatrix<T> zero_row(i64 n) {
  return DeviceMatrix<T>(MatD::Zero(1, n));
}

// max over entries of sum_t |term_t|: the size of what a dx entry adds up.
double term_scale(std::initializer_list<MatD> terms) {
  MatD sum = MatD::Zero(terms.begin()->rows(), terms.begin()->cols());
  for (const MatD& t : terms) sum += t.cwiseAbs();
  return max_abs(sum);
}

// Row i of m times v(i).
MatD scale_rows(const MatD& m, const MatD& v) { return v.col(0).asDiagonal() * m; }

// Each row's mean of a (.) b, as an [N, 1] column.
MatD row_mean(const MatD& a, const MatD& b) {
  return a.cwiseProduct(b).rowwise().sum() / static_cast<double>(a.cols());
}

// The tolerance of an output whose atol is relative to its terms' size
// (`scale`, from term_scale) rather than to its own largest entry.
template <class T>
Tolerance term_tolerance(i64 terms, double scale) {
  return tolerance(dtype_of<T>(), Kind::reduced, terms, scale);
}

template <class T>
void rmsnorm_case(Report& r, const Shape& s, int heads, bool with_gamma) {
  const MatD x = draw<T>(1, s.rows, s.cols, -2, 2), dy = draw<T>(2, s.rows, s.cols, -1, 1);
  const MatD gamma = with_gamma ? draw<T>(3, 1, s.cols, 0.5, 1.5) : MatD::Ones(1, s.cols);
  DeviceMatrix<T> X(x, s.stride), DY(dy, s.stride), G(gamma),
      Y = output_like<T>(s), DX = output_like<T>(s), DG = zero_row<T>(s.cols);
  rmsnorm::Cache<T> cache;
  Workspace ws;
  rmsnorm::Config c;  // the spec's eps
  c.heads = heads;
  const rmsnorm::Params<T> p{with_gamma ? G.data() : nullptr};
  rmsnorm::forward<T>(p, c, X.cview(), Y.view(), &cache);
  rmsnorm::backward<T>(p, c, cache, X.cview(), DY.cview(), DX.view(),
                       {with_gamma ? DG.data() : nullptr}, ws);
  synchronize();

  const i64 w = s.cols / heads;
  MatD y(s.rows, s.cols), dx(s.rows, s.cols), dg(1, s.cols);
  double dx_scale = 0;
  for (int h = 0; h < heads; ++h) {  // the reference has no heads: one call per head
    const norm::rmsnorm::Params<double> ph{gamma.middleCols(h * w, w)};
    norm::rmsnorm::Cache<double> k;
    const MatD dyh = dy.middleCols(h * w, w);
    y.middleCols(h * w, w) = norm::rmsnorm::forward(ph, {c.eps}, MatD(x.middleCols(h * w, w)), &k);
    const auto g = norm::rmsnorm::backward(ph, {c.eps}, k, dyh);
    dx.middleCols(h * w, w) = g.dx;
    dg.middleCols(h * w, w) = g.dgamma;
    // dx = r g - r x_hat mean(g x_hat), g = dy (.) gamma
    const MatD gg = dyh.array().rowwise() * ph.gamma.row(0).array();
    dx_scale = std::max(dx_scale,
                        term_scale({scale_rows(gg, k.r),
                                    scale_rows(k.x_hat, k.r.cwiseProduct(row_mean(gg, k.x_hat)))}));
  }
  const std::string name = heads > 1 ? "rmsnorm/h" + std::to_string(heads)
                                     : (with_gamma ? "rmsnorm" : "rmsnorm/no-gamma");
  add<T>(r, label<T>(name.c_str(), s, "y"), Y.values(), y, Kind::reduced, w);
  r.add(label<T>(name.c_str(), s, "dx"), DX.values(), dx, term_tolerance<T>(w, dx_scale));
  if (with_gamma)
    add<T>(r, label<T>(name.c_str(), s, "dgamma"), DG.values(), dg, Kind::reduced, s.rows + w);
  expect_padding(r, label<T>(name.c_str(), s, "y/dx padding"), Y);
  expect_padding(r, label<T>(name.c_str(), s, "dx padding"), DX);
}

template <class T>
void layernorm_case(Report& r, const Shape& s, bool bias) {
  // an offset mean, so the centring matters
  const MatD x = draw<T>(4, s.rows, s.cols, 0.5, 3), dy = draw<T>(5, s.rows, s.cols, -1, 1);
  const MatD gamma = draw<T>(6, 1, s.cols, 0.5, 1.5), beta = draw<T>(7, 1, s.cols, -0.5, 0.5);
  DeviceMatrix<T> X(x, s.stride), DY(dy, s.stride), G(gamma), B(beta), Y = output_like<T>(s),
                                                                       DX = output_like<T>(s);
  DeviceMatrix<T> DG = zero_row<T>(s.cols), DB = zero_row<T>(s.cols);
  layernorm::Cache<T> cache;
  Workspace ws;
  const layernorm::Params<T> p{G.data(), bias ? B.data() : nullptr};
  const layernorm::Config gc;  // the spec's eps
  layernorm::forward<T>(p, gc, X.cview(), Y.view(), &cache);
  layernorm::backward<T>(p, gc, cache, X.cview(), DY.cview(), DX.view(),
                         {DG.data(), bias ? DB.data() : nullptr}, ws);
  synchronize();

  const norm::layernorm::Config c{gc.eps, bias};
  const norm::layernorm::Params<double> ph{gamma, bias ? beta : MatD()};
  norm::layernorm::Cache<double> k;
  const MatD y = norm::layernorm::forward(ph, c, x, &k);
  const auto g = norm::layernorm::backward(ph, c, k, dy);
  // dx = r g - r mean(g) - r x_hat mean(g x_hat), g = dy (.) gamma
  const MatD gg = dy.array().rowwise() * gamma.row(0).array();
  const MatD ones = MatD::Ones(s.rows, s.cols);
  const double dx_scale =
      term_scale({scale_rows(gg, k.r), scale_rows(ones, k.r.cwiseProduct(row_mean(gg, ones))),
                  scale_rows(k.x_hat, k.r.cwiseProduct(row_mean(gg, k.x_hat)))});
  const char* name = bias ? "layernorm" : "layernorm/no-bias";
  add<T>(r, label<T>(name, s, "y"), Y.values(), y, Kind::reduced, s.cols);
  r.add(label<T>(name, s, "dx"), DX.values(), g.dx, term_tolerance<T>(s.cols, dx_scale));
  add<T>(r, label<T>(name, s, "dgamma"), DG.values(), g.dgamma, Kind::reduced, s.rows + s.cols);
  if (bias) add<T>(r, label<T>(name, s, "dbeta"), DB.values(), g.dbeta, Kind::reduced, s.rows);
  expect_padding(r, label<T>(name, s, "y padding"), Y);
  expect_padding(r, label<T>(name, s, "dx padding"), DX);
}

template <class T>
void dyt_case(Report& r, const Shape& s) {
  const MatD x = draw<T>(8, s.rows, s.cols, -3, 3), dy = draw<T>(9, s.rows, s.cols, -1, 1);
  const MatD alpha = draw<T>(10, 1, 1, 0.3, 0.9), gamma = draw<T>(11, 1, s.cols, 0.5, 1.5),
             beta = draw<T>(12, 1, s.cols, -0.5, 0.5);
  DeviceMatrix<T> X(x, s.stride), DY(dy, s.stride), A(alpha), G(gamma), B(beta),
      Y = output_like<T>(s), DX = output_like<T>(s);
  DeviceMatrix<T> DA = zero_row<T>(1), DG = zero_row<T>(s.cols), DB = zero_row<T>(s.cols);
  Workspace ws;
  const dyt::Params<T> p{A.data(), G.data(), B.data()};
  dyt::forward<T>(p, X.cview(), Y.view());
  dyt::backward<T>(p, X.cview(), DY.cview(), DX.view(), {DA.data(), DG.data(), DB.data()}, ws);
  synchronize();

  const norm::dyt::Params<double> ph{alpha, gamma, beta};
  norm::dyt::Cache<double> k;
  const MatD y = norm::dyt::forward(ph, {}, x, &k);
  const auto g = norm::dyt::backward(ph, {}, k, dy);
  // y = gamma t + beta and dx = alpha dy gamma (1 - t^2), t = tanh(alpha x): each
  // entry is one chain, but its terms may cancel (gamma t against beta; t^2
  // against 1 for large |alpha x|), so atol is relative to the terms' size.
  const MatD gt = k.t.array().rowwise() * gamma.row(0).array();
  const MatD adg = (dy.array().rowwise() * gamma.row(0).array()) * alpha(0, 0);
  const double y_scale = term_scale({gt, MatD(beta.replicate(s.rows, 1))});
  const double dx_scale = term_scale({adg, adg.cwiseProduct(k.t.cwiseProduct(k.t))});
  r.add(label<T>("dyt", s, "y"), Y.values(), y, term_tolerance<T>(1, y_scale));
  r.add(label<T>("dyt", s, "dx"), DX.values(), g.dx, term_tolerance<T>(1, dx_scale));
  // dalpha = sum dy gamma x (1 - t^2): its terms' size takes 1 + t^2 (a GPU's
  // tanh is not the host's; spec::activate_derivative_scale).
  const MatD dalpha_terms =
      adg.cwiseProduct(x).cwiseProduct((1 + k.t.array().square()).matrix()) / alpha(0, 0);
  r.add(label<T>("dyt", s, "dalpha"), DA.values(), g.dalpha,
        term_tolerance<T>(s.rows * s.cols, dalpha_terms.cwiseAbs().sum()));
  add<T>(r, label<T>("dyt", s, "dgamma"), DG.values(), g.dgamma, Kind::reduced, s.rows);
  add<T>(r, label<T>("dyt", s, "dbeta"), DB.values(), g.dbeta, Kind::reduced, s.rows);
  expect_padding(r, label<T>("dyt", s, "y padding"), Y);
  expect_padding(r, label<T>("dyt", s, "dx padding"), DX);
}

// A case's name: the forms that are not the default, by their spec names.
std::string alpha_name(seednorm::AlphaForm a) {
  return a == seednorm::Config{}.alpha ? "" : std::string("/alpha-") + norm::seednorm::name(a);
}

std::string activation_name(seednorm::Activation a) {
  return a == seednorm::Config{}.sigma ? "" : std::string("/") + norm::name(a);
}

// The size of SeeDNorm's dz_h = sigma'(z_h) sum_{k in h} a_k q_k, q = dy (.)
// x_hat, per row and head: activate_derivative_scale(z_h) sum |a_k q_k|.
// Relative to sigma'(z_h) alone, a GPU's tanh a few ulps from the host's
// moved fp64 and fp32 dbeta at 1 x 1 past the tolerance on an H100
// (cuda/results/2026-11-26-nvidia-h100-80gb-hbm3/): 1 - t^2 cancels.
MatD seednorm_dz_scale(const norm::seednorm::Config& c, const MatD& alpha,
                       const norm::seednorm::Cache<double>& k, const MatD& dy) {
  const i64 n = dy.rows(), d = dy.cols(), w = d / c.heads;
  MatD out(n, c.heads);
  for (i64 i = 0; i < n; ++i)
    for (int h = 0; h < c.heads; ++h) {
      double sum = 0;
      for (i64 j = h * w; j < (h + 1) * w; ++j) {
        const double a = alpha.size() == 0 ? 1.0 : alpha.size() == 1 ? alpha(0, 0) : alpha(0, j);
        sum += std::abs(a * dy(i, j) * k.x_hat(i, j));
      }
      out(i, h) = norm::activate_derivative_scale(c.sigma, k.z(i, h)) * sum;
    }
  return out;
}

// The terms of SeeDNorm's dx (seednorm.hpp): r g and r x_hat mean(g x_hat)
// with g = dy (.) (scale + gamma), and beta_k dz_h (seednorm_dz_scale). dy is
// AdaSeeDNorm's dy (.) (1 + gamma(c)) there, and gamma its fixed 1.
double seednorm_dx_scale(const norm::seednorm::Config& c, const MatD& alpha, const MatD& beta,
                         const MatD& gamma, const norm::seednorm::Cache<double>& k,
                         const MatD& dy) {
  const i64 n = dy.rows(), d = dy.cols(), w = d / c.heads;
  const MatD gg = dy.cwiseProduct(k.scale + MatD(gamma.replicate(n, 1)));
  const MatD dz = seednorm_dz_scale(c, alpha, k, dy);
  MatD beta_term(n, d);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < d; ++j) beta_term(i, j) = std::abs(beta(0, j)) * dz(i, j / w);
  return term_scale({scale_rows(gg, k.r),
                     scale_rows(k.x_hat, k.r.cwiseProduct(row_mean(gg, k.x_hat))), beta_term});
}

// The size of SeeDNorm's dbeta_j = sum_i dz_{i,h(j)} x_ij, largest over j.
double seednorm_dbeta_scale(const norm::seednorm::Config& c, const MatD& alpha,
                            const norm::seednorm::Cache<double>& k, const MatD& dy) {
  const i64 n = dy.rows(), d = dy.cols(), w = d / c.heads;
  const MatD dz = seednorm_dz_scale(c, alpha, k, dy);
  double worst = 0;
  for (i64 j = 0; j < d; ++j) {
    double sum = 0;
    for (i64 i = 0; i < n; ++i) sum += std::abs(k.x(i, j)) * dz(i, j / w);
    worst = std::max(worst, sum);
  }
  return worst;
}

template <class T>
void seednorm_case(Report& r, const Shape& s, const seednorm::Config& c, bool ada) {
  const i64 alpha_len = c.alpha == seednorm::AlphaForm::vector ? s.cols : 1;
  const MatD x = draw<T>(13, s.rows, s.cols, -2, 2), dy = draw<T>(14, s.rows, s.cols, -1, 1);
  // beta large enough that sigma(x . beta) is far from 0 and its slope matters
  const double b = 2.0 / std::sqrt(static_cast<double>(s.cols / c.heads));
  const MatD alpha = draw<T>(15, 1, alpha_len, 0.5, 1.5), beta = draw<T>(16, 1, s.cols, -b, b),
             gamma = draw<T>(17, 1, s.cols, 0.5, 1.5);
  const MatD gamma_c = draw<T>(18, s.rows, s.cols, -0.5, 0.5),
             eta_c = draw<T>(19, s.rows, s.cols, -0.5, 0.5);
  DeviceMatrix<T> X(x, s.stride), DY(dy, s.stride), A(alpha), B(beta), G(gamma),
      GC(gamma_c, s.stride), EC(eta_c, s.stride), Y = output_like<T>(s), DX = output_like<T>(s),
                                                  DGC = output_like<T>(s), DEC = output_like<T>(s);
  DeviceMatrix<T> DA = zero_row<T>(alpha_len), DB = zero_row<T>(s.cols), DG = zero_row<T>(s.cols);
  const bool has_alpha = c.alpha != seednorm::AlphaForm::none;
  seednorm::Cache<T> cache;
  Workspace ws;
  const seednorm::Params<T> p{A.data(), B.data(), ada ? nullptr : G.data()};
  const seednorm::Grads<T> grads{has_alpha ? DA.data() : nullptr, DB.data(),
                                 ada ? nullptr : DG.data()};
  if (ada) {
    const seednorm::Condition<T> cond{GC.cview(), EC.cview()};
    seednorm::ada_forward<T>(p, c, cond, X.cview(), Y.view(), &cache);
    seednorm::ada_backward<T>(p, c, cond, cache, X.cview(), DY.cview(), DX.view(), grads,
                              {DGC.view(), DEC.view()}, ws);
  } else {
    seednorm::forward<T>(p, c, X.cview(), Y.view(), &cache);
    seednorm::backward<T>(p, c, cache, X.cview(), DY.cview(), DX.view(), grads, ws);
  }
  synchronize();

  norm::seednorm::Config rc;
  rc.eps = c.eps;
  rc.sigma = c.sigma;
  rc.heads = c.heads;
  rc.alpha = c.alpha;
  const MatD ref_alpha = has_alpha ? alpha : MatD();
  const std::string name = std::string(ada ? "adaseednorm" : "seednorm") +
                           (c.heads > 1 ? "/h" + std::to_string(c.heads) : "") +
                           alpha_name(c.alpha) + activation_name(c.sigma);
  const char* n = name.c_str();
  const i64 param_terms =
      s.cols + (c.alpha == seednorm::AlphaForm::scalar ? s.rows * s.cols : s.rows);
  // dalpha's terms dy (.) sigma (.) x_hat (times 1 + gamma(c) for AdaSeeDNorm),
  // with sigma = the cache's alpha sigma divided by alpha; summed per column,
  // or over everything for a scalar alpha.
  const auto dalpha_tolerance = [&](const norm::seednorm::Cache<double>& k, const MatD& g) {
    MatD sigma = k.scale;
    for (i64 j = 0; j < s.cols; ++j) sigma.col(j) /= alpha(0, alpha.cols() > 1 ? j : 0);
    const MatD t = g.cwiseProduct(sigma).cwiseProduct(k.x_hat).cwiseAbs();
    const double scale =
        c.alpha == seednorm::AlphaForm::scalar ? t.sum() : max_abs(MatD(t.colwise().sum()));
    return term_tolerance<T>(param_terms, scale);
  };
  if (ada) {
    const norm::adaseednorm::Params<double> ph{ref_alpha, beta};
    norm::adaseednorm::Cache<double> k;
    const MatD y = norm::adaseednorm::forward(ph, rc, x, gamma_c, eta_c, &k);
    const auto g = norm::adaseednorm::backward(ph, rc, k, dy);
    const double dx_scale = seednorm_dx_scale(rc, ref_alpha, beta, MatD::Ones(1, s.cols), k.inner,
                                              dy.cwiseProduct(k.one_plus_g));
    add<T>(r, label<T>(n, s, "y"), Y.values(), y, Kind::reduced, s.cols);
    r.add(label<T>(n, s, "dx"), DX.values(), g.dx, term_tolerance<T>(s.cols, dx_scale));
    add<T>(r, label<T>(n, s, "dgamma_c"), DGC.values(), g.dgamma_c, Kind::reduced, s.cols);
    add<T>(r, label<T>(n, s, "deta_c"), DEC.values(), g.deta_c, Kind::elementwise, 1);
    if (has_alpha)
      r.add(label<T>(n, s, "dalpha"), DA.values(), g.dalpha,
            dalpha_tolerance(k.inner, dy.cwiseProduct(k.one_plus_g)));
    r.add(label<T>(n, s, "dbeta"), DB.values(), g.dbeta,
          term_tolerance<T>(s.rows + s.cols, seednorm_dbeta_scale(rc, ref_alpha, k.inner,
                                                                  dy.cwiseProduct(k.one_plus_g))));
  } else {
    const norm::seednorm::Params<double> ph{ref_alpha, beta, gamma};
    norm::seednorm::Cache<double> k;
    const MatD y = norm::seednorm::forward(ph, rc, x, &k);
    const auto g = norm::seednorm::backward(ph, rc, k, dy);
    const double dx_scale = seednorm_dx_scale(rc, ref_alpha, beta, gamma, k, dy);
    add<T>(r, label<T>(n, s, "y"), Y.values(), y, Kind::reduced, s.cols);
    r.add(label<T>(n, s, "dx"), DX.values(), g.dx, term_tolerance<T>(s.cols, dx_scale));
    if (has_alpha) r.add(label<T>(n, s, "dalpha"), DA.values(), g.dalpha, dalpha_tolerance(k, dy));
    r.add(label<T>(n, s, "dbeta"), DB.values(), g.dbeta,
          term_tolerance<T>(s.rows + s.cols, seednorm_dbeta_scale(rc, ref_alpha, k, dy)));
    add<T>(r, label<T>(n, s, "dgamma"), DG.values(), g.dgamma, Kind::reduced, s.rows + s.cols);
  }
  expect_padding(r, label<T>(n, s, "y padding"), Y);
  expect_padding(r, label<T>(n, s, "dx padding"), DX);
}

// The aliasing the headers allow, and forward without a Cache: RMSNorm's y
// written over x with no cache, SeeDNorm's dx written over dy.
template <class T>
void in_place_case(Report& r, const Shape& s) {
  const MatD x = draw<T>(40, s.rows, s.cols, -2, 2), dy = draw<T>(41, s.rows, s.cols, -1, 1);
  const MatD gamma = draw<T>(42, 1, s.cols, 0.5, 1.5), alpha = draw<T>(43, 1, s.cols, 0.5, 1.5),
             beta = draw<T>(44, 1, s.cols, -0.05, 0.05);
  DeviceMatrix<T> XY(x, s.stride), X(x, s.stride), Y = output_like<T>(s), DYX(dy, s.stride),
                                                   G(gamma), A(alpha), B(beta);
  rmsnorm::forward<T>({G.data()}, {}, XY.cview(), XY.view(), nullptr);
  seednorm::Cache<T> cache;
  Workspace ws;
  const seednorm::Params<T> p{A.data(), B.data(), G.data()};
  seednorm::forward<T>(p, {}, X.cview(), Y.view(), &cache);
  seednorm::backward<T>(p, {}, cache, X.cview(), DYX.cview(), DYX.view(), {}, ws);
  synchronize();

  const MatD y = norm::rmsnorm::forward<double>({gamma}, {}, x);
  norm::seednorm::Cache<double> k;
  const norm::seednorm::Params<double> ph{alpha, beta, gamma};
  norm::seednorm::forward(ph, {}, x, &k);
  const auto g = norm::seednorm::backward(ph, {}, k, dy);
  add<T>(r, label<T>("rmsnorm/in-place,no-cache", s, "y"), XY.values(), y, Kind::reduced, s.cols);
  r.add(label<T>("seednorm/in-place", s, "dx"), DYX.values(), g.dx,
        term_tolerance<T>(s.cols, seednorm_dx_scale({}, alpha, beta, gamma, k, dy)));
  expect_padding(r, label<T>("rmsnorm/in-place,no-cache", s, "padding"), XY);
  expect_padding(r, label<T>("seednorm/in-place", s, "dx padding"), DYX);
}

template <class T>
void run_dtype(Report& r, bool quick) {
  const auto shapes = norm_shapes(quick);
  for (const Shape& s : shapes) {
    const std::string at = std::string(dtype_name(dtype_of<T>())) + " " + s.str();
    // reference time grows with N D: the widest shapes skip the slower families
    guarded(r, "rmsnorm " + at, [&] { rmsnorm_case<T>(r, s, 1, true); });
    guarded(r, "layernorm " + at, [&] { layernorm_case<T>(r, s, true); });
    guarded(r, "dyt " + at, [&] { dyt_case<T>(r, s); });
    guarded(r, "seednorm " + at, [&] { seednorm_case<T>(r, s, {}, false); });
    guarded(r, "adaseednorm " + at, [&] { seednorm_case<T>(r, s, {}, true); });
    if (s.cols % 4 == 0 && s.cols >= 8) {
      seednorm::Config mh;
      mh.heads = 4;
      guarded(r, "seednorm/h4 " + at, [&] { seednorm_case<T>(r, s, mh, false); });
      guarded(r, "adaseednorm/h4 " + at, [&] { seednorm_case<T>(r, s, mh, true); });
      guarded(r, "rmsnorm/h4 " + at, [&] { rmsnorm_case<T>(r, s, 4, false); });
    }
    // rows a backward splits over 8 blocks (launch.hpp's row_slices): parts
    // of two whole heads each, and a scalar alpha's entry per part
    if (s.cols >= 65536 && s.cols % 16 == 0) {
      seednorm::Config h16, scalar;
      h16.heads = 16;
      scalar.alpha = seednorm::AlphaForm::scalar;
      guarded(r, "seednorm/h16 " + at, [&] { seednorm_case<T>(r, s, h16, false); });
      guarded(r, "seednorm forms " + at, [&] { seednorm_case<T>(r, s, scalar, false); });
    }
  }
  // The forms and activations on one odd, padded shape and one aligned one.
  for (const Shape& s : {Shape{37, 1000, 1004}, Shape{16, 512, 512}}) {
    const std::string at = std::string(dtype_name(dtype_of<T>())) + " " + s.str();
    guarded(r, "rmsnorm/no-gamma " + at, [&] { rmsnorm_case<T>(r, s, 1, false); });
    guarded(r, "layernorm/no-bias " + at, [&] { layernorm_case<T>(r, s, false); });
    guarded(r, "in-place " + at, [&] { in_place_case<T>(r, s); });
    for (auto form : {seednorm::AlphaForm::scalar, seednorm::AlphaForm::none}) {
      seednorm::Config c;
      c.alpha = form;
      guarded(r, "seednorm forms " + at, [&] { seednorm_case<T>(r, s, c, false); });
    }
    for (auto a : norm::kActivations) {
      if (a == seednorm::Config{}.sigma) continue;  // tanh: every other case
      seednorm::Config c;
      c.sigma = a;
      c.heads = 4;
      guarded(r, "seednorm activations " + at, [&] { seednorm_case<T>(r, s, c, false); });
    }
  }
}

}  // namespace

Family norms_family() {
  return {"norms", [](Report& r, bool quick) {
            run_dtype<double>(r, quick);
            run_dtype<float>(r, quick);
            run_dtype<bf16>(r, quick);
          }};
}

}  // namespace scaleref::cuda::check
