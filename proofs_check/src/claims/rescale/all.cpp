// The rescale paper's claims, section by section in the paper's order.
#include <scaleref/audit/registry.hpp>
#include <vector>

#include "claims/rescale/rescale.hpp"

namespace scaleref::audit {

void add_rescale_claims(std::vector<Claim>& out) {
  Registrar r(out, "rescale");
  add_rescale_init_laws_claims(r);
  add_rescale_rescaling_claims(r);
  add_rescale_dynamics_claims(r);
  add_rescale_tables_claims(r);
  add_rescale_prose_claims(r);
}

}  // namespace scaleref::audit
