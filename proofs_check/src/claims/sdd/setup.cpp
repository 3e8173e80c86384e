// Sec. 4.1 and Appendix F: the models' setup (Sec. 4.1's V init) and their size
// (Table 3's configurations as parameter counts, Sec. 4.3's 0.1%), Table 3 read
// by sdd.reading.table3 (readings.hpp).
#include <algorithm>
#include <cmath>
#include <scaleref/sdd/init.hpp>
#include <scaleref/sdd/layer.hpp>
#include <string>
#include <vector>

#include "claims/sdd/readings.hpp"
#include "claims/sdd/sdd.hpp"

namespace scaleref::audit {
namespace {

using namespace sdd_paper;

// ---- Sec. 4.1: V's initialization ----------------------------------------------

Verdict check_v_init_output(const Context& ctx) {
  // Sec. 4.1: V ~ N(0, 1/sqrt(2.5 d_model)) is "designed to align the initial
  // output distributions with the baselines". The SDD output alpha (.) norm(V x)
  // does not depend on V's scale (eq. 3) at eps = 0, and barely at the
  // authors' eps = 1e-6. Measured: the output's change across the std and
  // variance readings and Initstd*0.1. The claim fails if V's std moves the
  // output by less than 1e-3 (it then cannot be what aligns it); the output's
  // RMS is |alpha| = 1, the baselines' (W ~ N(0, 0.02^2), d = 2048) 0.905.
  const long d = 512, N = 8;
  const M x = gaussian(ctx.seed, N, d, 1.0, kT + 9100),
          g = gaussian(ctx.seed, d, d, 1.0, kT + 9101);
  const M a = M::Ones(1, d);
  double worst0 = 0, worst6 = 0;
  const double s_std = sdd::v_std(d, sdd::VReading::std),
               s_var = sdd::v_std(d, sdd::VReading::variance);
  for (double eps : {0.0, 1e-6}) {
    const M ref = sdd::forward<double>({M(s_std * g), a}, {eps}, x);
    for (double s : {s_var, 0.1 * s_std, 0.1 * s_var}) {
      const double e = rel<double>(sdd::forward<double>({M(s * g), a}, {eps}, x), ref);
      (eps == 0 ? worst0 : worst6) = std::max(eps == 0 ? worst0 : worst6, e);
    }
  }
  const M y = sdd::forward<double>({M(s_std * g), a}, sdd::Config::paper(), x);
  const double out_rms = rms<double>(y);
  std::vector<Measure> m{{"output_change_eps0", worst0},
                         {"output_change_eps1e-6", worst6},
                         {"sdd_output_rms", out_rms},
                         {"baseline_output_rms_2048", 0.02 * std::sqrt(2048.0)}};
  const std::string det =
      "d=512: output change over V std {1/sqrt(2.5d), its sqrt, x0.1}: " + sci(worst0) +
      " (eps 0), " + sci(worst6) + " (eps 1e-6); output RMS = |alpha| = " + fixed(out_rms, 3) +
      " whatever V's std";
  // Under the layer-output reading eq. 3 makes y invariant to V's scale
  // under either reading of the std: the stated purpose cannot be met.
  const double change = std::max(worst0, worst6);
  Verdict on_y =
      change < 1e-3
          ? fails(Fault::math_error,
                  {"V's std cannot align the SDD layer's output: alpha (.) norm(x V^T) does not "
                   "depend on V's scale (eq. 3)",
                   "alpha's initialization sets the output's scale (RMS |alpha|)"},
                  "output change " + sci(change), det, m)
          : holds_approximately("output change " + sci(change), det, m);
  // Under the pre-normalization reading: z = x V^T's RMS at the std reading
  // against a baseline linear output's, W ~ N(0, 0.02^2), at the same d.
  const double z_rms = rms<double>(M(x * (s_std * g).transpose()));
  const double base_rms = rms<double>(M(x * (0.02 * g).transpose()));
  const double ratio = z_rms / base_rms;
  const std::string zdet = "d=512: RMS(x V^T) " + fixed(z_rms, 3) + " at V std 1/sqrt(2.5d), " +
                           fixed(base_rms, 3) + " for W ~ N(0, 0.02^2): ratio " + fixed(ratio, 2);
  Verdict on_z =
      ratio >= 0.5 && ratio <= 2
          ? holds_approximately("z RMS ratio " + fixed(ratio, 2), zdet,
                                {{"z_rms_over_baseline", ratio}})
          : fails(Fault::math_error,
                  {"RMS(x V^T) at V's std is " + fixed(ratio, 2) +
                   "x a baseline linear output's, not of its order"},
                  "z RMS ratio " + fixed(ratio, 2), zdet, {{"z_rms_over_baseline", ratio}});
  return by_reading({{"the layer's output y", std::move(on_y)},
                     {"the pre-normalization z = x V^T", std::move(on_z)}},
                    "the sentence speaks of output distributions, and eq. 2's output is y");
}

// ---- Sec. 4.3 and Table 3 ------------------------------------------------------

Verdict check_moe_params(const Context&) {
  // Sec. 4.3: "SDD introduces only a 0.1% increase in parameters" for
  // OLMoE-588M-3B (Table 3 read by sdd.reading.table3). alpha has one entry
  // per output of every linear layer of every block: q, k, v, o, per expert
  // gate, up and down, the router. Over the printed total (3.4B); the
  // recomputed totals (tied and untied embedding) and the active share are
  // reported. Holds approximately if the share rounds to 0.1% at one
  // significant digit ([0.05%, 0.15%)).
  const Table3Column& c = table3().back();
  const double L = static_cast<double>(c.layers);
  double alpha_layer = 0, alpha_active = 0;
  for (const Linear& l : block_linears(c)) {
    alpha_layer += l.total * l.d_out;
    alpha_active += l.active * l.d_out;
  }
  const ParamCount tied = table3_params(c, true), untied = table3_params(c, false);
  const double share = L * alpha_layer / c.total_printed;
  const double share_active = L * alpha_active / c.active_printed;
  std::vector<Measure> m{{"alpha_params", L * alpha_layer},
                         {"total_params_recomputed_tied", tied.total},
                         {"total_params_recomputed_untied", untied.total},
                         {"active_params_recomputed_untied", untied.active},
                         {"share_total", share},
                         {"share_total_recomputed_untied", L * alpha_layer / untied.total},
                         {"share_active", share_active}};
  const std::string det = "alpha " + fixed(L * alpha_layer / 1e6, 2) + "M of the printed 3.4B (" +
                          fixed(100 * share, 3) + "%; of the recomputed " +
                          fixed(tied.total / 1e9, 3) + "B tied / " + fixed(untied.total / 1e9, 3) +
                          "B untied: " + fixed(100 * L * alpha_layer / untied.total, 3) +
                          "%), active " + fixed(100 * share_active, 3) + "% of 588M";
  if (share >= 0.0005 && share < 0.0015)
    return holds_approximately(fixed(100 * share, 3) + "%", det, m);
  return fails(Fault::math_error, fixed(100 * share, 3) + "%", det, m);
}

// Does a recomputed count reproduce a printed one: within 5%, or rounding to
// it at the precision it is printed to ("1B" is any count that rounds to 1B)?
bool reproduces(double count, double printed, double step) {
  return std::fabs(count / printed - 1) <= 0.05 || std::round(count / step) * step == printed;
}

std::string billions(double v) {
  return v >= 1e9 ? fixed(v / 1e9, 2) + "B" : fixed(v / 1e6, 0) + "M";
}

Verdict check_table3_params(const Context&) {
  // Table 3's Activate / Total Params against a count from the same column's
  // configuration (sdd.reading.table3; tied and untied embedding both tried,
  // the same choice for a column's two rows). Holds approximately if every
  // column is reproduced (reproduces()); fails otherwise, with the
  // alternatives' counts for the columns that are not.
  std::vector<Measure> m;
  std::string bad, good;
  int n_bad = 0;
  for (const Table3Column& c : table3()) {
    const std::string n = c.name;
    bool ok = false;
    double nearest = 0;
    for (bool tied : {true, false}) {
      const ParamCount p = table3_params(c, tied);
      m.push_back({"active_" + std::string(tied ? "tied_" : "untied_") + n, p.active});
      m.push_back({"total_" + std::string(tied ? "tied_" : "untied_") + n, p.total});
      ok = ok || (reproduces(p.active, c.active_printed, c.active_step) &&
                  reproduces(p.total, c.total_printed, c.total_step));
      if (tied) nearest = p.total;
    }
    const ParamCount t = table3_params(c, true), u = table3_params(c, false);
    const std::string counts = c.experts
                                   ? billions(t.active) + "/" + billions(t.total) + " tied, " +
                                         billions(u.active) + "/" + billions(u.total) + " untied"
                                   : billions(t.total) + " tied, " + billions(u.total) + " untied";
    if (ok) {
      good += (good.empty() ? "" : ", ") + n + " " + counts;
      continue;
    }
    ++n_bad;
    const ParamCount g = table3_params(c, true, Gqa::group_size);
    const ParamCount f = table3_params(c, true, Gqa::kv_heads, Ffn::fused);
    const ParamCount gf = table3_params(c, true, Gqa::group_size, Ffn::fused);
    bad += (bad.empty() ? "" : "; ") + n + ": " + counts + " (" +
           fixed(100 * (nearest / c.total_printed - 1), 0) + "%); GQA as group size " +
           billions(g.total) + ", I as fused gate+up " + billions(f.total) + ", both " +
           billions(gf.total) + " (tied)";
  }
  m.push_back({"columns_not_reproduced", static_cast<double>(n_bad)});
  const ParamCount moe_fused = table3_params(table3().back(), false, Gqa::kv_heads, Ffn::fused);
  const std::string det = (bad.empty() ? std::string() : "not reproduced: " + bad + ". ") +
                          "Reproduced: " + good + ". (I as fused gate+up takes OLMoE to " +
                          billions(moe_fused.total) + " total.)";
  if (n_bad == 0) return holds_approximately("4/4 columns", det, m);
  // No one reading of the columns reproduces every printed total: the table
  // is inconsistent with itself.
  return fails(Fault::math_error,
               {std::to_string(n_bad) +
                " of Table 3's 4 columns print parameter totals their own configurations do not "
                "give (tied or untied embeddings, GQA and FFN widths read either way): " +
                bad.substr(0, bad.find(" ("))},
               std::to_string(4 - n_bad) + "/4 columns reproduced", det, m);
}

}  // namespace

void add_sdd_setup_claims(Registrar& r) {
  r.add({.id = "sdd.sec.4-1-v-init",
         .location = "Sec. 4.1, Training Setup",
         .statement = "V ~ N(0, 1/sqrt(2.5 d_model)) is what aligns SDD's initial output "
                      "distribution with the baselines', under sdd.reading.v-init-rationale",
         .kind = Kind::theorem,
         .relied_on = false,
         .basis = Basis::reading,
         .quote_line = 138,
         .quote = "The remaining weight parameters (V matrices) are initialized using a normal "
                  "distribution $\\mathcal{N}(0,1/\\sqrt{2.5\\cdot d_{model}})$, a strategy "
                  "designed to align the initial output distributions with the baselines",
         .reading = &kVInitReading,
         .inputs = "d = 512: x 8 x d N(0,1) (tensor kT+9100), V = s G with G d x d N(0,1) "
                   "(kT+9101), alpha = 1, s in {1/sqrt(2.5d) (std reading), its variance reading, "
                   "x0.1 of each}, eps in {0, 1e-6}",
         .formula = "max over s of ||y(s) - y(1/sqrt(2.5d))|| / ||y(1/sqrt(2.5d))||, y = "
                    "sdd::forward; the output's RMS; RMS(x V^T) / RMS(x W^T), W = 0.02 G",
         .threshold = "under the layer-output reading (preferred): fails if V's std moves y by "
                      "< 1e-3 (it then cannot align it), holds approximately otherwise; under "
                      "the pre-normalization reading: holds approximately if the RMS ratio is "
                      "in [0.5, 2], fails otherwise; reading-dependent if the two disagree",
         .against = "scaleref's sdd::forward at V std {1/sqrt(2.5d), (2.5d)^-1/4, x0.1 each}, eps "
                    "0 and 1e-6, d=512 (the scale invariance of eq. 3)",
         .check = check_v_init_output});
  r.add({.id = "sdd.sec.4-3-params",
         .location = "Sec. 4.3 with Table 3",
         .statement = "SDD adds ~0.1% parameters to OLMoE-588M-3B",
         .kind = Kind::numeric,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 160,
         .quote = "SDD introduces only a 0.1% increase in parameters due to the scaling vector α",
         .reading = &kTable3Reading,
         .inputs = "Table 3's OLMoE-588M-3B column: H 1024, I 512, GQA 1, 16 heads, 32 layers, 64 "
                   "experts, top-8, vocabulary 50280; Total Params 3.4B",
         .formula = "alpha entries = L * (d_out of q, k, v, o + E * d_out of gate, up, down + "
                    "router E); share = alpha / 3.4e9; recomputed totals and the active share "
                    "reported",
         .threshold = "holds approximately if the share is in [0.05%, 0.15%) (0.1% at one "
                      "significant digit); fails otherwise",
         .against = "exact parameter count of Table 3's OLMoE column (one alpha entry per output "
                    "of q, k, v, o, the 64 experts' gate/up/down, the router)",
         .check = check_moe_params});
  r.add({.id = "sdd.table.3-params",
         .location = "Table 3, Appendix F (and Sec. 4.1, 4.3's model sizes)",
         .statement = "Table 3's Activate / Total Params follow from each column's own "
                      "configuration",
         .kind = Kind::numeric,
         .relied_on = false,
         .basis = Basis::paper,
         .quote_line = 505,
         .quote = "Total Params\t581M\t1B\t7B\t3.4B",
         .reading = &kTable3Reading,
         .inputs = "Table 3's 4 columns: Hidden Size, Intermediate Size, GQA Groups, Attention "
                   "Heads, Hidden Layers, Experts, Topk Experts, Vocabulary Size; the printed "
                   "Activate and Total Params",
         .formula = "per column, tied and untied embedding: L * (q, k, v, o, gated FFN (x K "
                    "active / x E total experts), router, 2 H norms) + vocab H (x2 untied) + H; "
                    "the GQA-as-group-size and I-as-fused-width counts reported for a column not "
                    "reproduced",
         .threshold = "a printed count is reproduced if a count is within 5% of it or rounds to it "
                      "at its printed precision (Active and Total, one embedding choice); holds "
                      "approximately if all 4 columns are, fails otherwise",
         .against = "exact parameter count from each Table 3 column's own configuration (tied and "
                    "untied embeddings)",
         .check = check_table3_params});
}

}  // namespace scaleref::audit
