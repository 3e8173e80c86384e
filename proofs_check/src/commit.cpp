// The commit the audit was built from, for its JSON (registry.hpp's
// build_commit). The header is written at build time by proofs_check/commit.cmake.
#include <scaleref/audit/registry.hpp>
#include <scaleref_commit.hpp>

namespace scaleref::audit {

const char* build_commit() { return SCALEREF_COMMIT; }

}  // namespace scaleref::audit
