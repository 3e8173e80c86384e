// The paper audit's record: one claim of one paper and the check that
// computes its verdict.
//
// A claim's id is <paper>.<eq|thm|prop|claim|alg|app...>.<number-or-name>,
// e.g. seednorm.eq.26, sdd.eq.31, smallinit.claim.eps-saturation. Its check
// runs every time the audit runs and returns a Verdict built from what it
// measured; nothing is decided in advance:
//   holds                an exact formula agreeing with its 50-digit oracle to
//                        ~20 digits or more, or a theorem / inequality that
//                        every sampled case satisfies (the figure says how
//                        many and by what margin)
//   holds approximately  an approximation, or a numeric or empirical claim
//                        that is close: the figure gives the measured error and
//                        the detail the regime it was measured in
//   fails                a concrete counterexample (shrunk where possible) or a
//                        number that is not what the paper states
// A check that throws is reported as "not run" with the exception's message.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace scaleref::audit {

enum class Kind { exact, approximation, theorem, empirical, numeric };
enum class Status { holds, holds_approximately, fails, not_run };

const char* kind_name(Kind k);
const char* status_name(Status s);

// One measured number, named (JSON: "measured": {name: value}).
struct Measure {
  std::string name;
  double value;
};

struct Verdict {
  Status status = Status::not_run;
  std::string figure;  // the headline number, short: "rel err 3.1e-31", "12/12 cases"
  std::string detail;  // one line: the regime, the counterexample, the reason
  std::vector<Measure> measured;
};

// What a check may ask of the run.
struct Context {
  bool thorough = false;  // --thorough: the slow sweeps too
  // Progress for slow checks (stderr); a no-op when quiet.
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

struct Claim {
  std::string id;
  std::string paper;      // sdd, seednorm, scalevec, rescale, smallinit
  std::string location;   // "eq. 31", "Theorem 3.2, Appendix B.6", "Sec. 2.2"
  std::string statement;  // the claim in words
  Kind kind = Kind::exact;
  // True when scaleref's own implementation relies on this formula: its
  // failure makes the audit exit non-zero.
  bool relied_on = false;
  std::function<Verdict(const Context&)> check;
};

// Verdict builders.
Verdict holds(std::string figure, std::string detail, std::vector<Measure> measured = {});
Verdict holds_approximately(std::string figure, std::string detail,
                            std::vector<Measure> measured = {});
Verdict fails(std::string figure, std::string detail, std::vector<Measure> measured = {});

// Short numbers for figures and details: "3.1e-31", "0.4871".
std::string sci(double v, int digits = 2);
std::string fixed(double v, int digits = 4);

}  // namespace scaleref::audit
