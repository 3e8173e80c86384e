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
  bool list = false, quiet = false;
  Context ctx;
  std::string json_path;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--thorough") {
      ctx.thorough = true;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--only" || a == "--json") {
      if (i + 1 >= argc) return usage((a + " expects a value").c_str());
      (a == "--only" ? only.emplace_back() : json_path) = argv[++i];
    } else if (a == "--help" || a == "-h") {
      usage("the paper audit");
      return 0;
    } else {
      return usage(("unknown argument '" + a + "'").c_str());
    }
  }
  std::vector<Claim> claims;
  try {
    claims = all_claims();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "proofs_check: %s\n", e.what());
    return 1;
  }
  std::vector<const Claim*> chosen;
  for (const Claim& c : claims) {
    bool take = only.empty();
    for (const auto& p : only) take = take || matches(c.id, p);
    if (take) chosen.push_back(&c);
  }
  if (chosen.empty()) return usage("no claim matches --only");
  if (list) {
    for (const Claim* c : chosen)
      std::printf("%-44s %-16s %-28s %s\n", c->id.c_str(), kind_name(c->kind), c->location.c_str(),
                  c->statement.c_str());
    return 0;
  }
  std::vector<Result> results;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    const Claim& c = *chosen[i];
    if (!quiet) {
      std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, chosen.size(), c.id.c_str());
      ctx.progress = [&c](const std::string& msg) {
        std::fprintf(stderr, "    %s: %s\n", c.id.c_str(), msg.c_str());
      };
    }
    results.push_back(run_claim(c, ctx));
  }
  std::cout << table(results);
  if (!json_path.empty()) {
    try {  // whole or not at all: a full disk leaves no truncated JSON
      scaleref::io::write_file_atomically(json_path, json(results, ctx.thorough));
    } catch (const scaleref::Error& e) {
      std::fprintf(stderr, "proofs_check: %s\n", e.what());
      return 1;
    }
  }
  return exit_status(results);
}
