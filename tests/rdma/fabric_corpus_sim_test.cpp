// The simulator on the corpus's largest fabric, 10 seeded trials a fault kind (the default
// tier, at least 9 named; fabric_corpus_sim_rates_test.cpp holds 100 trials to the 95
// under the simulation label).
#include "tests/rdma/fabric_corpus_trials.h"

namespace railgauge::rdma::fabric {
namespace {

TEST(FabricCorpusSim, ABadCableIsNamed) { expect_named(FaultKind::bad_cable, 10, 9, 50); }
TEST(FabricCorpusSim, ABadUplinkIsNamed) { expect_named(FaultKind::bad_uplink, 10, 9, 51); }
TEST(FabricCorpusSim, AFlappingPortIsNamed) { expect_named(FaultKind::flapping_port, 10, 9, 52); }
TEST(FabricCorpusSim, NoFaultNamesNothing) { expect_no_name_without_a_fault(10, 53); }

} // namespace
} // namespace railgauge::rdma::fabric
