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
    "usage: proofs_check [--thorough] [--only PATTERN]... [--list] [--coverage] [--json FILE] "
    "[--quiet]\n";

constexpr const char* kHelp =
    "\n"
    "The paper audit: runs the check of every claim of the five papers and prints\n"
    "its verdict (holds, holds approximately, fails, not run) with the figure it\n"
    "measured and a one-line detail.\n"
    "\n"
    "  --only PATTERN  run only the claims PATTERN names (repeatable): a whole id\n"
    "                  (sdd.eq.3: eq. 3 alone), its leading parts (sdd.eq: sdd's\n"
    "                  equations; seednorm: one paper), or a glob over the whole id,\n"
    "                  '*' any run of characters (*.31, 'seednorm.eq.2*')\n"
    "  --thorough      also the slow sweeps (longer runs, larger sizes)\n"
    "  --list          print the chosen claims (id, kind, location, statement)\n"
    "                  without running them\n"
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
  std::vector<Claim> claims;
  try {
    claims = all_claims();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proofs_check: %s\n", e.what());
    return 1;
  }
  const std::vector<const Claim*> chosen = select_claims(claims, args.only);
  if (chosen.empty()) return usage("no claim matches --only");
  if (args.list) {
    for (const Claim* c : chosen)
      std::printf("%-44s %-16s %-28s %s\n", c->id.c_str(), kind_name(c->kind), c->location.c_str(),
                  c->statement.c_str());
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
    results.push_back(run_claim(c, ctx));
  }
  std::cout << table(results);
  if (!args.json_path.empty()) {
    try {  // whole or not at all: a full disk leaves no truncated JSON
      scaleref::io::write_file_atomically(args.json_path, json(results, ctx.thorough));
    } catch (const scaleref::Error& e) {
      std::fprintf(stderr, "proofs_check: %s\n", e.what());
      return 1;
    }
  }
  return exit_status(results);
}
