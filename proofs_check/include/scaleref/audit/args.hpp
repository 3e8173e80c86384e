// The command line of proofs_check (proofs_check/src/main.cpp), parsed apart
// from running it, so that a test or a fuzz target can feed it any arguments.
#pragma once

#include <cstdint>
#include <scaleref/audit/claim.hpp>
#include <string>
#include <vector>

namespace scaleref::audit {

// Seeds a stochastic claim runs on without --replicates.
inline constexpr int kDefaultReplicates = 3;
inline constexpr int kMaxReplicates = 100;

struct Args {
  bool thorough = false;                // --thorough
  bool list = false;                    // --list
  bool coverage = false;                // --coverage
  bool quiet = false;                   // --quiet
  bool help = false;                    // --help or -h: print the usage and exit 0
  std::vector<std::string> only;        // --only PATTERN, each
  std::string json_path;                // --json FILE
  std::string explain;                  // --explain ID: one claim, whole id
  std::uint64_t seed = kDefaultSeed;    // --seed N
  int replicates = kDefaultReplicates;  // --replicates K
  std::string error;                    // a usage error ("unknown argument '-x'"), or ""
};

// Reads `args` (argv without the program's name) in order; stops at the first
// usage error or at --help.
Args parse_args(const std::vector<std::string>& args);

// The claims whose id matches one of `only` (registry.hpp's matches), in the
// registry's order; every claim when `only` is empty.
std::vector<const Claim*> select_claims(const std::vector<Claim>& claims,
                                        const std::vector<std::string>& only);

}  // namespace scaleref::audit
