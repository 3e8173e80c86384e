// Sec. 2.2, eq. 2-3: the SDD layer y = alpha (.) norm(V x) and its RMS norm.
// Both claims check scaleref's layer against its own transcription of the
// definition (basis conformance).
#include <algorithm>
#include <scaleref/sdd/layer.hpp>

#include "claims/sdd/sdd.hpp"

namespace scaleref::audit {
namespace {

using namespace sdd_paper;

Verdict check_eq2(const Context& ctx) {
  // The reference forward (eps = 0) against eq. 2-3 written out, both in 50
  // digits, N = 3 rows, n = 8. Threshold 1e-40: Real50 keeps ~50 digits and an
  // 8-term sum loses at most a digit; a wrong formula is off by O(1).
  const long n = 8, N = 3;
  const M50 x = cast<Real50>(gaussian(ctx.seed, N, n, 1.0, kT + 1));
  const M50 V = cast<Real50>(gaussian(ctx.seed, n, n, 0.3, kT + 2));
  const M50 a = cast<Real50>(gaussian(ctx.seed, 1, n, 1.0, kT + 3));
  const M50 y = sdd::forward<Real50>({V, a}, sdd::Config::paper(), x);
  M50 want(N, n);
  for (long i = 0; i < N; ++i) {
    const M50 z = x.row(i) * V.transpose();
    want.row(i) = a.cwiseProduct(norm3<Real50>(z));
  }
  const double err = rel<Real50>(y, want);
  // The double forward against the 50-digit one: rounding only.
  const M yd = sdd::forward<double>({cast<double>(V), cast<double>(a)}, sdd::Config::paper(),
                                    cast<double>(x));
  const double err_d = rel<double>(yd, cast<double>(want));
  std::vector<Measure> m{{"rel_err_50", err}, {"rel_err_double", err_d}};
  if (err <= 1e-40)
    return holds("rel err " + sci(err),
                 "reference sdd::forward (eps 0) = alpha*z/RMS(z), n=8, N=3, 50 digits; double " +
                     sci(err_d),
                 m);
  return fails(Fault::math_error, "rel err " + sci(err), "reference forward differs from eq. 2-3",
               m);
}

Verdict check_eq3(const Context& ctx) {
  // norm removes the scale and keeps the distribution: RMS(norm(z)) = 1,
  // norm(k z) = norm(z) for k > 0, norm(k z) = -norm(z) for k < 0, and
  // norm(z)_i / z_i is one constant. 50 digits; threshold 1e-40 (as eq. 2).
  const long n = 16;
  const M50 z = cast<Real50>(gaussian(ctx.seed, 1, n, 2.5, kT + 4));
  const M50 nz = norm3<Real50>(z);
  const double rms_err = to_double<Real50>(abs(rms<Real50>(nz) - Real50(1)));
  double scale_err = 0, sign_err = 0;
  for (const char* k : {"1e-6", "0.37", "7.5", "1e6"}) {
    const Real50 kk = from_decimal<Real50>(k);
    scale_err = std::max(scale_err, rel<Real50>(norm3<Real50>(M50(kk * z)), nz));
    sign_err = std::max(sign_err, rel<Real50>(M50(-norm3<Real50>(M50(-kk * z))), nz));
  }
  const M50 ratio = nz.cwiseQuotient(z);
  const double shape_err =
      to_double<Real50>((ratio.maxCoeff() - ratio.minCoeff()) / ratio.maxCoeff());
  const double worst = std::max({rms_err, scale_err, sign_err, shape_err});
  std::vector<Measure> m{{"rms_of_norm_err", rms_err},
                         {"scale_invariance_err", scale_err},
                         {"sign_err", sign_err},
                         {"shape_err", shape_err}};
  if (worst <= 1e-40)
    return holds("max err " + sci(worst),
                 "RMS(norm z)=1, norm(kz)=sign(k)norm(z) for k in {1e-6..1e6}, n=16, 50 digits", m);
  return fails(Fault::math_error, "max err " + sci(worst), "a property of eq. 3 fails", m);
}

}  // namespace

void add_sdd_layer_claims(Registrar& r) {
  r.add({.id = "sdd.eq.2",
         .location = "eq. 2-3, Sec. 2.2",
         .statement = "The SDD layer is y = alpha (.) norm(V x), norm(z) = z / ||z||_RMS",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 49,
         .quote = "$$y = \\alpha \\odot \\text{norm}(Vx), \\tag{2}$$",
         .inputs = "x 3x8 N(0,1) (tensor kT+1), V 8x8 N(0,0.09) (kT+2), alpha 1x8 N(0,1) (kT+3), "
                   "in 50 digits and in double",
         .formula = "sdd::forward(eps 0) against y_i = alpha (.) z_i / sqrt(mean_j z_ij^2), "
                    "z_i = x_i V^T, row by row",
         .threshold =
             "holds if the 50-digit relative error <= 1e-40 (a wrong formula is O(1) off); "
             "the double forward's error is reported",
         .against = "eq. 2-3 written out row by row in the audit (norm3), 50-digit arithmetic; "
                    "double forward beside",
         .check = check_eq2});
  r.add({.id = "sdd.eq.3",
         .location = "eq. 3, Sec. 2.2",
         .statement = "RMS normalization removes the scale of z and preserves its distribution "
                      "(||norm z||_RMS = 1, norm(kz) = norm(z) for k > 0)",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::conformance,
         .quote_line = 51,
         .quote = "norm (\\cdot) is a normalization function applied to the vector z = Vx that "
                  "removes the scale information while preserving its distribution.",
         .inputs = "z 1x16 N(0, 2.5^2) (tensor kT+4), k in {1e-6, 0.37, 7.5, 1e6}, 50 digits",
         .formula =
             "norm(z) = z / sqrt(mean z^2): |RMS(norm z) - 1|, ||norm(kz) - norm(z)||/||norm z||, "
             "||-norm(-kz) - norm(z)||/||norm z||, spread of norm(z)_i / z_i",
         .threshold = "holds if the largest of the four errors <= 1e-40",
         .against = "closed form typed from the equation itself (norm3), 50 digits",
         .trivial = "RMS(norm z) = 1 and scale invariance hold by eq. 3's definition; the check "
                    "evaluates the audit's own transcription of eq. 3",
         .check = check_eq3});
}

}  // namespace scaleref::audit
