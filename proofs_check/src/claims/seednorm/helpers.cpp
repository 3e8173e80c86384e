// The seednorm claims' shared helpers that are not templates (seednorm.hpp).
#include <scaleref/autodiff/norms.hpp>
#include <scaleref/norm/seednorm.hpp>

#include "claims/seednorm/seednorm.hpp"

namespace scaleref::audit::seednorm_claims {

const char* wrt_name(Wrt w) {
  switch (w) {
    case Wrt::x:
      return "x";
    case Wrt::alpha:
      return "alpha";
    case Wrt::beta:
      return "beta";
    case Wrt::gamma:
      return "gamma";
  }
  return "?";
}

const Mat<double>& input_of(const Point& p, Wrt w) {
  switch (w) {
    case Wrt::x:
      return p.x;
    case Wrt::alpha:
      return p.alpha;
    case Wrt::beta:
      return p.beta;
    case Wrt::gamma:
      return p.gamma;
  }
  return p.x;
}

Point standard_point(std::uint64_t seed, long d, long heads, std::uint32_t tid) {
  Point p;
  p.x = gaussian(seed, 1, d, 1.0, tid);
  p.alpha = (gaussian(seed, 1, d, 0.5, tid + 1).array() + 1.0).matrix();
  p.beta = gaussian(seed, 1, d, 0.4, tid + 2);
  p.gamma = (gaussian(seed, 1, d, 0.3, tid + 3).array() + 1.0).matrix();
  p.heads = heads;
  return p;
}

double reference_err(const Point& p) {
  norm::seednorm::Config c;
  c.eps = 0;
  c.heads = static_cast<int>(p.heads);
  const verify::Problem prob = autodiff::analytic_seednorm(c);
  verify::Options o;
  o.fd_double = false;
  o.transpose = false;
  o.taylor = false;
  return verify::check(prob, {p.x, p.alpha, p.beta, p.gamma}, o).worst_normwise_err("fd-50");
}

Verdict formula_verdict(const verify::Problem& prob, const Point& p, Wrt w,
                        const std::string& regime, Fault fault) {
  Verdict v = exact_by_fd50(prob, {input_of(p, w)}, regime, fault);
  const double ref = reference_err(p);
  v.measured.push_back({"reference_err", ref});
  v.detail += "; the reference's backward at this point: err " + sci(ref);
  return v;
}

std::string point_regime(const Point& p) {
  return "D = " + std::to_string(p.x.cols()) + ", H = " + std::to_string(p.heads) +
         ", x ~ N(0,1), beta ~ N(0,0.16), alpha, gamma ~ 1 + noise, eps = 0";
}

Verdict combine_min(const std::vector<Verdict>& vs) {
  auto rank = [](Status s) {
    return s == Status::fails ? 0 : s == Status::holds_approximately ? 1 : 2;
  };
  Verdict out = vs.front();
  for (const Verdict& v : vs)
    if (rank(v.status) < rank(out.status)) out = v;
  return out;
}

Verdict forward_verdict(double err, const std::string& regime) {
  std::vector<Measure> m{{"max_rel_diff_50", err}};
  if (err <= kForwardTol) return holds("rel diff " + sci(err), regime + ", Real50", m);
  return fails(Fault::math_error, "rel diff " + sci(err),
               regime + ": the reference differs from the equation", m);
}

double frob(const Mat<Real50>& m) { return to_double(Real50(sqrt(m.squaredNorm()))); }

Mat<Real50> ref_jacobian_x(const Point& p, const Mat<Real50>& x, double eps) {
  norm::seednorm::Config c;
  c.eps = eps;
  c.heads = static_cast<int>(p.heads);
  const norm::seednorm::Params<Real50> prm{cast<Real50>(p.alpha), cast<Real50>(p.beta),
                                           cast<Real50>(p.gamma)};
  norm::seednorm::Cache<Real50> k;
  norm::seednorm::forward<Real50>(prm, c, x, &k);
  const long d = x.cols();
  Mat<Real50> j(d, d);
  for (long r = 0; r < d; ++r) {
    Mat<Real50> dy = Mat<Real50>::Zero(1, d);
    dy(0, r) = 1;
    j.row(r) = norm::seednorm::backward<Real50>(prm, c, k, dy).dx;
  }
  return j;
}

}  // namespace scaleref::audit::seednorm_claims
