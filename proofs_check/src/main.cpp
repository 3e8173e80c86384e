// proofs_check: the paper audit. Runs every claim's check and prints a table
// (id, verdict, measured figure, one-line detail); --json FILE writes one
// object per claim (schema: proofs_check/schema/audit.schema.json).
//
//   proofs_check                  every claim, the fast checks
//   proofs_check --thorough       the slow sweeps too
//   proofs_check --only PATTERN   claims whose id contains PATTERN ('*' globs)
//   proofs_check --list           the claims, without running them
//   proofs_check --json FILE      also write the JSON document
//   proofs_check --quiet          no progress on stderr
//
// Exit status: 0, or 1 when a check could not run or a claim the
// implementation relies on fails (the claims marked relied_on), 2 on bad usage.
#include <cstdio>
#include <iostream>
#include <scaleref/audit/args.hpp>
#include <scaleref/audit/registry.hpp>
#include <scaleref/error.hpp>
#include <scaleref/io/atomic_file.hpp>
#include <string>
#include <vector>

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "proofs_check: %s\n"
               "usage: proofs_check [--thorough] [--only PATTERN]... [--list] [--json FILE] "
               "[--quiet]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace scaleref::audit;
  const Args args = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.error.empty()) return usage(args.error.c_str());
  if (args.help) {
    usage("the paper audit");
    return 0;
  }
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
