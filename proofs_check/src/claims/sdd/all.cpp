// The sdd paper's claims, section by section in the paper's order (sdd.hpp).
#include <scaleref/audit/registry.hpp>

#include "claims/sdd/sdd.hpp"

namespace scaleref::audit {

void add_sdd_claims(std::vector<Claim>& out) {
  Registrar r(out, "sdd");
  add_sdd_layer_claims(r);
  add_sdd_cost_claims(r);
  add_sdd_expressiveness_claims(r);
  add_sdd_gradient_claims(r);
  add_sdd_setup_claims(r);
  add_sdd_table_claims(r);
}

}  // namespace scaleref::audit
