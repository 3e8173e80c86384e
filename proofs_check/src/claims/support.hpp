// Tools the claims share: Gaussian samples (the project's Gaussian
// initializer), log-log slope fits (scaleref/fit.hpp), and the 50-digit
// analytic-vs-finite-difference verdict for exact formulas.
#pragma once

#include <cmath>
#include <cstdint>
#include <scaleref/audit/claim.hpp>
#include <scaleref/fit.hpp>
#include <scaleref/init/initializers.hpp>
#include <scaleref/types.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <string>
#include <vector>

namespace scaleref::audit {

// Every claim draws from its own tensor ids under this seed, so a verdict is
// a pure function of the code.
inline constexpr std::uint64_t kAuditSeed = 20261122;

// [rows, cols] with entries std * N(0, 1) (std > 0): the Gaussian initializer
// on the stream (kAuditSeed, tensor), element (i, j) at index i * cols + j.
template <class S = double>
Mat<S> gaussian(long rows, long cols, double std, std::uint32_t tensor) {
  return init::draw<S>({rows, cols, init::Role::embedding}, 0, init::Gaussian{std},
                       {kAuditSeed, tensor});
}

// The verdict on a formula stated as exact, from the 50-digit analytic-vs-FD
// comparison (verify::check with fd-50 only): holds when the worst normwise
// error is below 1e-20 (the verifier's 50-digit tolerance: its own FD error
// is ~1e-35 times the conditioning), fails otherwise with the error measured,
// which is then the formula's true distance from the function.
inline Verdict exact_by_fd50(const verify::Problem& p, const verify::Inputs<double>& x,
                             const std::string& regime) {
  verify::Options o;
  o.fd_double = false;
  o.transpose = false;
  o.taylor = false;
  const verify::Report r = verify::check(p, x, o);
  const double err = r.worst_normwise_err("fd-50");
  std::vector<Measure> m{{"normwise_err_50", err}};
  if (err <= 1e-20) return holds("err " + sci(err), regime + ", 50-digit FD", m);
  return fails("err " + sci(err), regime + ": the formula is off by " + sci(err) + " normwise", m);
}

}  // namespace scaleref::audit
