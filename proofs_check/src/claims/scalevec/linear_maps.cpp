// scalevec, the linear maps after the norm: Sec. 2.1's absorption of a scale
// vector into the linear map that follows it (also for HG's branch vectors and
// DP's two-sided vectors), and the hand-derived gradients of every strategy's
// linear map (Sec. 2.1, 3.1-3.3). Both test scaleref's code against its own
// transcription of the project's reading (basis conformance).
#include <algorithm>
#include <cmath>
#include <scaleref/autodiff/scalevec.hpp>
#include <scaleref/scalevec/linear.hpp>
#include <string>
#include <vector>

#include "claims/scalevec/readings.hpp"
#include "claims/scalevec/scalevec.hpp"

namespace scaleref::audit {
namespace {

using namespace scalevec_claims;

// Sec. 2.1: W (g (.) n(x)) = (W diag(g)) n(x), for the standard placement and
// for HG's branch-specific vectors, and DP's diag(a) W diag(g) is one matrix too.
Verdict absorption(const Context& ctx) {
  const long N = 6, d_in = 8, d_out = 5;
  const M x = gaussian(ctx.seed, N, d_in, 1.0, 3001),
          W = gaussian(ctx.seed, d_out, d_in, 0.3, 3002);
  const M g = (gaussian(ctx.seed, 1, d_in, 0.5, 3003).array() + 1.0).matrix();
  const M a = (gaussian(ctx.seed, 1, d_out, 0.5, 3004).array() + 1.0).matrix();
  scalevec::Config std_c{scalevec::Strategy::standard, 1e-6, 1};
  scalevec::Config none_c{scalevec::Strategy::none, 1e-6, 1};
  scalevec::Config dp_c{scalevec::Strategy::dp, 1e-6, 1};
  double err50 = 0, err64 = 0;
  // standard vs none with W' = W diag(g), in 50 digits and in double.
  {
    auto p = scalevec::init(scalevec::Strategy::standard, to50(W));
    p.g = to50(g);
    auto q = scalevec::init(scalevec::Strategy::none, scalevec::absorb(p.g, p.W));
    err50 = std::max(err50, rel_diff(scalevec::forward(p, std_c, to50(x)),
                                     scalevec::forward(q, none_c, to50(x))));
    auto pd = scalevec::init(scalevec::Strategy::standard, W);
    pd.g = g;
    auto qd = scalevec::init(scalevec::Strategy::none, scalevec::absorb(g, W));
    err64 = std::max(err64,
                     rel_diff(scalevec::forward(pd, std_c, x), scalevec::forward(qd, none_c, x)));
  }
  // DP: diag(a) W diag(g) as one matrix.
  {
    auto p = scalevec::init(scalevec::Strategy::dp, to50(W));
    p.g = to50(g);
    p.a = to50(a);
    const M50 Wp = to50(a).transpose().asDiagonal() * scalevec::absorb(p.g, p.W);
    auto q = scalevec::init(scalevec::Strategy::none, Wp);
    err50 = std::max(err50, rel_diff(scalevec::forward(p, dp_c, to50(x)),
                                     scalevec::forward(q, none_c, to50(x))));
  }
  // HG: three branches, each g_b absorbed into its W_b.
  {
    std::vector<scalevec::Branch<Real50>> br;
    for (std::uint32_t b = 0; b < 3; ++b)
      br.push_back({to50(gaussian(ctx.seed, d_out, d_in, 0.3, 3010 + b)),
                    to50(M((gaussian(ctx.seed, 1, d_in, 0.5, 3020 + b).array() + 1.0).matrix()))});
    const auto y = scalevec::forward_hg(br, 1e-6, to50(x));
    for (std::size_t b = 0; b < br.size(); ++b) {
      auto q = scalevec::init(scalevec::Strategy::none, scalevec::absorb(br[b].g, br[b].W));
      err50 = std::max(err50, rel_diff(y[b], scalevec::forward(q, none_c, to50(x))));
    }
  }
  std::vector<Measure> m{{"rel_err_50", err50}, {"rel_err_double", err64}};
  // 50 digits carry ~1e-50 unit roundoff; a sum of d_in = 8 products stays
  // below 1e-48, so 1e-40 leaves room and anything above it is not rounding.
  const std::string regime =
      "x [6x8] N(0,1), W [5x8], g, a ~ N(1, 0.25); standard, DP and HG (3 branches) vs "
      "'none' with the absorbed matrix";
  if (err50 <= 1e-40)
    return holds("rel err " + sci(err50), regime + "; double: " + sci(err64) + " (rounding)", m);
  return fails(Fault::math_error, "rel err " + sci(err50),
               regime + ": outputs differ beyond rounding", m);
}

// The hand-derived gradients of every strategy (linear.hpp's backward) against
// the 50-digit FD of its forward.
Verdict strategy_gradients(const Context& ctx) {
  const long N = 3, d_in = 4, d_out = 4;
  double worst = 0;
  std::vector<Measure> m;
  std::uint32_t tid = 3100;
  for (const auto s : scalevec::kStrategies) {
    scalevec::Config c{s, 1e-6, s == scalevec::Strategy::dnp ? 2 : 1};
    verify::Inputs<double> in{gaussian(ctx.seed, N, d_in, 1.0, tid++),
                              gaussian(ctx.seed, d_out, d_in, 0.5, tid++)};
    if (scalevec::uses_g(s))
      in.push_back((gaussian(ctx.seed, 1, d_in, 0.3, tid++).array() + 1.0).matrix());
    if (scalevec::uses_a(s))
      in.push_back((gaussian(ctx.seed, 1, d_out, 0.3, tid++).array() + 1.0).matrix());
    if (s == scalevec::Strategy::md) {
      in.push_back(M::Constant(1, 1, 1.3));
      in.push_back((gaussian(ctx.seed, 1, d_in, 0.3, tid++).array() + 1.0).matrix());
    }
    const Verdict v = exact_by_fd50(autodiff::analytic_scalevec(c), in, "");
    const double e = v.measured.at(0).value;
    m.push_back({std::string("normwise_err_50_") + scalevec::strategy_name(s), e});
    worst = std::max(worst, e);
  }
  {
    verify::Inputs<double> in{gaussian(ctx.seed, N, d_in, 1.0, tid++)};
    for (int b = 0; b < 3; ++b) {
      in.push_back(gaussian(ctx.seed, d_out, d_in, 0.5, tid++));
      in.push_back((gaussian(ctx.seed, 1, d_in, 0.3, tid++).array() + 1.0).matrix());
    }
    const Verdict v = exact_by_fd50(autodiff::analytic_scalevec_hg(3, 1e-6), in, "");
    m.push_back({"normwise_err_50_HG", v.measured.at(0).value});
    worst = std::max(worst, v.measured.at(0).value);
  }
  m.push_back({"normwise_err_50", worst});
  const std::string regime =
      "none, standard, AP, DP, DNP (2 heads), MD, HG (3 branches); x [3x4], W [4x4], eps 1e-6";
  // The verifier's 50-digit tolerance (support.hpp): 1e-20.
  if (worst <= 1e-20) return holds("err " + sci(worst), regime + ", 50-digit FD", m);
  return fails(Fault::math_error, "err " + sci(worst),
               regime + ": a backward formula is off by " + sci(worst), m);
}

}  // namespace

void add_scalevec_linear_maps_claims(Registrar& r) {
  r.add({.id = "scalevec.sec.2.1.absorption",
         .location = "Sec. 2.1 (No additional expressivity in Pre-Norm architectures)",
         .statement = "A scale vector before a linear map adds no expressivity: W (g (.) n(x)) = "
                      "(W diag(g)) n(x) for every g and W (likewise HG's branch vectors and DP's "
                      "diag(a) W diag(g)); project's reading of the stripped formula, checked on "
                      "scaleref's own forward maps (conformance: it cannot come out otherwise)",
         .kind = Kind::exact,
         .relied_on = false,
         .basis = Basis::conformance,
         .quote_line = 115,
         .quote = "Since appears before linear maps, it can be absorbed into them: for any and "
                  "linear map , choosing yields .",
         .reading = &kStrategyFormsReading,
         .inputs = "x 6x8 N(0,1) (tensor 3001), W 5x8 0.3 N(0,1) (3002), g 1x8 and a 1x5 "
                   "1 + 0.5 N(0,1) (3003, 3004); HG: 3 branches W_b 5x8 0.3 N(0,1), g_b 1 + "
                   "0.5 N(0,1) (3010-3012, 3020-3022); eps 1e-6; 50 digits and double",
         .formula = "linear.hpp forward: standard W (g (.) n(x)) vs none (W diag(g)) n(x); DP "
                    "a (.) (W (g (.) n(x))) vs none (diag(a) W diag(g)) n(x); HG W_b (g_b (.) "
                    "n(x)) vs none (W_b diag(g_b)) n(x); relative normwise difference ||y1 - y2|| "
                    "/ ||y2||",
         .threshold = "holds if the worst relative difference in 50 digits <= 1e-40 (rounding of "
                      "the 8-term sums is < 1e-48); the double difference is reported, not judged",
         .against = "scaleref's own 'none' forward on the absorbed matrix (same code path family; "
                    "no independent oracle)",
         .trivial = "W (g (.) n(x)) = (W diag(g)) n(x) is the associativity of matrix products, "
                    "checked on scaleref's own forward against itself",
         .check = absorption});
  r.add({.id = "scalevec.sec.3.gradients",
         .location = "Sec. 2.1, 3.1-3.3 (project's reading; formulas stripped)",
         .statement = "The hand-derived gradients of y = W (g (.) n(x)) and of the HG, AP, DP, DNP "
                      "and MD variants (reference/include/scaleref/scalevec/linear.hpp backward); "
                      "the paper states no gradient: conformance of scaleref's backward with its "
                      "forward",
         .kind = Kind::exact,
         .relied_on = true,
         .basis = Basis::conformance,
         .quote_line = 131,
         .quote = "A more flexible alternative is to place scale vectors on both sides of the "
                  "linear map:",
         .reading = &kStrategyFormsReading,
         .inputs = "per strategy (none, standard, AP, DP, DNP with 2 heads, MD): x 3x4 N(0,1), W "
                   "4x4 0.5 N(0,1), g 1x4 / a 1x4 1 + 0.3 N(0,1), MD r = 1.3 and u 1 + 0.3 "
                   "N(0,1) (tensors 3100 on); HG: x 3x4, 3 branches W_b 4x4 0.5 N(0,1), g_b 1 + "
                   "0.3 N(0,1); eps 1e-6",
         .formula = "autodiff::analytic_scalevec / analytic_scalevec_hg (linear.hpp's hand "
                    "backward) against the 50-digit central FD of the same forward: W (g (.) "
                    "n(x)), a (.) (W n(x)), a (.) (W (g (.) n(x))), a (.) n_h(W (g (.) n(x))), "
                    "g = r u / RMS(u), W_b (g_b (.) n(x))",
         .threshold = "holds if the worst normwise error over the 7 strategies <= 1e-20 (the "
                      "verifier's 50-digit tolerance)",
         .against =
             "50-digit central finite differences of scaleref's forward (linear.hpp), per strategy",
         .check = strategy_gradients});
}

}  // namespace scaleref::audit
