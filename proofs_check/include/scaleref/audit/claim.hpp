// The paper audit's record: one claim of one paper and the check that
// computes its verdict.
//
// A claim's id is <paper>.<eq|thm|prop|claim|alg|app...>.<number-or-name>,
// e.g. seednorm.eq.26, sdd.eq.31, smallinit.claim.eps-saturation. Its check
// runs every time the audit runs and returns a Verdict built from what it
// measured; nothing is decided in advance.
//
// What a claim is about (Basis):
//   paper        a statement the paper makes, quoted verbatim with its line in
//                the paper's file under ../shared/papers/
//   reading      the project's reading of a gap or an ambiguity of the paper
//                (a lost or garbled statement, a notation that admits more
//                than one meaning): the claim names the Reading it applies,
//                with the alternatives considered
//   conformance  scaleref's code against its own transcription of a
//                definition: a check of our code, not a verdict on the paper.
//                Reported apart; the audit's headline tally leaves it out.
//
// What a claim is (Scope), which decides the faults its failure may have:
//   derivation      an equation, a derivation, a proof step, or a number the
//                   paper computes from its own definitions or configurations:
//                   it may fail as a mathematical error or a notation slip
//   summary         a sentence that summarizes the paper's own table or figure
//                   ("consistently outperforms", "best on N of M"): it may
//                   fail as an overstatement (the cells for and against in
//                   the detail) or a notation slip (a mislabelled cell)
//   reconstruction  the project's reconstruction of a statement lost from the
//                   paper's copy (basis reading, reconstructed): its failure
//                   is "reconstruction refuted", never counted against the
//                   paper
//   proxy           a small-scale stand-in for an experiment the audit cannot
//                   run (a 1B-parameter training run on the tiny LM): it is
//                   "consistent at small scale" or fails as "not reproduced
//                   at small scale", never a mathematical error
// run_claim refuses a verdict its scope does not allow (the claim is then
// not run, with the reason), so a proxy cannot emit a mathematical error.
//
// The verdicts (Status):
//   holds                an exact formula agreeing with its 50-digit oracle to
//                        ~20 digits or more, or a theorem / inequality that
//                        every sampled case satisfies (the figure says how
//                        many and by what margin)
//   holds approximately  an approximation, or a numeric or empirical claim
//                        that is close: the figure gives the measured error and
//                        the detail the regime it was measured in
//   consistent           a proxy's stand-in agrees with the paper's statement
//                        at the scale the audit runs (proxies only)
//   fails                a concrete counterexample (shrunk where possible) or a
//                        number that is not what the paper states, with its
//                        Fault: a mathematical error (the statement is false
//                        under every reading of its notation, shown by an
//                        independent computation), a notation slip (a typo, a
//                        mislabelled side, a missing index: the statement
//                        holds once the slip is undone, and the detail says
//                        which slip), an overstatement (a summary stronger
//                        than its table), a reconstruction refuted, or not
//                        reproduced at small scale (a proxy)
//   reading-dependent    the paper's words admit more than one reading and the
//                        readings' verdicts differ: each reading's verdict and
//                        figure are kept (Verdict::readings), the preferred
//                        one first, and the detail says why it is preferred
//   inconclusive         the sizes, lengths or seeds the audit can run do not
//                        decide it: the verdict changed with the seed (over
//                        --replicates seeds) or between the default run and
//                        --thorough, and the detail gives both figures; or the
//                        check itself found its margin below its noise
//   not run              the check threw, or returned a verdict its scope
//                        does not allow; the detail is the message
//
// Two marks beside the verdict (against on every claim about the papers;
// trivial on any claim, conformance checks included):
//   against   what the verdict was computed against (50-digit finite
//             differences, the tape, a Monte Carlo estimate with its standard
//             error, an RK4 integration, the paper's own table): --explain
//             prints it
//   trivial   non-empty when the claim is true by definition or checks the
//             project's code against itself (the reason why): it is reported
//             but left out of the papers' tally
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace scaleref::audit {

enum class Kind { exact, approximation, theorem, empirical, numeric };
enum class Status {
  holds,
  holds_approximately,
  consistent,
  fails,
  reading_dependent,
  inconclusive,
  not_run
};
enum class Fault {
  none,
  math_error,
  notation_slip,
  overstatement,
  reconstruction_refuted,
  not_reproduced
};
enum class Basis { paper, reading, conformance };
enum class Scope { derivation, summary, reconstruction, proxy };

const char* kind_name(Kind k);
const char* status_name(Status s);
const char* fault_name(Fault f);  // "", "mathematical error", "notation slip", ...
const char* basis_name(Basis b);
const char* scope_name(Scope s);
// "holds", "fails: notation slip", ...
std::string verdict_label(Status s, Fault f);

// Whether a claim of scope `s` may return the verdict (status, fault): every
// scope may be inconclusive or reading-dependent (or not run); a derivation
// holds (approximately) or fails as a mathematical error or a notation slip,
// a summary holds (approximately) or fails as an overstatement or a notation
// slip, a reconstruction holds (approximately) or is refuted, a proxy is
// consistent or not reproduced, nothing else.
bool allowed(Scope s, Status status, Fault fault);

// The seed of a run without --seed.
inline constexpr std::uint64_t kDefaultSeed = 20261122;

// One measured number, named (JSON: "measured": {name: value}).
struct Measure {
  std::string name;
  double value;
};

// What a failure found, for the headline's list of findings: what is wrong,
// in words the paper's authors would accept, and the corrected form where
// there is one.
struct Finding {
  std::string wrong;
  std::string corrected = {};
};

// One reading's verdict on a claim read more than one way.
struct ReadingVerdict {
  std::string reading;  // the reading, in a few words
  Status status = Status::not_run;
  Fault fault = Fault::none;
  std::string figure;
  Finding finding = {};  // what this reading finds wrong, when it fails
};

struct Verdict {
  Status status = Status::not_run;
  Fault fault = Fault::none;  // set exactly when status is fails
  std::string figure;         // the headline number, short: "rel err 3.1e-31", "12/12 cases"
  std::string detail;         // one line: the regime, the counterexample, the reason
  std::vector<Measure> measured;
  // A gradient comparison's worst entry (input, output, both values), for
  // --explain; empty when the check compares no gradient.
  std::string worst_entry = {};
  Finding finding = {};  // a failure's finding (required of a mathematical error,
                         // a notation slip and an overstatement)
  // Every reading evaluated, the preferred first (by_reading); empty when the
  // verdict does not depend on a reading.
  std::vector<ReadingVerdict> readings = {};
};

// One reading rule: how the audit reads one notation of one paper, applied to
// every claim that uses that notation (no two Readings read the same notation).
struct Reading {
  std::string id;            // <paper>.reading.<name>, or shared.reading.<name>
  std::string notation;      // the notation read, as the paper writes it
  std::string rule;          // the reading applied
  std::string alternatives;  // the other readings considered, and why not chosen
};

// What a check may ask of the run.
struct Context {
  bool thorough = false;              // --thorough: the slow sweeps too
  std::uint64_t seed = kDefaultSeed;  // every random draw of a check derives from it
  // Progress for slow checks (stderr); a no-op when quiet.
  std::function<void(const std::string&)> progress = [](const std::string&) {};
};

// Fields in the order a designated initializer must name them (see
// claims/support.hpp's Registrar, which sets paper and source). The fields
// without a default must be named: -Wmissing-field-initializers says which.
struct Claim {
  std::string id;
  std::string paper = {};  // set by the Registrar: sdd, seednorm, scalevec, rescale, smallinit
  std::string location;    // "eq. 31", "Theorem 3.2, Appendix B.6", "Sec. 2.2"
  std::string statement;   // the claim in words
  Kind kind = Kind::exact;
  // True when scaleref's own implementation relies on this formula: its
  // failure makes the audit exit non-zero.
  bool relied_on = false;
  Basis basis = Basis::paper;
  // The paper's words, verbatim (whitespace may differ), starting on line
  // quote_line (1-based) of its file: required for paper and reading claims.
  long quote_line = 0;
  std::string quote = {};
  const Reading* reading = nullptr;  // required for basis reading; optional otherwise
  // The statement is lost from the paper's copy, and what is checked is the
  // project's reconstruction of it: the verdict says so. Exactly the claims
  // of scope reconstruction.
  bool reconstructed = false;
  Scope scope = Scope::derivation;
  // The verdict depends on the seed: the check runs on --replicates seeds.
  bool stochastic = false;
  // The check reads Context::thorough: under --thorough the default sizes run
  // too, and a verdict that differs between the two is inconclusive.
  bool sized = false;
  std::string inputs;     // the inputs and sizes: "x 4x8 N(0, 1), gamma 1x8 ..."
  std::string formula;    // the formula as coded
  std::string threshold;  // the rule that decides the verdict
  // What the verdict is computed against: required for basis paper and
  // reading ("50-digit finite differences of the reference forward", "the
  // paper's Table 2", "Monte Carlo, 98304 draws, with its standard error").
  std::string against = {};
  // Non-empty: why the check cannot tell a right paper from a wrong one (true
  // by definition, or the project's code against itself). Reported, left out
  // of the tally.
  std::string trivial = {};
  std::function<Verdict(const Context&)> check;
  std::string source = {};  // set by the Registrar: the file and line of the check's registration
};

// Verdict builders.
Verdict holds(std::string figure, std::string detail, std::vector<Measure> measured = {});
Verdict holds_approximately(std::string figure, std::string detail,
                            std::vector<Measure> measured = {});
Verdict fails(Fault fault, std::string figure, std::string detail,
              std::vector<Measure> measured = {});
Verdict fails(Fault fault, Finding finding, std::string figure, std::string detail,
              std::vector<Measure> measured = {});
Verdict consistent(std::string figure, std::string detail, std::vector<Measure> measured = {});
Verdict inconclusive(std::string figure, std::string detail, std::vector<Measure> measured = {});

// A claim read more than one way: each reading's name and verdict, the
// preferred reading first, and why it is preferred. The readings agree when
// each finds the claim true (holds or holds approximately: the precision of a
// true statement does not make it depend on the reading) or each gives the
// same status and fault; then the verdict is the preferred reading's (its
// detail naming the others); else it is reading-dependent, its figure the
// readings' figures in order ("18/22 | 22/22"), its detail the preferred
// reading, why, and each reading's verdict, figure and detail; the measures
// are the preferred reading's, then the k-th reading's as "readingk_<name>".
// Either way Verdict::readings keeps every reading's verdict.
struct ReadingOutcome {
  std::string reading;
  Verdict verdict;
};
Verdict by_reading(std::vector<ReadingOutcome> outcomes, const std::string& why_preferred);

// Short numbers for figures and details: "3.1e-31", "0.4871".
std::string sci(double v, int digits = 2);
std::string fixed(double v, int digits = 4);

}  // namespace scaleref::audit
