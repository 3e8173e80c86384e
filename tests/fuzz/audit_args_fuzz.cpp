// libFuzzer target for proofs_check's arguments (scaleref/audit/args.hpp):
// parse_args, then every --only pattern matched against every claim's id
// (select_claims), without running a claim. scaleref::Error is the only
// acceptable failure.
//
// Input: the arguments, separated by NUL bytes or newlines
// ("--only\nsdd.eq*\n--list").
// Run: ./audit_args_fuzz -max_total_time=60 CORPUS tests/data/fuzz/audit_args
#include <cstddef>
#include <cstdint>
#include <scaleref/audit/args.hpp>
#include <scaleref/audit/registry.hpp>
#include <scaleref/error.hpp>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace scaleref::audit;
  static const std::vector<Claim> claims = all_claims();
  std::vector<std::string> argv(1);
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n')
      argv.emplace_back();
    else
      argv.back() += c;
  }
  try {
    const Args args = parse_args(argv);
    if (args.error.empty() && !args.help) select_claims(claims, args.only);
  } catch (const scaleref::Error&) {
  }
  return 0;
}
