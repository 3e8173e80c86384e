// Tools the claims share: the Registrar every paper registers its claims
// through, Gaussian samples (the project's Gaussian initializer), log-log
// slope fits (scaleref/fit.hpp), and the 50-digit analytic-vs-finite-
// difference verdict for exact formulas.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <scaleref/audit/claim.hpp>
#include <scaleref/fit.hpp>
#include <scaleref/init/initializers.hpp>
#include <scaleref/types.hpp>
#include <scaleref/verify/gradcheck.hpp>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

namespace scaleref::audit {

// One paper's claims, each added next to its check:
//
//   void add_sdd_gradient_claims(Registrar& r) {
//     r.add({.id = "sdd.eq.5", .location = "eq. 5", .statement = "...", ...,
//            .check = check_eq5});
//   }
//
// add() sets the claim's paper and its source (the file and line of the add()
// call); all_claims() (registry.cpp) then checks every claim's fields.
class Registrar {
 public:
  Registrar(std::vector<Claim>& out, std::string paper) : out_(out), paper_(std::move(paper)) {}

  void add(Claim c, std::source_location where = std::source_location::current()) {
    c.paper = paper_;
    c.source = relative_source(where.file_name()) + ":" + std::to_string(where.line());
    out_.push_back(std::move(c));
  }

 private:
  // The path from proofs_check/ on ("proofs_check/src/claims/sdd/gradients.cpp"),
  // not the build machine's absolute path.
  static std::string relative_source(const std::string& file) {
    const std::size_t at = file.rfind("proofs_check/");
    return at == std::string::npos ? file : file.substr(at);
  }

  std::vector<Claim>& out_;
  std::string paper_;
};

// The one reading of a sentence that summarizes a table, in all five papers.
inline const Reading kOutperformsReading{
    "shared.reading.outperforms",
    "\"X outperforms / is better than / is superior to Y\", \"consistently\", \"best on N of M\" "
    "said of a table",
    "X strictly better than Y in every row the sentence compares, on the table's main metric: the "
    "column the sentence names; else the table's summary column (Avg., Mean) where it has one; "
    "else its loss or perplexity (language models) or top-1 accuracy (vision). A tie is not "
    "better. \"Consistently\" means every row compared. The every-column reading (and, for "
    "seednorm's "
    "tables, the main metric with ties allowed) is evaluated beside it; where the readings "
    "disagree the verdict is reading-dependent, each reading's verdict shown",
    "every column as the decider (not preferred: the sentences summarize, and most tables have "
    "columns where no method is best; evaluated as a reading); \"never worse\", ties allowed "
    "(not preferred: outperforming is being better; evaluated as a reading where the tables "
    "print ties)"};

// A sentence that summarizes the paper's own table or figure: what differs
// from one such claim to the next. summary_claim fills in what is the same for
// all of them: an empirical claim on the paper (basis paper) of scope summary,
// which fails only as an overstatement or a notation slip, and which
// scaleref's code does not rely on.
struct SummaryRecord {
  std::string id;
  std::string location;
  std::string statement;
  long quote_line;
  std::string quote;
  const Reading* reading;
  std::string inputs;
  std::string formula;
  std::string threshold;
  std::string against;
  std::function<Verdict(const Context&)> check;
};

inline Claim summary_claim(SummaryRecord s) {
  return {.id = std::move(s.id),
          .location = std::move(s.location),
          .statement = std::move(s.statement),
          .kind = Kind::empirical,
          .relied_on = false,
          .basis = Basis::paper,
          .quote_line = s.quote_line,
          .quote = std::move(s.quote),
          .reading = s.reading,
          .scope = Scope::summary,
          .inputs = std::move(s.inputs),
          .formula = std::move(s.formula),
          .threshold = std::move(s.threshold),
          .against = std::move(s.against),
          .check = std::move(s.check)};
}

// [rows, cols] with entries std * N(0, 1) (std > 0): the Gaussian initializer
// on the stream (seed, tensor), element (i, j) at index i * cols + j. Every
// claim draws from its own tensor ids under the run's seed (Context::seed), so
// a verdict is a pure function of the code and the seed.
template <class S = double>
Mat<S> gaussian(std::uint64_t seed, long rows, long cols, double std, std::uint32_t tensor) {
  return init::draw<S>({rows, cols, init::Role::embedding}, 0, init::Gaussian{std}, {seed, tensor});
}

// The verdict on a formula stated as exact, from the 50-digit analytic-vs-FD
// comparison (verify::check with fd-50 only): holds when the worst normwise
// error is below 1e-20 (the verifier's 50-digit tolerance: its own FD error
// is ~1e-35 times the conditioning), fails otherwise with the error measured,
// which is then the formula's true distance from the function: a
// mathematical error unless the caller knows the slip (`fault`). The worst
// entry goes into the verdict for --explain.
inline Verdict exact_by_fd50(const verify::Problem& p, const verify::Inputs<double>& x,
                             const std::string& regime, Fault fault = Fault::math_error) {
  verify::Options o;
  o.fd_double = false;
  o.transpose = false;
  o.taylor = false;
  const verify::Report r = verify::check(p, x, o);
  const double err = r.worst_normwise_err("fd-50");
  std::vector<Measure> m{{"normwise_err_50", err}};
  Verdict v = err <= 1e-20 ? holds("err " + sci(err), regime + ", 50-digit FD", m)
                           : fails(fault, "err " + sci(err),
                                   regime + ": the formula is off by " + sci(err) + " normwise", m);
  const verify::CheckResult* worst = nullptr;
  for (const verify::CheckResult& c : r.checks)
    if (c.check == "fd-50" && c.worst && c.scale > 0 &&
        (!worst || c.cmp.max_abs_err / c.scale > worst->cmp.max_abs_err / worst->scale))
      worst = &c;
  if (worst) {
    const verify::Entry& e = *worst->worst;
    v.worst_entry = "d " + e.output + " / d " + e.input + "[" + std::to_string(e.input_row) + "," +
                    std::to_string(e.input_col) + "]: analytic " + e.analytic + ", fd-50 " + e.fd +
                    " (abs err " + sci(e.abs_err) + ", step " + sci(e.step) + ")";
  }
  return v;
}

}  // namespace scaleref::audit
