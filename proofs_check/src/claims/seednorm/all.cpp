// The seednorm paper's claims, in the paper's order: each section file
// registers its claims next to their checks (seednorm.hpp lists the files).
#include <scaleref/audit/registry.hpp>

#include "claims/seednorm/seednorm.hpp"

namespace scaleref::audit {

void add_seednorm_claims(std::vector<Claim>& out) {
  Registrar r(out, "seednorm");
  add_seednorm_forward_claims(r);
  add_seednorm_analysis_claims(r);
  add_seednorm_param_grads_claims(r);
  add_seednorm_input_grads_claims(r);
  add_seednorm_prop_a1_claims(r);
  add_seednorm_variance_claims(r);
  add_seednorm_cost_claims(r);
  add_seednorm_tables_claims(r);
  add_seednorm_prose_claims(r);
}

}  // namespace scaleref::audit
