// Every claim of the audit, in a fixed order (paper by paper, in the order
// the papers state them). Each paper's claims live in proofs_check/src/claims/
// <paper>.cpp and are added by its add_<paper>_claims function.
#pragma once

#include <cstdint>
#include <scaleref/audit/claim.hpp>
#include <string>
#include <vector>

namespace scaleref::audit {

void add_sdd_claims(std::vector<Claim>& out);
void add_seednorm_claims(std::vector<Claim>& out);
void add_scalevec_claims(std::vector<Claim>& out);
void add_rescale_claims(std::vector<Claim>& out);
void add_smallinit_claims(std::vector<Claim>& out);

// Is `id` of the form <paper>.<kind>.<name>: a lower-case paper, a kind of
// letters, then a name of letters, digits and '.', '_', '-'?
bool well_formed_id(const std::string& id);

// All claims, checked by check_registry.
std::vector<Claim> all_claims();

// Throws Error on a malformed or duplicate id, an id that does not start with
// its paper, an incomplete record (check_record), or two Readings of one
// notation (each notation is read one way, by every claim that uses it).
void check_registry(const std::vector<Claim>& claims);

// Throws Error naming the claim when its record is incomplete: a paper or
// reading claim without its quote and quote line, a reading claim without its
// Reading, a reconstructed claim whose basis is not reading, an empty inputs,
// formula or threshold, a missing check or source.
void check_record(const Claim& c);

// Does `id` match `pattern`? A pattern without `*` names whole dot-separated
// parts from the start: the id itself ("sdd.eq.3" is eq. 3, not eq. 31), or
// every id under it ("sdd.eq": sdd's equations; "seednorm": the paper). A
// pattern with `*` is a glob over the whole id, `*` any run of characters
// ("*.31", "sdd.eq.3*").
bool matches(const std::string& id, const std::string& pattern);

// One run of a check: its seed, its sizes and its verdict.
struct Run {
  std::uint64_t seed = 0;
  bool thorough = false;
  Verdict verdict;
};

// The outcome of running one claim's check.
struct Result {
  const Claim* claim = nullptr;
  Verdict verdict;        // the verdict over every run
  std::vector<Run> runs;  // the runs it was combined from, the run at the chosen seed first
  double seconds = 0;
};

// Runs c's check at ctx.seed; a stochastic claim also at the next
// replicates - 1 seeds (ctx.seed + 1, ...), and under --thorough a sized
// claim also at the default sizes. When every run gives the same verdict
// (status and fault), the verdict is the first run's, its detail saying on
// how many runs it held; when they differ, it is inconclusive, with every
// run's verdict and figure. A check that throws is not run. A reconstructed
// claim's detail says so.
Result run_claim(const Claim& c, const Context& ctx, int replicates = 1);

// The audit's exit status: 1 when a check could not run or a claim the
// implementation relies on fails, else 0.
int exit_status(const std::vector<Result>& results);

// The tally of a set of results: by verdict, failures by fault. A claim
// marked trivial counts in `trivial` alone, whatever its verdict.
struct Tally {
  int claims = 0, holds = 0, holds_approximately = 0, consistent = 0, fails = 0,
      reading_dependent = 0, inconclusive = 0, not_run = 0, trivial = 0;
  int math_errors = 0, notation_slips = 0, overstatements = 0, reconstructions_refuted = 0,
      not_reproduced = 0;
  std::string str() const;  // "118 claims: 70 hold, ..., 25 fail (20 mathematical errors, ...)"
  // "12 mathematical errors and 9 notation slips; apart, 4 overstatements; not
  // counted against the paper: ..."
  std::string against_papers() const;
};
// The verdicts on the papers (basis paper or reading), or the conformance
// checks of scaleref's own code; of one paper when `paper` is not empty.
Tally tally(const std::vector<Result>& results, bool conformance, const std::string& paper = {});

// Output: the table (id, verdict, figure, one-line detail) with the verdicts
// on the papers first and the conformance checks apart, each with its tally,
// then the headline (findings): per paper, its tally against the paper and
// one line per mathematical error, notation slip and overstatement (what is
// wrong, the corrected form, the figure), and the reconstructions refuted,
// proxies not reproduced and reading-dependent verdicts, reported apart;
// the JSON document (proofs_check/schema/audit.schema.json); and --explain's
// account of one result.
std::string table(const std::vector<Result>& results);
std::string findings(const std::vector<Result>& results);
struct RunInfo {
  bool thorough = false;
  std::uint64_t seed = kDefaultSeed;
  int replicates = 1;
  std::string commit;  // the source's git commit, "unknown" outside a checkout
};
std::string json(const std::vector<Result>& results, const RunInfo& info);
std::string explain(const Result& r);

// The git commit the audit was built from (proofs_check/commit.cmake), with
// "-dirty" when the tree had uncommitted changes, or "unknown".
const char* build_commit();

}  // namespace scaleref::audit
