// Built without libibverbs: the fabric-load benchmarks waive in supported() (no verbs devices),
// so these are never reached; they say why if they are.
#include "harness/error.h"
#include "rdma/fabric_load/fabric_load_spec.h"

namespace railgauge::rdma {

std::unique_ptr<IncastSide> make_verbs_incast_side(const RunContext &, const FabricLoadSpec &) {
  throw BackendError("railgauge was built without libibverbs");
}

std::unique_ptr<ProbeSide> make_verbs_probe_side(const RunContext &, const FabricLoadSpec &) {
  throw BackendError("railgauge was built without libibverbs");
}

} // namespace railgauge::rdma
