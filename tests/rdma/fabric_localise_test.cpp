// Localisation on the simulated 1,024 x 8 fat tree: 100 seeded trials a scenario, each a
// fresh random fault, a fresh plan and fresh noise. The bar: the right link named in
// at least 95 trials of 100, a wrong link in at most 5. The rates measured here are the ones
// docs/rdma.md gives.
#include <cstdio>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "rdma/fabric/fabric_trials.h"
#include "rdma/fabric/fat_tree.h"

namespace railgauge::rdma::fabric {
namespace {

struct Rates {
  int right = 0, wrong = 0, trials = 0, max_adaptive = 0, max_first_pass = 0;
};

Rates run_trials(const Topology &t, const std::vector<FaultKind> &faults, int trials,
                 std::uint64_t seed) {
  const auto r = run_fault_trials(t, faults, trials, seed);
  return {r.right, r.wrong, r.trials, r.max_adaptive, r.max_first_pass};
}

const Topology &thousand_nodes() {
  static const Topology t = fat_tree({1024, 8, 32, 32});
  return t;
}

void expect_bar(const Rates &r, const char *what) {
  std::printf("%s: right link named in %d of %d trials, a wrong link in %d; first pass at most "
              "%d rounds, adaptive at most %d\n",
              what, r.right, r.trials, r.wrong, r.max_first_pass, r.max_adaptive);
  EXPECT_GE(r.right, 95) << what;
  EXPECT_LE(r.wrong, 5) << what;
  EXPECT_LE(r.max_first_pass, 16) << what;
  EXPECT_LE(r.max_adaptive, 8) << what;
}

TEST(FabricLocalise, ASingleBadCableIsNamed) {
  expect_bar(run_trials(thousand_nodes(), {FaultKind::bad_cable}, 100, 40), "bad cable");
}

TEST(FabricLocalise, ASingleBadUplinkIsNamed) {
  expect_bar(run_trials(thousand_nodes(), {FaultKind::bad_uplink}, 100, 41), "bad uplink");
}

TEST(FabricLocalise, TwoSimultaneousFaultsAreBothNamed) {
  expect_bar(run_trials(thousand_nodes(), {FaultKind::bad_cable, FaultKind::bad_uplink}, 100, 42),
             "bad cable and bad uplink");
}

TEST(FabricLocalise, AFlappingPortIsNamed) {
  expect_bar(run_trials(thousand_nodes(), {FaultKind::flapping_port}, 100, 43), "flapping port");
}

TEST(FabricLocalise, AHealthyFabricNamesNothing) {
  const auto r = run_trials(thousand_nodes(), {}, 20, 44);
  EXPECT_EQ(r.wrong, 0);
}

} // namespace
} // namespace railgauge::rdma::fabric
