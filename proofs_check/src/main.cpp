// proofs_check: the paper audit. Runs every claim's check and prints a table
// (id, verdict, measured figure, one-line detail); --json FILE writes one
// object per claim (schema: proofs_check/schema/audit.schema.json). The
// options are kHelp's below (proofs_check --help).
//
// Exit status: 0, or 1 when a check could not run or a claim the
// implementation relies on fails (the claims marked relied_on), 2 on bad usage.
#include <cstdio>
#include <iostream>
#include <scaleref/audit/args.hpp>
#include <scaleref/audit/coverage.hpp>
#include <scaleref/audit/registry.hpp>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <string>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: proofs_check [--thorough] [--seed N] [--replicates K] [--only PATTERN]... [--list]\n"
    "                    [--json FILE] [--quiet]\n"
    "       proofs_check --explain ID [--thorough] [--seed N] [--replicates K]\n"
    "       proofs_check --coverage\n";

constexpr const char* kHelp =
    "\n"
    "The paper audit: runs the check of every claim of the five papers and prints\n"
    "its verdict with the figure it measured and a one-line detail: holds, holds\n"
    "approximately, consistent at small scale (a small stand-in for an experiment\n"
    "the audit cannot run), fails (a mathematical error, a notation slip, an\n"
    "overstatement of a table, a reconstruction of a lost statement refuted, or\n"
    "not reproduced at small scale), reading-dependent (the readings of the\n"
    "paper's words disagree: each is shown), inconclusive (the verdict changed\n"
    "with the seed or the sizes) or not run; a claim true by definition is\n"
    "marked trivial and left out of the tally. The verdicts on the papers (basis\n"
    "paper or reading) come first, with their tally; the conformance checks of\n"
    "scaleref's own code follow, apart; then the findings: per paper, its\n"
    "mathematical errors and notation slips, one line each, the rest apart.\n"
    "\n"
    "  --only PATTERN  run only the claims PATTERN names (repeatable): a whole id\n"
    "                  (sdd.eq.3: eq. 3 alone), its leading parts (sdd.eq: sdd's\n"
    "                  equations; seednorm: one paper), or a glob over the whole id,\n"
    "                  '*' any run of characters (*.31, 'seednorm.eq.2*')\n"
    "  --thorough      also the slow sweeps (longer runs, larger sizes); a claim\n"
    "                  whose check has both sizes runs both, and is inconclusive\n"
    "                  when their verdicts differ\n"
    "  --seed N        the seed every random draw derives from (default 20261122,\n"
    "                  0 to 2^64 - 1)\n"
    "  --replicates K  run each stochastic claim on K seeds, N to N + K - 1\n"
    "                  (default 3, at most 100); a verdict that changes with the\n"
    "                  seed is inconclusive\n"
    "  --explain ID    run one claim (its whole id) and print how its verdict was\n"
    "                  computed: the paper's words and line, the reading, its\n"
    "                  scope, what it is computed against (and why it is trivial,\n"
    "                  if it is), the inputs and sizes, the seeds, the formula as\n"
    "                  coded, the threshold, the check's source, every measured\n"
    "                  number, the worst entry of a gradient comparison, each\n"
    "                  reading's verdict and a failure's finding\n"
    "  --list          print the chosen claims (id, kind, basis, location,\n"
    "                  statement) without running them\n"
    "  --coverage      print each paper's coverage manifest (proofs_check/coverage/):\n"
    "                  every numbered equation, theorem, algorithm and table and the\n"
    "                  quantitative statements, with the claims that check each or\n"
    "                  the reason it is not checked; runs nothing\n"
    "  --json FILE     also write the verdicts as JSON (proofs_check/schema/\n"
    "                  audit.schema.json), whole or not at all; a FILE that cannot\n"
    "                  be written is refused before the audit runs\n"
    "  --quiet         no progress on stderr\n"
    "  -h, --help      this text\n"
    "\n"
    "Exit status: 0; 1 when a check could not run or a claim the implementation\n"
    "relies on fails; 2 on bad usage.\n";

int usage(const char* why) {
  std::fprintf(stderr, "proofs_check: %s\n%s", why, kUsage);
  return 2;
}

int print_coverage() {
  using namespace scaleref::audit;
  try {
    for (const PaperFile& p : kPaperFiles)
      std::cout << coverage_table(p.paper, read_coverage(coverage_path(p.paper))) << "\n";
  } catch (const scaleref::Error& e) {
    std::fprintf(stderr, "proofs_check: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scaleref::audit;
  const Args args = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.error.empty()) return usage(args.error.c_str());
  if (args.help) {
    std::cout << kUsage << kHelp;
    return 0;
  }
  if (args.coverage) return print_coverage();
  if (!args.json_path.empty()) {
    try {  // refused now, not after the audit has run
      scaleref::io::require_writable(args.json_path);
    } catch (const scaleref::Error& e) {
      return usage(e.what());
    }
  }
  Context ctx;
  ctx.thorough = args.thorough;
  ctx.seed = args.seed;
  std::vector<Claim> claims;
  try {
    claims = all_claims();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proofs_check: %s\n", e.what());
    return 1;
  }
  if (!args.explain.empty()) {
    for (const Claim& c : claims)
      if (c.id == args.explain) {
        const Result r = run_claim(c, ctx, args.replicates);
        std::cout << explain(r);
        return exit_status({r});
      }
    return usage(("no claim has the id '" + args.explain + "' (--list prints them)").c_str());
  }
  const std::vector<const Claim*> chosen = select_claims(claims, args.only);
  if (chosen.empty()) return usage("no claim matches --only");
  if (args.list) {
    for (const Claim* c : chosen)
      std::printf("%-44s %-16s %-11s %-28s %s\n", c->id.c_str(), kind_name(c->kind),
                  basis_name(c->basis), c->location.c_str(), c->statement.c_str());
    return 0;
  }
  std::vector<Result> results;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const Claim& c = *chosen[i];
    if (!args.quiet) {
      std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, chosen.size(), c.id.c_str());
      ctx.progress = [&c](const std::string& msg) {
        std::fprintf(stderr, "    %s: %s\n", c.id.c_str(), msg.c_str());
      };
    }
    results.push_back(run_claim(c, ctx, args.replicates));
  }
  std::cout << table(results);
  if (!args.json_path.empty()) {
    try {  // whole or not at all: a full disk leaves no truncated JSON
      const RunInfo info{ctx.thorough, ctx.seed, args.replicates, build_commit()};
      scaleref::io::write_file_atomically(args.json_path, json(results, info));
    } catch (const scaleref::Error& e) {
      std::fprintf(stderr, "proofs_check: %s\n", e.what());
      return 1;
    }
  }
  return exit_status(results);
}
