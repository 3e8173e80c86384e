// Every claim of the audit, in a fixed order (paper by paper, in the order
// the papers state them). Each paper's claims live in proofs_check/src/claims/
// <paper>.cpp and are added by its add_<paper>_claims function.
#pragma once

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

// All claims; throws Error on a duplicate or malformed id.
std::vector<Claim> all_claims();

// Does `id` match `pattern`? A pattern without `*` names whole dot-separated
// parts from the start: the id itself ("sdd.eq.3" is eq. 3, not eq. 31), or
// every id under it ("sdd.eq": sdd's equations; "seednorm": the paper). A
// pattern with `*` is a glob over the whole id, `*` any run of characters
// ("*.31", "sdd.eq.3*").
bool matches(const std::string& id, const std::string& pattern);

// The outcome of running one claim's check.
struct Result {
  const Claim* claim = nullptr;
  Verdict verdict;
  double seconds = 0;
};

Result run_claim(const Claim& c, const Context& ctx);

// The audit's exit status: 1 when a check could not run or a claim the
// implementation relies on fails, else 0.
int exit_status(const std::vector<Result>& results);

// Output: the table (id, verdict, figure, one-line detail) and the JSON
// document (proofs_check/schema/audit.schema.json).
std::string table(const std::vector<Result>& results);
std::string json(const std::vector<Result>& results, bool thorough);

}  // namespace scaleref::audit
