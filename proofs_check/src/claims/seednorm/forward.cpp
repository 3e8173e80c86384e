// The forward maps of Sec. 2-4 (eq. 2, 3, 4, 7, 8, DyT's gradient) and the
// listings of Appendices D-E (Algorithms 1-3). The forward equations are the
// definitions the reference implements: checking one against its own
// transcription is conformance, not a verdict on the paper.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <scaleref/norm/adaseednorm.hpp>
#include <scaleref/norm/dyt.hpp>
#include <scaleref/norm/rmsnorm.hpp>
#include <scaleref/norm/seednorm.hpp>
#include <string>
#include <vector>

#include "claims/seednorm/seednorm.hpp"

namespace scaleref::audit {
namespace {

using namespace seednorm_claims;

Verdict check_eq2(const Context& ctx) {
  // RMSNorm (eq. 2): gamma (.) x / sqrt(mean x^2 + eps).
  const Mat<Real50> x = gaussian<Real50>(ctx.seed, 4, 16, 1.5, kTid + 10);
  const Mat<Real50> g = gaussian<Real50>(ctx.seed, 1, 16, 0.3, kTid + 11).array() + Real50(1);
  norm::rmsnorm::Config c;
  const Mat<Real50> y = norm::rmsnorm::forward<Real50>({g}, c, x);
  Mat<Real50> e(x.rows(), x.cols());
  for (long i = 0; i < x.rows(); ++i) {
    const Real50 rms = rms_of<Real50>(Mat<Real50>(x.row(i)), c.eps);
    for (long k = 0; k < x.cols(); ++k) e(i, k) = g(0, k) * x(i, k) / rms;
  }
  return forward_verdict(rel_dist<Real50>(y, e), "N = 4, D = 16, eps = 1e-6");
}

Verdict check_eq3(const Context& ctx) {
  // DyT (eq. 3): gamma (.) tanh(alpha x) + beta, scalar alpha.
  const Mat<Real50> x = gaussian<Real50>(ctx.seed, 4, 16, 2.0, kTid + 20);
  norm::dyt::Params<Real50> p{Mat<Real50>::Constant(1, 1, Real50(0.7)),
                              gaussian<Real50>(ctx.seed, 1, 16, 0.3, kTid + 21).array() + Real50(1),
                              gaussian<Real50>(ctx.seed, 1, 16, 0.2, kTid + 22)};
  const Mat<Real50> y = norm::dyt::forward<Real50>(p, {}, x);
  Mat<Real50> e(x.rows(), x.cols());
  for (long i = 0; i < x.rows(); ++i)
    for (long k = 0; k < x.cols(); ++k) {
      using std::tanh;
      e(i, k) = p.gamma(0, k) * tanh(p.alpha(0, 0) * x(i, k)) + p.beta(0, k);
    }
  return forward_verdict(rel_dist<Real50>(y, e), "N = 4, D = 16, alpha = 0.7");
}

Verdict check_eq3_grad(const Context& ctx) {
  // grad_x DyT(x) = alpha sech^2(alpha x) diag(gamma) (Sec. 2, file line 129).
  const long d = 8;
  const Mat<double> gamma = (gaussian(ctx.seed, 1, d, 0.3, kTid + 31).array() + 1.0).matrix();
  const Mat<double> bias = gaussian(ctx.seed, 1, d, 0.2, kTid + 32);
  const double a = 0.7;
  auto fwd = [gamma, bias, a](const auto& in) {
    using S = ScalarOf<decltype(in[0])>;
    norm::dyt::Params<S> p{Mat<S>::Constant(1, 1, S(a)), cast<S>(gamma), cast<S>(bias)};
    return norm::dyt::forward<S>(p, {}, in[0]);
  };
  auto bwd = [gamma, a](const auto& in, const auto& dy) {
    using S = ScalarOf<decltype(in[0])>;
    Mat<S> j = Mat<S>::Zero(in[0].cols(), in[0].cols());
    for (long k = 0; k < in[0].cols(); ++k)
      j(k, k) = S(a) * sech2<S>(S(a) * in[0](0, k)) * S(gamma(0, k));
    return std::vector<Mat<S>>{Mat<S>(dy * j)};
  };
  const auto prob = verify::Problem::make("dyt grad (line 129)", {"x"}, fwd, bwd);
  return exact_by_fd50(prob, {gaussian(ctx.seed, 1, d, 2.0, kTid + 30)},
                       "D = 8, alpha = 0.7, x ~ N(0, 4)");
}

Verdict check_eq4(const Context& ctx) {
  // The reference SeeDNorm (heads = 1, tanh, eps = 1e-6) against eq. 4 written out.
  std::vector<double> errs;
  for (long d : {8L, 64L}) {
    const Mat<Real50> x = gaussian<Real50>(ctx.seed, 4, d, 1.0, kTid + 40);
    const Mat<Real50> a = gaussian<Real50>(ctx.seed, 1, d, 0.5, kTid + 41).array() + Real50(1);
    const Mat<Real50> b = gaussian<Real50>(ctx.seed, 1, d, 0.4 / std::sqrt(d / 8.0), kTid + 42);
    const Mat<Real50> g = gaussian<Real50>(ctx.seed, 1, d, 0.3, kTid + 43).array() + Real50(1);
    norm::seednorm::Config c;
    const Mat<Real50> y = norm::seednorm::forward<Real50>({a, b, g}, c, x);
    errs.push_back(rel_dist<Real50>(y, seednorm_eq<Real50>(x, a, b, g, 1, c.eps)));
  }
  Verdict v = forward_verdict(std::max(errs[0], errs[1]), "N = 4, D = 8 and 64, eps = 1e-6");
  v.measured.push_back({"rel_diff_d8", errs[0]});
  v.measured.push_back({"rel_diff_d64", errs[1]});
  return v;
}

Verdict check_eq7(const Context& ctx) {
  // Multi-head SeeDNorm: the reference with heads = 2, 4, 8 against eq. 7.
  double worst = 0;
  std::vector<Measure> m;
  const long d = 16;
  const Mat<Real50> x = gaussian<Real50>(ctx.seed, 3, d, 1.0, kTid + 50);
  const Mat<Real50> a = gaussian<Real50>(ctx.seed, 1, d, 0.5, kTid + 51).array() + Real50(1);
  const Mat<Real50> b = gaussian<Real50>(ctx.seed, 1, d, 0.4, kTid + 52);
  const Mat<Real50> g = gaussian<Real50>(ctx.seed, 1, d, 0.3, kTid + 53).array() + Real50(1);
  for (int h : {2, 4, 8}) {
    norm::seednorm::Config c;
    c.heads = h;
    const Mat<Real50> y = norm::seednorm::forward<Real50>({a, b, g}, c, x);
    const double e = rel_dist<Real50>(y, seednorm_eq<Real50>(x, a, b, g, h, c.eps));
    m.push_back({"rel_diff_h" + std::to_string(h), e});
    worst = std::max(worst, e);
  }
  Verdict v = forward_verdict(worst, "N = 3, D = 16, H = 2, 4, 8, eps = 1e-6");
  v.measured.insert(v.measured.end(), m.begin(), m.end());
  return v;
}

Verdict check_eq8(const Context& ctx) {
  // AdaSeeDNorm: [(sigma(x.beta) alpha + 1) (.) x / RMS(x)] (.) (1 + gamma(c)) + eta(c).
  const long d = 16;
  const Mat<Real50> x = gaussian<Real50>(ctx.seed, 3, d, 1.0, kTid + 60);
  const Mat<Real50> a = gaussian<Real50>(ctx.seed, 1, d, 0.5, kTid + 61).array() + Real50(1);
  const Mat<Real50> b = gaussian<Real50>(ctx.seed, 1, d, 0.4, kTid + 62);
  const Mat<Real50> gc = gaussian<Real50>(ctx.seed, 3, d, 0.3, kTid + 63);
  const Mat<Real50> ec = gaussian<Real50>(ctx.seed, 3, d, 0.3, kTid + 64);
  norm::adaseednorm::Config c;
  const Mat<Real50> y = norm::adaseednorm::forward<Real50>({a, b}, c, x, gc, ec);
  Mat<Real50> e(x.rows(), d);
  const Mat<Real50> ones = Mat<Real50>::Ones(1, d);
  for (long i = 0; i < x.rows(); ++i) {
    const Mat<Real50> u = seednorm_eq<Real50>(Mat<Real50>(x.row(i)), a, b, ones, 1, c.eps);
    for (long k = 0; k < d; ++k) e(i, k) = u(0, k) * (Real50(1) + gc(i, k)) + ec(i, k);
  }
  return forward_verdict(rel_dist<Real50>(y, e), "N = 3, D = 16, per-row gamma(c), eta(c)");
}

// ---- Algorithms 1-3 ----------------------------------------------------------------

using Shape = std::vector<long>;

std::string shape_text(const Shape& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) t.push_back(',');
    t.append(std::to_string(s[i]));
  }
  t.push_back(']');
  return t;
}

// NumPy / PyTorch broadcasting; nullopt where the shapes do not broadcast.
std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const long x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const long y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = std::max(x, y);
  }
  return out;
}

// Algorithm 1's shape on an input of shape `x` ([N, D] or [B, N, D]), line by
// line: rescale = tanh(x @ beta) drops the last axis; rescale.unsqueeze(axis)
// (1 as written, -1 the fix) inserts a unit axis; * alpha [D]; + gamma [D];
// * x. Empty when a line does not broadcast.
std::optional<Shape> alg1_shape(const Shape& x, long axis) {
  Shape rescale(x.begin(), x.end() - 1);
  const long at = axis < 0 ? static_cast<long>(rescale.size()) + 1 + axis : axis;
  rescale.insert(rescale.begin() + at, 1);
  const long d = x.back();
  const std::optional<Shape> dyn = broadcast(rescale, {d});
  const std::optional<Shape> plus = dyn ? broadcast(*dyn, {d}) : std::nullopt;
  return plus ? broadcast(*plus, x) : std::nullopt;
}

Verdict check_alg1(const Context&) {
  // Algorithm 1 read two ways: on x in R^{N x D}, the shape eq. 4 states (and
  // whose values seednorm.alg.1-value checks), and on the [B, N, D] batch a
  // Transformer feeds the layers SeeDNorm replaces ("can be used to replace
  // all normalization layers", Algorithm 2's shape). N = 5 != D = 8, so a
  // misplaced axis cannot broadcast by coincidence.
  const long b = 2, n = 5, d = 8;
  const Shape x2{n, d}, x3{b, n, d};
  const std::optional<Shape> s2 = alg1_shape(x2, 1), s3 = alg1_shape(x3, 1),
                             fix3 = alg1_shape(x3, -1);
  auto text = [](const std::optional<Shape>& s) {
    return s ? shape_text(*s) : std::string("a broadcast error");
  };
  const Verdict on_nd =
      s2 && *s2 == x2
          ? holds("[N,D] -> " + text(s2),
                  "x in R^{N x D} as eq. 4 states, N = 5, D = 8: every line broadcasts and the "
                  "output is [N, D]",
                  {{"shape_ok_2d", 1.0}})
          : fails(Fault::math_error, "[N,D] -> " + text(s2),
                  "Algorithm 1 on [N, D] does not give eq. 4's shape", {{"shape_ok_2d", 0.0}});
  const bool fix_ok = fix3 && *fix3 == x3;
  const std::vector<Measure> m3{{"shape_ok_3d", s3 && *s3 == x3 ? 1.0 : 0.0},
                                {"shape_ok_3d_unsqueeze_last", fix_ok ? 1.0 : 0.0}};
  const std::string d3 =
      "x [B, N, D] = [2, 5, 8]: tanh(x @ beta) is [B, N], unsqueeze(1) "
      "makes it [B, 1, N], and times alpha [D] gives " +
      text(s3) + "; with unsqueeze(-1) ([B, N, 1]) the output is " + text(fix3);
  const Verdict on_bnd =
      s3 && *s3 == x3 ? holds("[B,N,D] -> " + text(s3), d3, m3)
                      : fails(fix_ok ? Fault::notation_slip : Fault::math_error,
                              {"Algorithm 1's rescale.unsqueeze(1) puts the unit axis before the "
                               "tokens of a [B, N, D] batch, so the listing does not broadcast",
                               fix_ok ? "rescale.unsqueeze(-1), which gives [B, N, D] on a batch "
                                        "and the same lines on [N, D]"
                                      : ""},
                              "[B,N,D] -> " + text(s3), d3, m3);
  return by_reading({{"x in R^{N x D}", on_nd}, {"a [B, N, D] batch", on_bnd}},
                    "eq. 4 and the text around Algorithm 1 give x in R^{N x D}, and the listing "
                    "is 'PyTorch-like' pseudocode for eq. 4; the batch is how the module is used");
}

Verdict check_alg1_value(const Context& ctx) {
  // Algorithm 1's order of operations, in Real50, against eq. 4 as transcribed.
  const long n = 5, d = 8;
  const Mat<Real50> x = gaussian<Real50>(ctx.seed, n, d, 1.0, kTid + 70);
  const Mat<Real50> a = gaussian<Real50>(ctx.seed, 1, d, 0.5, kTid + 71).array() + Real50(1);
  const Mat<Real50> b = gaussian<Real50>(ctx.seed, 1, d, 0.4, kTid + 72);
  const Mat<Real50> g = gaussian<Real50>(ctx.seed, 1, d, 0.3, kTid + 73).array() + Real50(1);
  const double eps = 1e-6;
  Mat<Real50> y(n, d);
  for (long i = 0; i < n; ++i) {
    using std::tanh;
    const Real50 rescale = tanh(Mat<Real50>(x.row(i) * b.transpose())(0, 0));
    const Mat<Real50> xh = x.row(i) / rms_of<Real50>(Mat<Real50>(x.row(i)), eps);
    const Mat<Real50> dyn = rescale * a;
    y.row(i) = (dyn + g).cwiseProduct(xh);
  }
  return forward_verdict(rel_dist<Real50>(y, seednorm_eq<Real50>(x, a, b, g, 1, eps)),
                         "N = 5, D = 8, eps = 1e-6, Algorithm 1's order of operations");
}

Verdict check_alg2(const Context& ctx) {
  // Algorithm 2 line by line on shapes (B = 2, N = 3, D = 8, H = 2), then on
  // values with the transpose back that its last line lacks.
  const long bsz = 2, n = 3, d = 8, hh = 2, w = d / hh;
  const Shape act{bsz, hh, n, 1};  // tanh(matmul(h [B,H,N,D/H], beta [B,H,D/H,1]))
  const Shape alp{bsz, hh, 1, w};  // alpha.reshape(1,H,1,D/H).repeat(B,1,1,1)
  const std::optional<Shape> dyn = broadcast(act, alp);                         // [B,H,N,D/H]
  const std::optional<Shape> plus = dyn ? broadcast(*dyn, {d}) : std::nullopt;  // + gamma [D]
  const std::optional<Shape> out = plus ? broadcast(*plus, {bsz, n, d}) : std::nullopt;
  // H = 1: dynamic_scale is [B,1,N,D]; + gamma [D]; * x [B,N,D].
  const std::optional<Shape> out_h1 = broadcast({bsz, 1, n, d}, {bsz, n, d});
  // Values with dynamic_scale.transpose(1, 2).reshape(B, N, D) inserted, by the
  // reshape/transpose index arithmetic, against eq. 7.
  const Mat<Real50> x = gaussian<Real50>(ctx.seed, bsz * n, d, 1.0, kTid + 80);  // row b * N + t
  const Mat<Real50> a = gaussian<Real50>(ctx.seed, 1, d, 0.5, kTid + 81).array() + Real50(1);
  const Mat<Real50> b = gaussian<Real50>(ctx.seed, 1, d, 0.4, kTid + 82);
  const Mat<Real50> g = gaussian<Real50>(ctx.seed, 1, d, 0.3, kTid + 83).array() + Real50(1);
  const double eps = 1e-6;
  std::vector<Real50> ds(bsz * hh * n * w);  // dynamic_scale [B,H,N,D/H], flat
  for (long bb = 0; bb < bsz; ++bb)
    for (long h = 0; h < hh; ++h)
      for (long t = 0; t < n; ++t) {
        Real50 acc = 0;  // matmul(h, beta): h[b,h,t,j] = x[b,t,h*w+j], beta[b,h,j,0] = beta[h*w+j]
        for (long j = 0; j < w; ++j) acc += x(bb * n + t, h * w + j) * b(0, h * w + j);
        using std::tanh;
        for (long j = 0; j < w; ++j)
          ds[((bb * hh + h) * n + t) * w + j] = tanh(acc) * a(0, h * w + j);
      }
  Mat<Real50> y(bsz * n, d);
  for (long bb = 0; bb < bsz; ++bb)
    for (long t = 0; t < n; ++t) {
      const Real50 rms = rms_of<Real50>(Mat<Real50>(x.row(bb * n + t)), eps);
      for (long c = 0; c < d; ++c) {  // transpose(1,2).reshape: [b,t,c] <- [b, c / w, t, c % w]
        const Real50 s = ds[((bb * hh + c / w) * n + t) * w + c % w];
        y(bb * n + t, c) = (s + g(0, c)) * x(bb * n + t, c) / rms;
      }
    }
  const double err = rel_dist<Real50>(y, seednorm_eq<Real50>(x, a, b, g, hh, eps));
  std::vector<Measure> m{{"literal_runs_h2", out ? 1.0 : 0.0},
                         {"literal_h1_output_rank", out_h1 ? double(out_h1->size()) : 0.0},
                         {"fixed_rel_diff_50", err}};
  const bool fixed_ok = err <= kForwardTol;
  const std::string fix =
      "; with dynamic_scale.transpose(1,2).reshape(B,N,D) inserted it equals "
      "eq. 7 to " +
      sci(err);
  if (!out)
    return fails(fixed_ok ? Fault::notation_slip : Fault::math_error,
                 {"Algorithm 2 adds the [B, H, N, D/H] dynamic scale to gamma [D] without "
                  "transposing and reshaping it back: the shapes do not broadcast",
                  fixed_ok ? "dynamic_scale.transpose(1, 2).reshape(B, N, D) + self.gamma, which "
                             "equals eq. 7"
                           : ""},
                 "broadcast error",
                 "B=2, N=3, D=8, H=2: `dynamic_scale + self.gamma` adds " +
                     (dyn ? shape_text(*dyn) : std::string("?")) +
                     " and [8], which do not "
                     "broadcast; with H = 1 the output is " +
                     (out_h1 ? shape_text(*out_h1) : std::string("?")) + ", not [2,3,8]" + fix +
                     (fixed_ok ? " (the slip: the transpose back to [B,N,H,D/H] and the reshape "
                                 "to [B,N,D] are missing before `+ self.gamma`)"
                               : ""),
                 m);
  return holds("rel diff " + sci(err), "Algorithm 2 runs as written" + fix, m);
}

// Algorithm 3's kernel on one row, in arithmetic T (float as in Triton, or double).
template <class T>
std::vector<T> alg3_row(const std::vector<double>& x, const std::vector<double>& w,
                        const std::vector<double>& alpha, const std::vector<double>& beta,
                        double eps) {
  T rms_acc = 0, dot = 0;
  const long n = static_cast<long>(x.size());
  for (long i = 0; i < n; ++i) {
    rms_acc += T(x[i]) * T(x[i]);
    dot += T(x[i]) * T(beta[i]);
  }
  const T rms = std::sqrt(rms_acc / T(n) + T(eps));
  const T neg_two_x = T(-2) * dot;
  const T e = std::exp(neg_two_x);
  const T t = (T(1) - e) / (T(1) + e);
  std::vector<T> y(n);
  for (long i = 0; i < n; ++i) y[i] = T(x[i]) / rms * (T(w[i]) + T(alpha[i]) * t);
  return y;
}

Verdict check_alg3(const Context& ctx) {
  // Algorithm 3 (float32 kernel, tanh as (1 - e^{-2z}) / (1 + e^{-2z})) vs eq. 4.
  const long d = 8;
  const double eps = 1e-6;
  std::vector<double> w(d), al(d), be(d, 1.0 / d);
  const Mat<double> gw = gaussian(ctx.seed, 1, d, 0.3, kTid + 91),
                    ga = gaussian(ctx.seed, 1, d, 0.5, kTid + 92);
  for (long i = 0; i < d; ++i) {
    w[i] = 1 + gw(0, i);
    al[i] = 1 + ga(0, i);
  }
  // eq. 4 in Real50 on x = c * 1 (beta = 1 / D, so z = x . beta = c).
  auto eq4 = [&](const std::vector<double>& x) {
    Mat<Real50> xm(1, d), am(1, d), bm(1, d), gm(1, d);
    for (long i = 0; i < d; ++i) {
      xm(0, i) = x[i];
      am(0, i) = al[i];
      bm(0, i) = be[i];
      gm(0, i) = w[i];
    }
    return seednorm_eq<Real50>(xm, am, bm, gm, 1, eps);
  };
  auto err_at = [&](const std::vector<double>& x, auto tag) {
    using T = decltype(tag);
    const std::vector<T> y = alg3_row<T>(x, w, al, be, eps);
    const Mat<Real50> e = eq4(x);
    double worst = 0;
    for (long i = 0; i < d; ++i) {
      if (!std::isfinite(double(y[i]))) return std::numeric_limits<double>::infinity();
      worst = std::max(worst,
                       std::abs(double(y[i]) - to_double(e(0, i))) / std::max(max_abs(e), 1e-300));
    }
    return worst;
  };
  // Typical inputs: x ~ N(0, 1) rows (z moderate): float32 agreement.
  double typical = 0;
  const Mat<double> xs = gaussian(ctx.seed, 16, d, 1.0, kTid + 90);
  for (long r = 0; r < xs.rows(); ++r) {
    std::vector<double> x(xs.row(r).data(), xs.row(r).data() + d);
    typical = std::max(typical, err_at(x, float{}));
  }
  // The counterexample x = -400 * 1: z = -400, exp(800) overflows.
  const std::vector<double> x400(d, -400.0);
  const double e400_f = err_at(x400, float{}), e400_d = err_at(x400, double{});
  // Shrunk: the largest z < 0 at which the float kernel's output is not finite.
  double lo = -400, hi = 0;  // lo: not finite, hi: finite
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo + hi);
    (std::isfinite(err_at(std::vector<double>(d, mid), float{})) ? hi : lo) = mid;
  }
  double lo_d = -400, hi_d = 0;
  for (int it = 0; it < 60; ++it) {
    const double mid = 0.5 * (lo_d + hi_d);
    (std::isfinite(err_at(std::vector<double>(d, mid), double{})) ? hi_d : lo_d) = mid;
  }
  std::vector<Measure> m{{"typical_rel_err_fp32", typical},
                         {"err_x_minus400_fp32", std::isfinite(e400_f) ? e400_f : -1},
                         {"err_x_minus400_fp64", std::isfinite(e400_d) ? e400_d : -1},
                         {"nan_threshold_z_fp32", lo},
                         {"nan_threshold_z_fp64", lo_d}};
  // Typical inputs: within 1e-5 of eq. 4 (fp32 keeps ~6e-8; the sums over D = 8
  // and the cancelling (1 - e) / (1 + e) near z = 0 lose a few more bits).
  const bool typical_ok = typical <= 1e-5;
  if (!std::isfinite(e400_f) || !typical_ok)
    return fails(
        Fault::math_error,
        !std::isfinite(e400_f)
            ? Finding{"Algorithm 3's tanh as (1 - exp(-2z)) / (1 + exp(-2z)) overflows to NaN "
                      "for z < " +
                          fixed(lo, 2) + " in float32, where eq. 4 is finite",
                      "tanh(z) evaluated stably (sign(z) (1 - e^(-2|z|)) / (1 + e^(-2|z|)))"}
            : Finding{"Algorithm 3 departs from eq. 4 by " + sci(typical) +
                      " on typical rows in float32"},
        "NaN at x = -400",
        "D = 8, beta = 1/D, x = -400 * 1 (z = -400): exp(-2z) overflows and the kernel "
        "returns (1 - inf) / (1 + inf) = NaN where eq. 4 gives (gamma - alpha) (-1); "
        "shrunk: non-finite for z < " +
            fixed(lo, 3) + " in float32 (" + fixed(lo_d, 2) +
            " in float64); typical rows agree to " + sci(typical) +
            "; the listing also reads self.weight / self.eps, which __init__ never defines",
        m);
  return holds("rel err " + sci(typical), "float32, D = 8", m);
}

}  // namespace

void add_seednorm_forward_claims(Registrar& r) {
  const char* gauss_real50 = " (Real50, seed ctx.seed)";
  r.add(
      {.id = "seednorm.eq.2",
       .location = "eq. 2",
       .statement = "RMSNorm(x) = gamma (.) x / sqrt(mean x^2 + eps)",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::conformance,
       .quote_line = 110,
       .quote =
           R"($$\text{RMSNorm}(\mathbf{x}) = \gamma \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})}, \text{ where } \text{RMS}(\mathbf{x}) = \sqrt{\frac{1}{D} \sum_{i=1}^D x_i^2 + \epsilon} \quad (2)$$)",
       .inputs = std::string("x 4x16 N(0, 1.5^2) tensor 10, gamma 1x16 1 + N(0, 0.3^2) tensor "
                             "11 (after 0x5EED0000), eps = 1e-6") +
                 gauss_real50,
       .formula = "norm::rmsnorm::forward against gamma_k x_k / sqrt(sum_i x_i^2 / D + eps), "
                  "row by row",
       .threshold = kForwardThreshold,
       .against =
           "the audit's row-by-row transcription of eq. 2 in Real50 (independent of norm::rmsnorm)",
       .check = check_eq2});
  r.add(
      {.id = "seednorm.eq.3",
       .location = "eq. 3",
       .statement = "DyT(x) = gamma (.) tanh(alpha x) + beta",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::conformance,
       .quote_line = 123,
       .quote =
           R"($$\text{DyT}(\mathbf{x}) = \gamma \odot \tanh(\alpha \mathbf{x}) + \beta \quad (3)$$)",
       .inputs = std::string("x 4x16 N(0, 2^2) tensor 20, alpha = 0.7, gamma 1x16 1 + N(0, "
                             "0.3^2) tensor 21, beta 1x16 N(0, 0.2^2) tensor 22") +
                 gauss_real50,
       .formula = "norm::dyt::forward against gamma_k tanh(alpha x_k) + beta_k",
       .threshold = kForwardThreshold,
       .against = "the audit's element-wise transcription of eq. 3 in Real50",
       .check = check_eq3});
  r.add(
      {.id = "seednorm.eq.3.grad",
       .location = "Sec. 2 (line 129)",
       .statement = "grad_x DyT(x) = alpha sech^2(alpha x) diag(gamma)",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 129,
       .quote =
           R"(Since $\nabla_{\mathbf{x}} \text{DyT}(\mathbf{x}) = \alpha \text{sech}^2(\alpha \mathbf{x}) \cdot \text{diag}(\gamma)$,)",
       .inputs = "x 1x8 N(0, 2^2) tensor 30, gamma 1x8 1 + N(0, 0.3^2) tensor 31, beta 1x8 "
                 "N(0, 0.2^2) tensor 32 (seed ctx.seed), alpha = 0.7",
       .formula = "J(k, l) = alpha sech^2(alpha x_k) gamma_k delta_kl; dL/dx = dy J, against "
                  "the FD of norm::dyt::forward",
       .threshold = kFd50Threshold,
       .against = "50-digit central finite differences of the reference DyT forward "
                  "(norm::dyt::forward, itself conformance-checked in seednorm.eq.3)",
       .check = check_eq3_grad});
  r.add(
      {.id = "seednorm.eq.4",
       .location = "eq. 4",
       .statement = "SeeDNorm(x) = [sigma(x . beta^T) alpha + gamma] (.) x / RMS(x)",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::conformance,
       .quote_line = 181,
       .quote =
           R"($$\text{SeeDNorm}(\mathbf{x}) = [\sigma(\mathbf{x} \cdot \boldsymbol{\beta}^T) \cdot \boldsymbol{\alpha} + \gamma] \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})},)",
       .inputs = std::string("D = 8 and 64: x 4xD N(0, 1) tensor 40, alpha 1 + N(0, 0.5^2) "
                             "tensor 41, beta N(0, 0.4^2 8/D) tensor 42, gamma 1 + N(0, 0.3^2) "
                             "tensor 43; tanh, eps = 1e-6") +
                 gauss_real50,
       .formula = "norm::seednorm::forward (heads = 1) against (tanh(x . beta) alpha_k + "
                  "gamma_k) x_k / sqrt(mean x^2 + eps), row by row",
       .threshold = kForwardThreshold,
       .against = "seednorm_eq, the audit's transcription of eq. 4 in Real50 (independent of "
                  "norm::seednorm)",
       .check = check_eq4});
  r.add(
      {.id = "seednorm.alg.1",
       .location = "Appendix D, Algorithm 1 (lines 1581-1597)",
       .statement = "Algorithm 1 computes eq. 4: every line's shapes broadcast to x's shape, "
                    "read on x in R^{N x D} (eq. 4) and on a [B, N, D] batch",
       .kind = Kind::exact,
       .relied_on = false,
       .basis = Basis::paper,
       .quote_line = 185,
       .quote = "Algorithm 1 presents the PyTorch-style pseudocode for the SeeDNorm "
                "implementation.",
       .inputs = "shapes only: x [N, D] = [5, 8] (eq. 4's shape), and [B, N, D] = [2, 5, 8] "
                 "(the other reading)",
       .formula = "PyTorch broadcasting of the listing's lines: x @ beta -> [N]; "
                  "unsqueeze(1) -> [N, 1]; * alpha [D] -> [N, D]; + gamma; * x; on [B, N, D]: "
                  "x @ beta -> [B, N]; unsqueeze(1) -> [B, 1, N]; * alpha [D]; and the same "
                  "with unsqueeze(-1)",
       .threshold = "per reading (x [N, D]; x a [B, N, D] batch): holds if the lines broadcast "
                    "to x's shape; fails on a broadcast error or another shape (a notation slip "
                    "when unsqueeze(-1) in place of unsqueeze(1) gives x's shape); "
                    "reading-dependent when the two differ",
       .against = "PyTorch broadcasting rules applied to the listing's shapes (coded in the check)",
       .check = check_alg1});
  r.add({.id = "seednorm.alg.1-value",
         .location = "Appendix D, Algorithm 1 (lines 1581-1597)",
         .statement = "Algorithm 1's operations, in its order, give eq. 4's values",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::conformance,
         .quote_line = 1581,
         .quote = "**Algorithm 1** Pseudocode of SeeDNorm in a PyTorch-like style.",
         .inputs = std::string("x 5x8 N(0, 1) tensor 70, alpha 1 + N(0, 0.5^2) tensor 71, beta "
                               "N(0, 0.4^2) tensor 72, gamma 1 + N(0, 0.3^2) tensor 73, eps = "
                               "1e-6") +
                   gauss_real50,
         .formula = "per row: rescale = tanh(x . beta); xh = x / RMS(x); (rescale alpha + gamma) "
                    "(.) xh, against the transcription of eq. 4",
         .threshold = kForwardThreshold,
         .against = "seednorm_eq, the audit's transcription of eq. 4 in Real50",
         .check = check_alg1_value});
  r.add(
      {.id = "seednorm.eq.7",
       .location = "eq. 7",
       .statement =
           "multi-head SeeDNorm: one sigma(x_h . beta_h^T) per head times that head's alpha",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::conformance,
       .quote_line = 275,
       .quote =
           R"(\text{MHSeeDNorm} = \left[\sigma \left(\left[\mathbf{x}_{h_1} \cdot \boldsymbol{\beta}_{h_1}^T, \dots, \mathbf{x}_{h_n} \cdot \boldsymbol{\beta}_{h_n}^T \right] \right) \cdot \boldsymbol{\alpha} + \boldsymbol{\gamma} \right] \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})} \quad (7))",
       .inputs = std::string("D = 16, H = 2, 4, 8: x 3x16 N(0, 1) tensor 50, alpha 1 + N(0, "
                             "0.5^2) tensor 51, beta N(0, 0.4^2) tensor 52, gamma 1 + N(0, "
                             "0.3^2) tensor 53, eps = 1e-6") +
                 gauss_real50,
       .formula = "norm::seednorm::forward (heads = H) against (tanh(x_h . beta_h) alpha_k + "
                  "gamma_k) x_k / RMS(x), h the head of k",
       .threshold = kForwardThreshold,
       .against = "seednorm_eq with H heads, the audit's transcription of eq. 7 in Real50",
       .check = check_eq7});
  r.add({.id = "seednorm.alg.2",
         .location = "Appendix D, Algorithm 2 (lines 1601-1624)",
         .statement = "Algorithm 2 computes eq. 7",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 1601,
         .quote = "**Algorithm 2** Pseudocode of Multihead SeeDNorm in a PyTorch-like style.",
         .inputs = "shapes: B = 2, N = 3, D = 8, H = 2 (and H = 1); values: x 6x8 N(0, 1) "
                   "tensor 80, alpha 1 + N(0, 0.5^2) tensor 81, beta N(0, 0.4^2) tensor 82, "
                   "gamma 1 + N(0, 0.3^2) tensor 83, eps = 1e-6 (Real50, seed ctx.seed)",
         .formula = "PyTorch broadcasting of the listing's lines: activate [B,H,N,1] * alpha "
                    "[B,H,1,D/H] -> [B,H,N,D/H]; + gamma [D]; * x [B,N,D]; the corrected "
                    "listing (transpose(1,2).reshape(B,N,D) before + gamma) against eq. 7",
         .threshold = "holds if the listing runs and gives [B,N,D]; fails on a broadcast error "
                      "(a notation slip when the corrected listing equals eq. 7 to 1e-40, a "
                      "mathematical error otherwise)",
         .against = "PyTorch broadcasting rules on the listing's shapes, and the corrected "
                    "listing's index arithmetic against the eq. 7 transcription in Real50",
         .check = check_alg2});
  r.add({.id = "seednorm.alg.3",
         .location = "Appendix E, Algorithm 3 (lines 1672-1726)",
         .statement = "the Triton kernel computes SeeDNorm's forward (eq. 4)",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 1672,
         .quote = "Algorithm 3 Triton Implementation of the forward process of SeeDNorm.",
         .inputs = "D = 8, beta = 1/D, gamma 1 + N(0, 0.3^2) tensor 91, alpha 1 + N(0, 0.5^2) "
                   "tensor 92, eps = 1e-6; 16 typical rows x ~ N(0, 1) tensor 90 (seed "
                   "ctx.seed); the row x = -400 * 1 (z = -400), and a 60-step bisection on z",
         .formula = "the kernel in float32: rms = sqrt(sum x^2 / N + eps), t = (1 - e^{-2z}) / "
                    "(1 + e^{-2z}), y = x / rms (w + alpha t); against eq. 4 in Real50",
         .threshold = "holds if typical rows agree to <= 1e-5 (relative, max) and the output at "
                      "z = -400 is finite; fails otherwise",
         .against =
             "eq. 4 transcription in Real50 against a float32 (and float64) re-implementation "
             "of the kernel, with a 60-step bisection for the overflow threshold",
         .check = check_alg3});
  r.add(
      {.id = "seednorm.eq.8",
       .location = "eq. 8",
       .statement =
           "AdaSeeDNorm = [(sigma(x.beta^T) alpha + 1) (.) x/RMS(x)] (1 + gamma(c)) + eta(c)",
       .kind = Kind::exact,
       .relied_on = true,
       .basis = Basis::conformance,
       .quote_line = 445,
       .quote =
           R"($$\text{AdaSeeDNorm}(\mathbf{x}, c) = \left[(\sigma(\mathbf{x} \cdot \beta^T) \cdot \alpha + 1) \odot \frac{\mathbf{x}}{\text{RMS}(\mathbf{x})} \right] (1 + \gamma(c)) + \eta(c),)",
       .inputs = std::string("x 3x16 N(0, 1) tensor 60, alpha 1 + N(0, 0.5^2) tensor 61, beta "
                             "N(0, 0.4^2) tensor 62, gamma(c), eta(c) 3x16 N(0, 0.3^2) tensors "
                             "63, 64 (one row each), eps = 1e-6") +
                 gauss_real50,
       .formula = "norm::adaseednorm::forward against [(tanh(x . beta) alpha_k + 1) x_k / "
                  "RMS(x)] (1 + gamma(c)_k) + eta(c)_k",
       .threshold = kForwardThreshold,
       .against = "the audit's transcription of eq. 8 in Real50 (seednorm_eq with gamma = 1, then "
                  "(1 + gamma(c)) and + eta(c))",
       .check = check_eq8});
}

}  // namespace scaleref::audit
