#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <scaleref/error.hpp>

namespace scaleref::cuda::check {

Comparison compare(std::span<const double> got, std::span<const double> want,
                   const Tolerance& tol) {
  require(got.size() == want.size(), "cuda::check::compare", "expected ", want.size(),
          " values, got ", got.size());
  Comparison c;
  c.count = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double a = got[i], r = want[i];
    double used;
    if (std::isfinite(a) && std::isfinite(r)) {
      const double err = std::abs(a - r);
      c.max_abs = std::max(c.max_abs, err);
      if (r != 0) c.max_rel = std::max(c.max_rel, err / std::abs(r));
      const double limit = tol.atol + tol.rtol * std::abs(r);
      used = limit > 0 ? err / limit : (err == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    } else {
      const bool agree = (std::isnan(a) && std::isnan(r)) || a == r;  // NaN/NaN, +inf/+inf
      used = agree ? 0.0 : std::numeric_limits<double>::infinity();
    }
    if (!(used <= 1)) ++c.mismatches;
    if (i == 0 || used > c.used) {  // the first entry with the largest share
      c.used = used;
      c.worst = i;
      c.worst_got = a;
      c.worst_want = r;
    }
  }
  return c;
}

Tolerance tolerance(DType t, Kind kind, std::int64_t terms, double scale, int roundings) {
  require(terms >= 1, "cuda::check::tolerance", "expected terms >= 1, got ", terms);
  const double u = t == DType::f64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  const double storage = t == DType::bf16 ? roundings * std::ldexp(1.0, -8) : 0.0;
  constexpr double chain = 16;
  Tolerance tol;
  tol.rtol = (chain + static_cast<double>(kind == Kind::reduced ? terms : 1)) * u + storage;
  tol.atol = kind == Kind::reduced ? tol.rtol * scale : 0.0;
  char buf[200];
  std::snprintf(buf, sizeof buf, "(16 + %lld) u_%s + %d x 2^-8 (bf16 roundings)%s",
                static_cast<long long>(kind == Kind::reduced ? terms : 1),
                t == DType::f64 ? "fp64" : "fp32", t == DType::bf16 ? roundings : 0,
                kind == Kind::reduced ? ", atol = rtol * max|ref|" : "");
  tol.why = buf;
  return tol;
}

std::string report_line(const std::string& label, const Comparison& c, const Tolerance& tol) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%-4s %-52s max_abs %.2e max_rel %.2e used %6.3f worst [%zu] got %.9g want %.9g "
                "(%zu/%zu off; atol %.1e rtol %.1e)",
                c.pass() ? "PASS" : "FAIL", label.c_str(), c.max_abs, c.max_rel, c.used, c.worst,
                c.worst_got, c.worst_want, c.mismatches, c.count, tol.atol, tol.rtol);
  return buf;
}

}  // namespace scaleref::cuda::check
