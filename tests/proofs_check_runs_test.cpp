// The audit's tests that train the tiny LM or run claims at several seeds:
// tens of seconds each, so a program of their own, whose tests carry a COST
// that makes ctest start them first (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cctype>
#include <scaleref/audit/registry.hpp>
#include <string>
#include <utility>
#include <vector>

#include "audit_support.hpp"

namespace {

using namespace scaleref::audit;

// The proxies' two verdicts, pinned (default seed, one replicate; the rest
// of the categories in proofs_check_test.cpp).
TEST(AuditScopes, AProxyCanBeConsistentAtSmallScale) {
  const Verdict small = verdict_at("rescale.app.6.2.1.decay-bounds-growth");
  EXPECT_EQ(small.status, Status::consistent) << small.detail;
}

TEST(AuditScopes, AProxyCanBeNotReproducedAtSmallScale) {
  // at the seed where the tiny LM's std grows at both run lengths
  const Verdict grows = verdict_at("rescale.sec.4.1.large-init-falls", kDefaultSeed + 1);
  EXPECT_EQ(grows.fault, Fault::not_reproduced) << grows.detail;
}

// Every stochastic claim draws from the run's seed: the same seed gives the
// same numbers, another seed other numbers (a claim on a fixed seed of its own
// would give the same). One test per claim (the tiny LM's claims take tens of
// seconds each), so that ctest spreads them over the cores.
std::vector<std::string> stochastic_ids() {
  std::vector<std::string> ids;
  for (const Claim& c : claims())
    if (c.stochastic) ids.push_back(c.id);
  return ids;
}

class StochasticClaim : public ::testing::TestWithParam<std::string> {};

TEST_P(StochasticClaim, DrawsFromTheSeed) {
  const auto numbers = [](const Claim& c, std::uint64_t seed) {
    Context ctx;
    ctx.seed = seed;
    const Verdict v = run_claim(c, ctx).verdict;
    std::vector<double> out;
    for (const Measure& m : v.measured) out.push_back(m.value);
    return std::make_pair(out, v.figure + v.detail);
  };
  const Claim& c = claim(GetParam());
  const auto a = numbers(c, 7), again = numbers(c, 7), other = numbers(c, 8);
  EXPECT_EQ(a, again) << c.id;
  EXPECT_NE(a, other) << c.id << " gives the same numbers at seeds 7 and 8";
}

// A claim id as a test name: letters, digits and '_' only.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(AuditRuns, StochasticClaim, ::testing::ValuesIn(stochastic_ids()),
                         test_name);

TEST(AuditRuns, SomeClaimsAreStochastic) { EXPECT_GE(stochastic_ids().size(), 10u); }

}  // namespace
