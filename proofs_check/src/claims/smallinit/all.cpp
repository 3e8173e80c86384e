// The smallinit paper's claims, in the paper's order, section by section.
#include <scaleref/audit/registry.hpp>
#include <vector>

#include "claims/smallinit/smallinit.hpp"

namespace scaleref::audit {

void add_smallinit_claims(std::vector<Claim>& out) {
  Registrar r(out, "smallinit");
  add_smallinit_saturation_claims(r);
  add_smallinit_scale_analysis_claims(r);
  add_smallinit_method_claims(r);
}

}  // namespace scaleref::audit
