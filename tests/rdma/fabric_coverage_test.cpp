// The coverage planner and the simulated fat tree: few rounds, every link crossed k times.
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "rdma/fabric/coverage_plan.h"
#include "rdma/fabric/fabric_simulator.h"
#include "rdma/fabric/fat_tree.h"

namespace railgauge::rdma::fabric {
namespace {

TEST(FabricSimulator, RoutesWithinALeafWithoutUplinksAndAcrossLeavesOverOneSpine) {
  const auto t = fat_tree({64, 2, 16, 4});
  FabricSimulator sim(t, {});
  const int a = t.endpoint(0, 1), same_leaf = t.endpoint(5, 1), far = t.endpoint(40, 1);
  EXPECT_EQ(sim.route(a, same_leaf, 0).size(), 2u);
  std::set<int> spines;
  for (int f = 0; f < 64; ++f) {
    const auto path = sim.route(a, far, f);
    ASSERT_EQ(path.size(), 4u);
    EXPECT_EQ(t.links[path[1]].spine, t.links[path[2]].spine);
    EXPECT_EQ(t.links[path[1]].leaf, t.leaf_of_endpoint(a));
    EXPECT_EQ(t.links[path[2]].leaf, t.leaf_of_endpoint(far));
    spines.insert(t.links[path[1]].spine);
    EXPECT_EQ(sim.route(a, far, f), path); // a flow keeps its path
  }
  EXPECT_EQ(spines.size(), 4u); // and ECMP spreads the flows over every spine
}

TEST(FabricSimulator, ABadCableSlowsEveryFlowAcrossItAndNoOther) {
  const auto t = fat_tree({64, 2, 16, 4});
  FabricSimulator sim(t, {});
  sim.inject({FaultKind::bad_cable, t.nic_link[t.endpoint(3, 0)], 0.5, 0});
  PlannedRound round{{{t.endpoint(3, 0), t.endpoint(40, 0)}, {t.endpoint(4, 0), t.endpoint(41, 0)}},
                     8};
  for (const auto &f : sim.run(round, 0)) {
    const bool across = f.a == t.endpoint(3, 0) || f.b == t.endpoint(3, 0);
    EXPECT_EQ(f.bandwidth_gbps < 300, across) << f.bandwidth_gbps;
  }
}

TEST(FabricCoverage, BinomialTailMatchesSmallCases) {
  EXPECT_NEAR(binomial_at_least(2, 0.5, 1), 0.75, 1e-12);
  EXPECT_NEAR(binomial_at_least(3, 0.5, 2), 0.5, 1e-12);
  EXPECT_EQ(binomial_at_least(1, 0.5, 2), 0.0);
}

// The goal: at 1,024 nodes x 8 rails, at most 16 first-pass rounds, every NIC cable
// and uplink crossed at least twice, in rounds where no node meets two others.
TEST(FabricCoverage, AThousandNodesAreCoveredInFewRoundsEveryLinkTwice) {
  const auto t = fat_tree({1024, 8, 32, 32});
  CoverageOptions options;
  const auto plan = plan_coverage(t, options);
  EXPECT_LE(plan.rounds.size(), 16u);
  EXPECT_GE(plan.probability, options.target_probability) << plan.how;
  FabricSimulator sim(t, {});
  std::vector<FlowObservation> flows;
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    std::vector<int> partner(t.nodes.size(), -1);
    for (const auto &[a, b] : plan.rounds[r].pairs) {
      const int x = a / t.rails, y = b / t.rails;
      EXPECT_TRUE(partner[x] < 0 || partner[x] == y);
      partner[x] = y, partner[y] = x;
    }
    const auto more = sim.run(plan.rounds[r], static_cast<int>(r));
    flows.insert(flows.end(), more.begin(), more.end());
  }
  const auto crossed = crossings(t, flows);
  EXPECT_GE(*std::min_element(crossed.begin(), crossed.end()), options.k) << plan.how;
  RecordProperty("rounds", static_cast<int>(plan.rounds.size()));
  std::printf("1024x8: %s\n", plan.how.c_str());
}

TEST(FabricCoverage, RoundsDoNotGrowWithTheNodeCount) {
  CoverageOptions options;
  const auto small = plan_coverage(fat_tree({128, 8, 32, 32}), options);
  const auto large = plan_coverage(fat_tree({2048, 8, 32, 32}), options);
  EXPECT_LE(large.rounds.size(), small.rounds.size() + 1) << small.how << "\n" << large.how;
}

TEST(FabricCoverage, TopUpPlansOnlyForWhatWasMissed) {
  const auto t = fat_tree({64, 2, 16, 4});
  std::vector<int> crossed(t.links.size(), 2);
  std::vector<int> wanted(t.links.size());
  for (int i = 0; i < static_cast<int>(wanted.size()); ++i)
    wanted[i] = i;
  EXPECT_TRUE(top_up(t, crossed, wanted, {}).empty());
  const int missed = t.nic_link[t.endpoint(7, 1)];
  crossed[missed] = 1;
  const auto rounds = top_up(t, crossed, wanted, {});
  ASSERT_EQ(rounds.size(), 1u);
  FabricSimulator sim(t, {});
  const auto now = crossings(t, sim.run(rounds[0], 0));
  EXPECT_GT(now[missed], 0);
}

} // namespace
} // namespace railgauge::rdma::fabric
