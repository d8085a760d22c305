// The simulator on the corpus's largest fabric: 100 seeded trials a fault kind, and 100 without
// a fault (labelled simulation, as the localiser's rates on the synthetic tree).
#include "tests/rdma/fabric_corpus_trials.h"

namespace railgauge::rdma::fabric {
namespace {

TEST(FabricCorpusRates, ABadCableIsNamedIn95Of100) {
  expect_named(FaultKind::bad_cable, 100, 95, 60);
}
TEST(FabricCorpusRates, ABadUplinkIsNamedIn95Of100) {
  expect_named(FaultKind::bad_uplink, 100, 95, 61);
}
TEST(FabricCorpusRates, AFlappingPortIsNamedIn95Of100) {
  expect_named(FaultKind::flapping_port, 100, 95, 62);
}
TEST(FabricCorpusRates, NoFaultNamesNothingIn100) { expect_no_name_without_a_fault(100, 63); }

} // namespace
} // namespace railgauge::rdma::fabric
