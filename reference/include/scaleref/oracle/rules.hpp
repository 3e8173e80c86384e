// The tolerance rule of every output of every method: is it element-wise or
// a result of sums, how long are the sums its error goes through (`terms`),
// and how many storage roundings lie on its path (scaleref/oracle/tolerance.hpp
// turns a rule into atol and rtol). cuda_check (cuda/check/) and Python's
// scaleref.testing.assert_close read the same rules.
//
// The counts are bounds, not tight counts: a norm's y and dx go through the
// row's RMS (a sum of D terms, or the head's width w); a parameter gradient
// sums over the N rows terms that each carry a row statistic (N + D: the
// emulator's first run found SeeDNorm's dbeta at 2 x 65536 fp64 3.8x over a
// bound of N alone); a scalar parameter's gradient sums over N D entries; a
// GEMM output over its inner dimension.
#pragma once

#include <cstdint>
#include <scaleref/error.hpp>
#include <scaleref/oracle/tolerance.hpp>
#include <scaleref/spec/scalevec.hpp>
#include <string>
#include <string_view>

namespace scaleref::oracle {

struct Rule {
  Kind kind = Kind::elementwise;
  std::int64_t terms = 1;
  int roundings = 1;
};

namespace detail {
using i64 = std::int64_t;
constexpr Rule reduced(i64 terms, int roundings = 1) { return {Kind::reduced, terms, roundings}; }
constexpr Rule elementwise() { return {Kind::elementwise, 1, 1}; }
[[noreturn]] inline void unknown(const char* method, std::string_view output) {
  fail("oracle::rules: ", method, " has no output \"", std::string(output), "\"");
}
}  // namespace detail

// RMSNorm over rows of width w (D, or the head's width): y, dx, dgamma.
inline Rule rmsnorm_rule(std::string_view out, std::int64_t n, std::int64_t w) {
  if (out == "y" || out == "dx") return detail::reduced(w);
  if (out == "dgamma") return detail::reduced(n + w);
  detail::unknown("rmsnorm", out);
}

// LayerNorm: y, dx, dgamma, dbeta (a plain sum of dy over the rows).
inline Rule layernorm_rule(std::string_view out, std::int64_t n, std::int64_t d) {
  if (out == "y" || out == "dx") return detail::reduced(d);
  if (out == "dgamma") return detail::reduced(n + d);
  if (out == "dbeta") return detail::reduced(n);
  detail::unknown("layernorm", out);
}

// DyT: y and dx element-wise; the scalar alpha's gradient over N D entries.
inline Rule dyt_rule(std::string_view out, std::int64_t n, std::int64_t d) {
  if (out == "y" || out == "dx") return detail::elementwise();
  if (out == "dalpha") return detail::reduced(n * d);
  if (out == "dgamma" || out == "dbeta") return detail::reduced(n);
  detail::unknown("dyt", out);
}

// SeeDNorm and AdaSeeDNorm (whose conditions' gradients read one row's sums,
// dgamma_c, or none, deta_c = dy).
inline Rule seednorm_rule(std::string_view out, std::int64_t n, std::int64_t d) {
  if (out == "y" || out == "dx" || out == "dgamma_c") return detail::reduced(d);
  if (out == "dalpha" || out == "dbeta" || out == "dgamma") return detail::reduced(n + d);
  if (out == "deta_c") return detail::elementwise();
  detail::unknown("seednorm", out);
}

// SDD: z = x V^T is stored in the storage type (2 roundings on y), dz's
// cancellation reaches dx and dV (3).
inline Rule sdd_rule(std::string_view out, std::int64_t n, std::int64_t d_in, std::int64_t d_out) {
  if (out == "y") return detail::reduced(d_in + d_out, 2);
  if (out == "dx") return detail::reduced(2 * d_out, 3);
  if (out == "dV") return detail::reduced(n + d_out, 3);
  if (out == "dalpha") return detail::reduced(n, 2);
  detail::unknown("sdd", out);
}

// The plain linear map: each output is one GEMM.
inline Rule linear_rule(std::string_view out, std::int64_t n, std::int64_t d_in,
                        std::int64_t d_out) {
  if (out == "y") return detail::reduced(d_in);
  if (out == "dx") return detail::reduced(d_out);
  if (out == "dW") return detail::reduced(n);
  detail::unknown("linear", out);
}

// A scale-vector placement. terms adds up the lengths of the sums an output
// goes through: n(x)'s RMS and the GEMM over d_in (MD: RMS(u) over d_in too),
// DNP's n_h over w = d_out / heads, the backward GEMM over d_out, n(x)'s
// backward projection over d_in, a parameter gradient's sum over the n rows.
// roundings counts the values on its path stored in the storage type: s = g
// (.) n(x); z for AP, DP and DNP; MD's u_hat and g(r, u); the gradients dz
// (AP, DP, DNP), ds and MD's dg(r, u) and r dg; and the output itself.
inline Rule scalevec_rule(scalevec::Strategy st, std::string_view out, std::int64_t n,
                          std::int64_t d_in, std::int64_t d_out, std::int64_t heads) {
  using scalevec::Strategy;
  const std::int64_t w = st == Strategy::dnp ? d_out / heads : 0;
  const std::int64_t md = st == Strategy::md ? d_in : 0;
  const std::int64_t z = 2 * d_in + md;                     // z = g (.) n(x) W^T
  const std::int64_t dz = st == Strategy::dnp ? z + w : 0;  // DNP's dz reads z through n_h
  const std::int64_t dg = n + d_out + d_in + dz;            // sum over rows of ds n(x), ds = dz W
  const int gain = st == Strategy::md ? 2 : 0;              // u_hat, g(r, u)
  const int zr = scalevec::uses_a(st) ? 1 : 0;              // z stored (AP, DP, DNP)
  const int dzr = st == Strategy::dnp ? 3 : zr;             // dz; DNP's reads s and z
  if (out == "y") return detail::reduced(z + w, 2 + gain + zr);  // s, [z,] y
  if (out == "dx") return detail::reduced(d_out + 2 * d_in + md + dz, dzr + 2 + gain);
  if (out == "dW") return detail::reduced(n + d_in + md + dz, dzr + 2 + gain);  // dz, s, dW
  if (out == "dg") return detail::reduced(dg, dzr + 2);                         // dz, ds, dg
  if (out == "da") return detail::reduced(n + z + w, 3);      // sum over rows of dy z; s, z, da
  if (out == "dr") return detail::reduced(dg + 2 * d_in, 4);  // ds, dg(r, u), u_hat, dr
  if (out == "du") return detail::reduced(dg + 2 * d_in, 5);  // ..., r dg, u_hat, du
  detail::unknown("scalevec", out);
}

// An initializer's W: one transform of the stream's variates per entry.
inline Rule init_rule(std::string_view out) {
  if (out == "W") return detail::elementwise();
  detail::unknown("init", out);
}

// A rescaled W: every entry reads statistics of all `entries` entries of W.
inline Rule rescale_rule(std::string_view out, std::int64_t entries) {
  if (out == "W") return detail::reduced(entries);
  detail::unknown("rescale", out);
}

}  // namespace scaleref::oracle
