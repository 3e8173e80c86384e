// The scalevec paper's claims, in the paper's order, section by section.
#include <scaleref/audit/registry.hpp>
#include <vector>

#include "claims/scalevec/scalevec.hpp"

namespace scaleref::audit {

void add_scalevec_claims(std::vector<Claim>& out) {
  Registrar r(out, "scalevec");
  add_scalevec_linear_maps_claims(r);
  add_scalevec_gradient_flow_claims(r);
  add_scalevec_improvements_claims(r);
  add_scalevec_weight_decay_claims(r);
}

}  // namespace scaleref::audit
