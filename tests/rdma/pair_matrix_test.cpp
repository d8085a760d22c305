// Pair schedules (every pair exactly once, disjoint rounds, any n) and bad-pair isolation on
// simulated fleets with one bad NIC, one bad node and one bad cable.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "rdma/pair_matrix.h"

namespace railgauge::rdma {
namespace {

void expect_disjoint(const std::vector<Round> &rounds, const std::string &what) {
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    std::set<int> busy;
    for (const auto &[a, b] : rounds[r]) {
      EXPECT_LT(a, b) << what;
      EXPECT_TRUE(busy.insert(a).second) << what << ": " << a << " twice in round " << r;
      EXPECT_TRUE(busy.insert(b).second) << what << ": " << b << " twice in round " << r;
    }
  }
}

TEST(CircleRounds, EveryPairExactlyOnceInDisjointRoundsForAnyN) {
  for (int n = 0; n <= 64; ++n) {
    const auto rounds = circle_rounds(n);
    const std::string what = "n=" + std::to_string(n);
    expect_disjoint(rounds, what);
    std::map<std::pair<int, int>, int> seen;
    for (const auto &r : rounds)
      for (const auto &p : r)
        ++seen[p];
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << what;
    for (const auto &[p, count] : seen)
      EXPECT_EQ(count, 1) << what;
    if (n >= 2) {
      EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << what;
      for (const auto &r : rounds)
        EXPECT_EQ(r.size(), static_cast<std::size_t>(n / 2)) << what; // everyone busy (but one)
    } else {
      EXPECT_TRUE(rounds.empty()) << what;
    }
  }
}

std::vector<FabricEndpoint> fleet(int nodes, int rails) {
  std::vector<FabricEndpoint> eps;
  for (int n = 0; n < nodes; ++n)
    for (int r = 0; r < rails; ++r)
      eps.push_back({n, r, "node" + std::to_string(n) + "/nic" + std::to_string(r)});
  return eps;
}

TEST(FabricRounds, RailAlignedPairsSameRailAcrossNodesOnce) {
  for (int nodes = 1; nodes <= 9; ++nodes) {
    const auto eps = fleet(nodes, 4);
    const auto rounds = fabric_rounds(eps, PairMode::rail_aligned);
    expect_disjoint(rounds, "rail-aligned");
    std::set<std::pair<int, int>> seen;
    for (const auto &r : rounds)
      for (const auto &[a, b] : r) {
        EXPECT_EQ(eps[a].rail, eps[b].rail);
        EXPECT_NE(eps[a].node, eps[b].node);
        EXPECT_TRUE(seen.insert({a, b}).second);
      }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(4 * nodes * (nodes - 1) / 2));
  }
}

TEST(FabricRounds, AllToAllPairsEveryCrossNodeEndpointOnce) {
  const auto eps = fleet(5, 3);
  const auto rounds = fabric_rounds(eps, PairMode::all_to_all);
  expect_disjoint(rounds, "all-to-all");
  std::set<std::pair<int, int>> seen;
  for (const auto &r : rounds)
    for (const auto &p : r) {
      EXPECT_NE(eps[p.first].node, eps[p.second].node);
      EXPECT_TRUE(seen.insert(p).second);
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(15 * 14 / 2 - 5 * 3)); // minus same-node
}

// In every round a node meets at most one other node: a rank (one per node) then plays its
// pairs of a round with one partner only, and no rank waits behind a chain of others.
void expect_one_partner_node(const std::vector<FabricEndpoint> &eps,
                             const std::vector<Round> &rounds, const std::string &what) {
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    std::map<int, int> partner;
    for (const auto &[a, b] : rounds[r]) {
      const int na = eps[a].node, nb = eps[b].node;
      EXPECT_EQ(partner.try_emplace(na, nb).first->second, nb) << what << " round " << r;
      EXPECT_EQ(partner.try_emplace(nb, na).first->second, na) << what << " round " << r;
    }
  }
}

TEST(FabricRounds, EachNodeMeetsOneOtherNodePerRound) {
  for (int nodes = 2; nodes <= 9; ++nodes)
    for (int rails : {1, 2, 3, 8})
      for (PairMode mode : {PairMode::rail_aligned, PairMode::all_to_all}) {
        const auto eps = fleet(nodes, rails);
        const std::string what = std::to_string(nodes) + "x" + std::to_string(rails);
        const auto rounds = fabric_rounds(eps, mode);
        expect_disjoint(rounds, what);
        expect_one_partner_node(eps, rounds, what);
        // All-to-all: (nodes - 1 or nodes) node rounds x rails sub-rounds.
        if (mode == PairMode::all_to_all) {
          EXPECT_EQ(rounds.size(),
                    static_cast<std::size_t>((nodes % 2 ? nodes : nodes - 1) * rails))
              << what;
        }
      }
}

TEST(FabricRounds, AllToAllWithUnevenNicCountsStillPairsEveryCrossNodeEndpointOnce) {
  std::vector<FabricEndpoint> eps = fleet(4, 3);
  eps.erase(eps.begin() + 4); // node 1 has lost its NIC 1
  const auto rounds = fabric_rounds(eps, PairMode::all_to_all);
  expect_disjoint(rounds, "uneven");
  expect_one_partner_node(eps, rounds, "uneven");
  std::set<std::pair<int, int>> seen;
  for (const auto &r : rounds)
    for (const auto &p : r)
      EXPECT_TRUE(seen.insert(p).second);
  std::size_t cross = 0;
  for (std::size_t a = 0; a < eps.size(); ++a)
    for (std::size_t b = a + 1; b < eps.size(); ++b)
      cross += eps[a].node != eps[b].node ? 1 : 0;
  EXPECT_EQ(seen.size(), cross);
}

TEST(PackRounds, DisjointAndComplete) {
  const auto eps = fleet(5, 2);
  const std::vector<EndpointPair> pairs = {{0, 2}, {0, 4}, {2, 4}, {6, 8}, {0, 8}, {4, 6}, {1, 3}};
  const auto rounds = pack_rounds(pairs, eps);
  expect_disjoint(rounds, "packed");
  expect_one_partner_node(eps, rounds, "packed");
  std::size_t total = 0;
  for (const auto &r : rounds)
    total += r.size();
  EXPECT_EQ(total, pairs.size());
}

// A simulated fleet: healthy pairs 2 us / 390 Gb/s with a little spread; faults slow down
// every pair that crosses them.
struct SimFleet {
  std::vector<FabricEndpoint> eps;
  std::set<int> bad_nics;
  std::set<int> bad_nodes;
  std::set<std::pair<int, int>> bad_paths;
  PairResult measure(EndpointPair p) const {
    const int seed = p.first * 31 + p.second * 17;
    PairResult r{p, 2.0e-6 * (1 + (seed % 7) * 0.01), 390.0 * (1 - (seed % 5) * 0.005)};
    const bool slow = bad_nics.count(p.first) || bad_nics.count(p.second) ||
                      bad_nodes.count(eps[p.first].node) || bad_nodes.count(eps[p.second].node) ||
                      bad_paths.count(p);
    if (slow) {
      r.latency_s *= 3.0;
      r.bandwidth_gbits_per_s *= 0.6;
    }
    return r;
  }
  std::vector<Finding> isolate(PairMode mode) const {
    std::vector<PairResult> results;
    for (const auto &round : fabric_rounds(eps, mode))
      for (const auto &p : round)
        results.push_back(measure(p));
    const PairThresholds t;
    const auto bad = find_bad_pairs(results, t);
    const auto plan = plan_isolation(eps, bad, mode);
    std::vector<PairResult> retests;
    for (const auto &round : pack_rounds(plan.retests, eps))
      for (const auto &p : round)
        retests.push_back(measure(p));
    return conclude_isolation(eps, bad, plan, retests, fleet_reference(results), t);
  }
};

TEST(Isolation, HealthyFleetHasNoFindings) {
  SimFleet f{fleet(8, 8), {}, {}, {}};
  EXPECT_TRUE(f.isolate(PairMode::rail_aligned).empty());
}

TEST(Isolation, OneBadNicIsNamed) {
  for (int nodes : {3, 4, 8, 17}) {
    SimFleet f{fleet(nodes, 8), {}, {}, {}};
    const int culprit = 2 * 8 + 5; // node 2, rail 5
    f.bad_nics = {culprit};
    for (PairMode mode : {PairMode::rail_aligned, PairMode::all_to_all}) {
      const auto findings = f.isolate(mode);
      ASSERT_EQ(findings.size(), 1u) << nodes << " nodes";
      EXPECT_EQ(findings[0].kind, "nic");
      EXPECT_EQ(findings[0].endpoints, std::vector<int>{culprit});
      EXPECT_NE(findings[0].text.find("node2/nic5"), std::string::npos) << findings[0].text;
    }
  }
}

TEST(Isolation, OneBadNodeIsNamedAsTheNode) {
  SimFleet f{fleet(8, 8), {}, {6}, {}};
  const auto findings = f.isolate(PairMode::rail_aligned);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "node");
  EXPECT_EQ(findings[0].endpoints.size(), 8u);
  EXPECT_NE(findings[0].text.find("node 6"), std::string::npos) << findings[0].text;
}

TEST(Isolation, OneBadCableBetweenTwoNicsIsNamedAsThePath) {
  SimFleet f{fleet(8, 4), {}, {}, {}};
  const EndpointPair path{1 * 4 + 2, 5 * 4 + 2}; // node1/nic2 <-> node5/nic2
  f.bad_paths = {path};
  const auto findings = f.isolate(PairMode::rail_aligned);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "path");
  EXPECT_EQ(findings[0].endpoints, (std::vector<int>{path.first, path.second}));
}

TEST(Isolation, ThresholdsAreClusterKitDefaults) {
  const PairThresholds t;
  EXPECT_DOUBLE_EQ(t.latency_factor, 2.1);
  EXPECT_DOUBLE_EQ(t.bandwidth_fraction, 0.93);
  const FleetReference ref{1e-6, 100};
  EXPECT_TRUE(judge_pair({{0, 1}, 2.1e-6, 93}, ref, t).empty()); // on the line: good
  EXPECT_FALSE(judge_pair({{0, 1}, 2.2e-6, 100}, ref, t).empty());
  EXPECT_FALSE(judge_pair({{0, 1}, 1e-6, 92}, ref, t).empty());
  EXPECT_FALSE(judge_pair({{0, 1}, 0, 0}, ref, t).empty()); // failed pair
}

TEST(Isolation, TwoNodeFleetIsInconclusive) {
  // With two nodes there is no third party to retest against.
  SimFleet f{fleet(2, 1), {0}, {}, {}};
  const auto findings = f.isolate(PairMode::rail_aligned);
  ASSERT_TRUE(findings.empty() || findings[0].kind == "inconclusive");
}

} // namespace
} // namespace railgauge::rdma

namespace railgauge::rdma {
namespace {

// More than half the pairs bad: the fleet reference is in doubt and a finding says so.
TEST(Isolation, MostPairsBadIsAFleetFinding) {
  EXPECT_FALSE(fleet_finding(12, 6)); // half: still a reference
  EXPECT_FALSE(fleet_finding(1, 1));  // one pair is its own reference
  const auto f = fleet_finding(12, 10);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, "fleet");
  EXPECT_NE(f->text.find("10 of 12 pairs are bad"), std::string::npos) << f->text;
}

} // namespace
} // namespace railgauge::rdma
