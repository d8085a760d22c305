// The verbs backend when railgauge was built without libibverbs: every point is waived.
#include "rdma/verbs_point.h"

namespace railgauge::rdma {

std::optional<std::string> verbs_waive_reason(const RunContext &, const VerbsPointSpec &) {
  return "built without libibverbs (install libibverbs-dev and reconfigure)";
}

Outcome run_verbs_point(RunContext &, const VerbsPointSpec &) {
  return Outcome::waived("built without libibverbs (install libibverbs-dev and reconfigure)");
}

} // namespace railgauge::rdma
