// What the audit's test programs share: the registry's claims, built once per
// process, a claim by id, and a claim's verdict at a seed.
#pragma once

#include <cstdint>
#include <scaleref/audit/registry.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaleref::audit {

inline const std::vector<Claim>& claims() {
  static const std::vector<Claim> all = all_claims();
  return all;
}

inline const Claim& claim(const std::string& id) {
  for (const Claim& c : claims())
    if (c.id == id) return c;
  throw std::runtime_error("no claim " + id);
}

// The claim's verdict on one replicate at `seed`.
inline Verdict verdict_at(const std::string& id, std::uint64_t seed = kDefaultSeed) {
  Context ctx;
  ctx.seed = seed;
  return run_claim(claim(id), ctx, 1).verdict;
}

}  // namespace scaleref::audit
