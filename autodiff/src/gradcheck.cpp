#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <scaleref/error.hpp>
#include <scaleref/fit.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <sstream>

namespace scaleref::verify {

namespace {

using Rng = std::mt19937_64;

// Finite-difference step, relative to an entry's scale (header comment).
template <class S>
S eta() {
  if constexpr (std::is_same_v<S, double>)
    return std::cbrt(std::numeric_limits<double>::epsilon());
  else
    return S("1e-15");
}

template <class S>
double eps() {
  return static_cast<double>(std::numeric_limits<S>::epsilon());
}

// The unit each entry of input p is stepped in: max(|x_j|, rms(x_p)), 1 if x_p is all zero.
Mat<double> step_scale(const Mat<double>& x) {
  const double rms = std::sqrt(x.squaredNorm() / static_cast<double>(x.size()));
  Mat<double> s = x.cwiseAbs().cwiseMax(rms);
  if (rms == 0) s.setOnes();
  return s;
}

Mat<double> gaussian(long rows, long cols, Rng& rng) {
  std::normal_distribution<double> normal;
  Mat<double> m(rows, cols);
  for (long i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

// Which Jacobian entries are compared. Drawn once in double, used at both precisions.
struct Layout {
  bool full = false;
  long out_rows = 0, out_cols = 0;
  Mat<double> probes;                      // [m, outputs]: identity, or random rows v_r
  std::vector<std::vector<long>> entries;  // per input: flat indices of the entries compared
};

Layout make_layout(const Inputs<double>& x, long out_rows, long out_cols, const Options& o,
                   Rng& rng) {
  Layout L;
  L.out_rows = out_rows;
  L.out_cols = out_cols;
  const long outputs = out_rows * out_cols;
  long total = 0;
  for (const auto& m : x) total += m.size();
  L.full = outputs * total <= o.full_jacobian_limit;
  L.probes =
      L.full ? Mat<double>::Identity(outputs, outputs) : gaussian(o.projections, outputs, rng);
  for (const auto& m : x) {
    std::vector<long> all(m.size());
    std::iota(all.begin(), all.end(), 0L);
    if (!L.full && m.size() > o.sampled_entries) {
      std::shuffle(all.begin(), all.end(), rng);
      all.resize(o.sampled_entries);
      std::sort(all.begin(), all.end());
    }
    L.entries.push_back(std::move(all));
  }
  return L;
}

// dy/dt of y(x + t dir) at t = 0, for every output entry, with an error estimate.
template <class S>
struct Directional {
  Mat<S> d;
  Mat<double> err;
};

template <class S>
Directional<S> fd_along(const Differentiable<S>& f, const Inputs<S>& x, const Inputs<S>& dir,
                        const S& h) {
  auto at = [&](const S& t) {
    Inputs<S> xt = x;
    for (std::size_t p = 0; p < x.size(); ++p) xt[p] += t * dir[p];
    return f.forward(xt);
  };
  const Mat<S> yp = at(h), ym = at(-h), yp2 = at(S(2) * h), ym2 = at(S(-2) * h);
  const Mat<S> d1 = (yp - ym) / (S(2) * h);
  const Mat<S> d2 = (yp2 - ym2) / (S(4) * h);
  Directional<S> r;
  r.d = (S(4) * d1 - d2) / S(3);  // Richardson: O(h^4)
  r.err.resize(r.d.rows(), r.d.cols());
  const double e = eps<S>(), hd = to_double(h), rel_step = e / to_double(eta<S>());
  for (long i = 0; i < r.d.size(); ++i) {
    using std::abs;
    const double trunc = to_double(S(abs(d1.data()[i] - d2.data()[i]))) / 3;  // error of D(h)
    const double round = e * to_double(S(abs(yp.data()[i]) + abs(ym.data()[i]))) / hd;
    const double perturb = rel_step * to_double(S(abs(r.d.data()[i])));  // x + h t rounds
    r.err.data()[i] = trunc + round + perturb;
  }
  return r;
}

// Per input p: analytic and finite-difference Jacobian blocks [probes, entries compared].
template <class S>
struct Blocks {
  std::vector<Mat<S>> analytic, fd;
  std::vector<Mat<double>> fd_err;
  std::vector<std::vector<double>> steps;
};

template <class S>
Mat<S> reshape_probe(const Layout& L, long r) {
  Mat<S> dy(L.out_rows, L.out_cols);
  for (long o = 0; o < dy.size(); ++o) dy.data()[o] = S(L.probes(r, o));
  return dy;
}

template <class S>
Blocks<S> jacobian_blocks(const Differentiable<S>& f, const Inputs<double>& x64, const Layout& L) {
  Inputs<S> x;
  for (const auto& m : x64) x.push_back(cast<S>(m));
  const long m = L.probes.rows();
  Blocks<S> b;
  for (std::size_t p = 0; p < x.size(); ++p) {
    const long k = static_cast<long>(L.entries[p].size());
    b.analytic.emplace_back(m, k);
    b.fd.emplace_back(m, k);
    b.fd_err.emplace_back(m, k);
    b.steps.emplace_back(k);
  }
  for (long r = 0; r < m; ++r) {  // analytic: one backward per probe
    const Inputs<S> g = f.backward(x, reshape_probe<S>(L, r));
    require(g.size() == x.size(), "verify::check", "backward returned ", g.size(),
            " gradients for ", x.size(), " inputs");
    for (std::size_t p = 0; p < x.size(); ++p) {
      require(g[p].rows() == x[p].rows() && g[p].cols() == x[p].cols(), "verify::check",
              "backward's gradient ", p, " is ", shape_str(g[p]), ", its input ", shape_str(x[p]));
      for (std::size_t k = 0; k < L.entries[p].size(); ++k)
        b.analytic[p](r, static_cast<long>(k)) = g[p].data()[L.entries[p][k]];
    }
  }
  Inputs<S> dir;
  for (const auto& xi : x) dir.push_back(Mat<S>::Zero(xi.rows(), xi.cols()));
  for (std::size_t p = 0; p < x.size(); ++p) {  // finite differences: one entry at a time
    const Mat<double> scale = step_scale(x64[p]);
    for (std::size_t k = 0; k < L.entries[p].size(); ++k) {
      const long j = L.entries[p][k];
      const double s = scale.data()[j];
      dir[p].data()[j] = S(s);
      const Directional<S> col = fd_along(f, x, dir, eta<S>());
      dir[p].data()[j] = S(0);
      b.steps[p][k] = s * to_double(eta<S>());
      for (long r = 0; r < m; ++r) {
        S acc = 0;
        double err = 0;
        for (long o = 0; o < col.d.size(); ++o) {
          acc += S(L.probes(r, o)) * col.d.data()[o];
          err += std::abs(L.probes(r, o)) * col.err.data()[o];
        }
        b.fd[p](r, static_cast<long>(k)) = acc / S(s);
        b.fd_err[p](r, static_cast<long>(k)) = err / s;
      }
    }
  }
  return b;
}

std::string output_label(const Layout& L, long r) {
  std::ostringstream os;
  if (L.full)
    os << "y[" << r / L.out_cols << "," << r % L.out_cols << "]";
  else
    os << "v" << r << "^T y";
  return os.str();
}

// The natural size of d y / d x_p: max|y| / rms(x_p) (max|y| when x_p is all zero).
double natural_scale(const Mat<double>& y, const Mat<double>& x) {
  const double rms = std::sqrt(x.squaredNorm() / static_cast<double>(x.size()));
  const double top = y.cwiseAbs().maxCoeff();
  return rms > 0 ? top / rms : top;
}

template <class S>
void add_fd_checks(Report& rep, const char* check, const Problem& pr, const Blocks<S>& b,
                   const Blocks<Real50>* b50, const Inputs<double>& x, const Mat<double>& y,
                   const Layout& L, double rtol, const char* why) {
  for (std::size_t p = 0; p < x.size(); ++p) {
    const Mat<S>& A = b.analytic[p];
    const Mat<S>& F = b.fd[p];
    double block = natural_scale(y, x[p]);
    for (long i = 0; i < F.size(); ++i) block = std::max(block, std::abs(to_double(F.data()[i])));
    const Tolerance tol{rtol * block, rtol, why};
    CheckResult c;
    c.check = check;
    c.input = pr.input_names[p];
    // The finite difference's own error: estimated, plus (for the double FD) measured
    // against the 50-digit one, since f's evaluation in double can be worse than its
    // last-place rounding (gelu's tanh form cancels for large negative x).
    Mat<double> allowance = 4.0 * b.fd_err[p];
    if (b50 && !std::is_same_v<S, Real50>)
      for (long i = 0; i < F.size(); ++i)
        allowance.data()[i] += std::abs(to_double(F.data()[i]) - to_double(b50->fd[p].data()[i]));
    c.cmp = compare<S>(pr.name + " " + check + " d/d" + c.input, A, F, tol, allowance);
    c.ok = c.cmp.ok();
    c.scale = block;
    std::ostringstream regime;
    if (L.full)
      regime << "full Jacobian " << A.rows() << "x" << x[p].size();
    else
      regime << A.rows() << " projections x " << A.cols() << " of " << x[p].size() << " entries";
    c.regime = regime.str();
    if (c.cmp.worst_row >= 0) {
      const long r = c.cmp.worst_row, k = c.cmp.worst_col;
      const long j = L.entries[p][static_cast<std::size_t>(k)];
      Entry e;
      e.input = c.input;
      e.input_row = j / x[p].cols();
      e.input_col = j % x[p].cols();
      e.output = output_label(L, r);
      e.analytic = c.cmp.worst_actual;
      e.fd = c.cmp.worst_expected;
      if (b50) {
        e.analytic_50 = full_precision(b50->analytic[p](r, k));
        e.fd_50 = full_precision(b50->fd[p](r, k));
      }
      const double a = to_double(A(r, k)), f = to_double(F(r, k));
      e.abs_err = std::abs(a - f);
      e.rel_err = std::max(std::abs(a), std::abs(f)) > 0
                      ? e.abs_err / std::max(std::abs(a), std::abs(f))
                      : 0;
      e.tolerance = tol.atol + allowance(r, k) + rtol * 0.5 * (std::abs(a) + std::abs(f));
      e.step = b.steps[p][static_cast<std::size_t>(k)];
      c.worst = e;
    }
    rep.checks.push_back(std::move(c));
  }
}

// Random (u, v) pairs for the transposition identity, drawn once in double and
// used at both precisions, so the double finite difference's error can be measured.
struct Pairs {
  std::vector<Inputs<double>> u;  // per pair: one direction per input, scaled like the FD steps
  std::vector<Mat<double>> v;     // per pair: an output-shaped weight
};

Pairs draw_pairs(const Inputs<double>& x, const Layout& L, int count, Rng& rng) {
  Pairs pairs;
  for (int q = 0; q < count; ++q) {
    Inputs<double> u;
    for (const auto& m : x)
      u.push_back(gaussian(m.rows(), m.cols(), rng).cwiseProduct(step_scale(m)));
    pairs.u.push_back(std::move(u));
    pairs.v.push_back(gaussian(L.out_rows, L.out_cols, rng));
  }
  return pairs;
}

// Per pair: <u, J^T v> from backward, <J u, v> from a finite difference along u,
// and that finite difference's error estimate plus rtol * sum |u g| (the scale
// the inner product cancels from).
template <class S>
struct Transposed {
  Mat<S> lhs, rhs;
  Mat<double> allowance;
};

template <class S>
Transposed<S> transposed(const Differentiable<S>& f, const Inputs<double>& x64, const Pairs& pairs,
                         double rtol) {
  Inputs<S> x;
  for (const auto& m : x64) x.push_back(cast<S>(m));
  const long n = static_cast<long>(pairs.v.size());
  Transposed<S> r{Mat<S>(1, n), Mat<S>(1, n), Mat<double>(1, n)};
  for (long q = 0; q < n; ++q) {
    Inputs<S> u;
    for (const auto& m : pairs.u[static_cast<std::size_t>(q)]) u.push_back(cast<S>(m));
    const Mat<double>& v64 = pairs.v[static_cast<std::size_t>(q)];
    const Mat<S> v = cast<S>(v64);
    const Inputs<S> g = f.backward(x, v);
    S inner = 0;
    double magnitude = 0;
    for (std::size_t p = 0; p < x.size(); ++p) {
      inner += u[p].cwiseProduct(g[p]).sum();
      magnitude += to_double(S(u[p].cwiseProduct(g[p]).cwiseAbs().sum()));
    }
    const Directional<S> ju = fd_along(f, x, u, eta<S>());
    r.lhs(0, q) = inner;
    r.rhs(0, q) = v.cwiseProduct(ju.d).sum();
    r.allowance(0, q) = 4.0 * v64.cwiseAbs().cwiseProduct(ju.err).sum() + rtol * magnitude;
  }
  return r;
}

template <class S>
CheckResult transpose_result(const char* check, const Problem& pr, const Transposed<S>& t,
                             const Mat<double>& allowance, double rtol) {
  CheckResult c;
  for (long q = 0; q < t.rhs.size(); ++q)
    c.scale = std::max(c.scale, std::abs(to_double(t.rhs(0, q))));
  c.check = check;
  c.input = "all";
  c.cmp = compare<S>(
      pr.name + " " + check + " <u,J^T v> vs <Ju,v>", t.lhs, t.rhs,
      Tolerance{0, rtol, "rtol of the fd check; allowance: FD error, rtol sum |u g|"}, allowance);
  c.ok = c.cmp.ok();
  c.regime = std::to_string(t.lhs.cols()) + " random (u, v) pairs";
  return c;
}

// A decimal literal in the precision S.
template <class S>
S literal(const char* text) {
  if constexpr (std::is_same_v<S, double>)
    return std::strtod(text, nullptr);
  else
    return S(text);
}

// Taylor remainder along a random direction; reports the fitted slope. In 50
// digits (taylor-50) the steps run t = 1e-6 / 2^k; in double (taylor-double,
// for a problem given in double only) t = 1e-2 / 2^k, so the remainder t^2
// stays well above double's rounding floor.
template <class S>
CheckResult taylor_check(const Problem& pr, const Inputs<double>& x64, const Layout& L, Rng& rng) {
  constexpr bool wide = !std::is_same_v<S, double>;
  const Differentiable<S>& fn = [&]() -> const Differentiable<S>& {
    if constexpr (wide)
      return pr.f50;
    else
      return pr.f64;
  }();
  Inputs<S> x, d;
  for (const auto& m : x64) {
    x.push_back(cast<S>(m));
    d.push_back(
        cast<S>(Mat<double>(gaussian(m.rows(), m.cols(), rng).cwiseProduct(step_scale(m)))));
  }
  const Mat<S> v = cast<S>(gaussian(L.out_rows, L.out_cols, rng));
  auto f = [&](const S& t) {
    Inputs<S> xt = x;
    for (std::size_t p = 0; p < x.size(); ++p) xt[p] += t * d[p];
    return S(v.cwiseProduct(fn.forward(xt)).sum());
  };
  const Inputs<S> g = fn.backward(x, v);
  S gd = 0;
  for (std::size_t p = 0; p < x.size(); ++p) gd += d[p].cwiseProduct(g[p]).sum();
  const S f0 = f(S(0));
  const S t0 = literal<S>(wide ? "1e-6" : "1e-2");
  // Round-off in f(t): of the outputs, and of forming x + t d before f sees it.
  S scale = v.cwiseAbs().cwiseProduct(fn.forward(x).cwiseAbs()).sum();
  for (std::size_t p = 0; p < x.size(); ++p)
    scale += g[p].cwiseAbs().cwiseProduct(x[p].cwiseAbs() + t0 * d[p].cwiseAbs()).sum();
  // Measured too: at a tiny t the true remainder is far below rounding (t^2 ~
  // 1e-60 in 50 digits, 1e-18 in double), so what is left is rounding,
  // including any cancellation inside f that its output does not show.
  double noise = 0;
  const std::array<const char*, 3> tiny =
      wide ? std::array<const char*, 3>{"1e-30", "2e-30", "3e-30"}
           : std::array<const char*, 3>{"1e-9", "2e-9", "3e-9"};
  for (const char* text : tiny) {
    using std::abs;
    const S tt = literal<S>(text);
    noise = std::max(noise, to_double(S(abs(f(tt) - f0 - tt * gd))));
  }
  const double floor = std::max(1e3 * eps<S>() * to_double(scale), 10 * noise);
  CheckResult c;
  c.check = wide ? "taylor-50" : "taylor-double";
  c.input = "all";
  c.cmp.what = pr.name + " " + c.check;
  std::vector<double> ts, rs;  // the steps and remainders above the floor
  std::ostringstream points;
  points << "round-off floor " << floor << "; (t, remainder):";
  S t = t0;
  for (int k = 0; k < 8; ++k, t /= 2) {
    using std::abs;
    const double r = to_double(S(abs(f(t) - f0 - t * gd)));
    points << " (" << to_double(t) << ", " << r << ")";
    if (r > floor) {
      ts.push_back(to_double(t));
      rs.push_back(r);
    }
  }
  c.detail = points.str();
  c.cmp.count = static_cast<long>(ts.size());
  char buf[128];
  if (ts.size() < 3) {  // remainder at round-off: f is linear along d, any gradient slope is moot
    c.ok = true;
    c.slope = std::numeric_limits<double>::quiet_NaN();
    std::snprintf(buf, sizeof buf, "remainder below round-off at t = %.3g..%.3g (f linear along d)",
                  to_double(t0), to_double(t0) / 128);
    c.regime = buf;
    return c;
  }
  c.slope = loglog_fit(ts, rs).slope;
  c.ok =
      c.slope >= 1.9;  // 2 (or more where the quadratic term vanishes along d); a wrong g gives 1
  c.cmp.mismatches = c.ok ? 0 : 1;
  std::snprintf(buf, sizeof buf, "slope %.4f over %zu steps t = %.3g / 2^k (pass: >= 1.9)", c.slope,
                ts.size(), to_double(t0));
  c.regime = buf;
  return c;
}

}  // namespace

bool Report::ok() const {
  return std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.ok; });
}

double Report::worst_rel_err(std::string_view check) const {
  double w = 0;
  for (const auto& c : checks)
    if (c.check == check) w = std::max(w, c.cmp.max_rel_err);
  return w;
}

double Report::worst_normwise_err(std::string_view check) const {
  double w = 0;
  for (const auto& c : checks)
    if (c.check == check && c.scale > 0) w = std::max(w, c.cmp.max_abs_err / c.scale);
  return w;
}

const CheckResult* Report::find(std::string_view check, std::string_view input) const {
  for (const auto& c : checks)
    if (c.check == check && (input.empty() || c.input == input)) return &c;
  return nullptr;
}

std::string Report::str() const {
  std::ostringstream os;
  os << problem << ": " << (ok() ? "PASS" : "FAIL") << '\n';
  for (const auto& c : checks) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "  %-16s %-8s %s  max rel %-9.3g tol used %-9.3g %s\n",
                  c.check.c_str(), c.input.c_str(), c.ok ? "pass" : "FAIL", c.cmp.max_rel_err,
                  c.cmp.worst_share, c.regime.c_str());
    os << buf;
    if (!c.ok && c.worst) {
      const Entry& e = *c.worst;
      os << "    worst: d " << e.output << " / d " << e.input << "[" << e.input_row << ","
         << e.input_col << "]: analytic " << e.analytic << ", finite difference " << e.fd;
      if (!e.analytic_50.empty())
        os << "; in 50 digits: analytic " << e.analytic_50 << ", finite difference " << e.fd_50;
      char tail[200];
      std::snprintf(tail, sizeof tail, "; abs err %.3g, rel err %.3g, tolerance %.3g, step %.3g\n",
                    e.abs_err, e.rel_err, e.tolerance, e.step);
      os << tail;
    } else if (!c.ok) {
      os << "    " << (c.detail.empty() ? c.cmp.str() : c.detail) << '\n';
    }
  }
  return os.str();
}

Report check(const Problem& pr, const Inputs<double>& x, const Options& o) {
  require(!x.empty() && x.size() == pr.input_names.size(), "verify::check", "problem '", pr.name,
          "' names ", pr.input_names.size(), " inputs, got ", x.size());
  for (std::size_t p = 0; p < x.size(); ++p)
    require(x[p].size() > 0 && x[p].allFinite(), "verify::check", "input '", pr.input_names[p],
            "' of '", pr.name, "' must be non-empty and finite, got ", shape_str(x[p]));
  const Mat<double> y = pr.f64.forward(x);
  require(y.size() > 0 && y.allFinite(), "verify::check", "'", pr.name,
          "' must give a non-empty, finite output at the inputs, got ", shape_str(y),
          y.size() > 0 ? " with a non-finite entry" : "");
  // A problem given in double only (a user's function) runs the double checks:
  // fd-double without the 50-digit yardstick, transpose-double, taylor-double.
  const bool has50 = static_cast<bool>(pr.f50.forward);
  Rng rng(o.seed);
  const Layout L = make_layout(x, y.rows(), y.cols(), o, rng);
  Report rep;
  rep.problem = pr.name;
  std::optional<Blocks<Real50>> b50;  // also the yardstick of the double FD's error
  if (has50 && (o.fd_50 || o.fd_double)) b50 = jacobian_blocks(pr.f50, x, L);
  if (o.fd_double) {
    const Blocks<double> b = jacobian_blocks(pr.f64, x, L);
    add_fd_checks(rep, "fd-double", pr, b, b50 ? &*b50 : nullptr, x, y, L, o.rtol_double,
                  "double FD keeps ~4e-11 of f's scale times its conditioning (<= 1e4)");
  }
  if (has50 && o.fd_50)
    add_fd_checks(rep, "fd-50", pr, *b50, &*b50, x, y, L, o.rtol_50,
                  "50-digit FD error ~1e-35 times conditioning; 15 digits of room");
  if (o.transpose) {
    const Pairs pairs = draw_pairs(x, L, o.projections, rng);
    const Transposed<double> t64 = transposed(pr.f64, x, pairs, o.rtol_double);
    Mat<double> measured = t64.allowance;  // plus the double FD's error against 50 digits
    if (has50) {
      const Transposed<Real50> t50 = transposed(pr.f50, x, pairs, o.rtol_50);
      for (long q = 0; q < measured.size(); ++q)
        measured(0, q) += std::abs(t64.rhs(0, q) - to_double(t50.rhs(0, q)));
      rep.checks.push_back(transpose_result("transpose-double", pr, t64, measured, o.rtol_double));
      rep.checks.push_back(transpose_result("transpose-50", pr, t50, t50.allowance, o.rtol_50));
    } else {
      rep.checks.push_back(transpose_result("transpose-double", pr, t64, measured, o.rtol_double));
    }
  }
  if (o.taylor)
    rep.checks.push_back(has50 ? taylor_check<Real50>(pr, x, L, rng)
                               : taylor_check<double>(pr, x, L, rng));
  return rep;
}

std::vector<Comparison> agreement(const Problem& a, const Problem& b, const Inputs<double>& x,
                                  const Mat<double>& dy, double rtol,
                                  const std::vector<double>& term_scale) {
  require(x.size() == a.input_names.size() && x.size() == b.input_names.size(), "verify::agreement",
          "problems '", a.name, "' and '", b.name, "' take ", a.input_names.size(), " and ",
          b.input_names.size(), " inputs, got ", x.size());
  require(term_scale.empty() || term_scale.size() == x.size(), "verify::agreement",
          "expected one term scale per input (", x.size(), "), got ", term_scale.size());
  const Mat<double> ya = a.f64.forward(x), yb = b.f64.forward(x);
  require(dy.rows() == ya.rows() && dy.cols() == ya.cols(), "verify::agreement",
          "expected dy shaped like the output ", shape_str(ya), ", got ", shape_str(dy));
  std::vector<Comparison> out;
  out.push_back(compare<double>(a.name + " vs " + b.name + " forward", ya, yb,
                                Tolerance{rtol * yb.cwiseAbs().maxCoeff(), rtol, "normwise"}));
  const Inputs<double> ga = a.f64.backward(x, dy), gb = b.f64.backward(x, dy);
  for (std::size_t p = 0; p < x.size(); ++p) {
    const double scale =
        std::max(gb[p].cwiseAbs().maxCoeff(), term_scale.empty() ? 0.0 : term_scale[p]);
    out.push_back(compare<double>(a.name + " vs " + b.name + " d/d" + a.input_names[p], ga[p],
                                  gb[p],
                                  Tolerance{rtol * scale, rtol,
                                            "|a - r| <= rtol max(max|r|, term scale) + rtol "
                                            "(|a|+|r|)/2"}));
  }
  return out;
}

}  // namespace scaleref::verify
