// pairing by coverage (coverage_k > 0): the pair matrix's rounds from the coverage planner.
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "rdma/coverage_rounds.h"

namespace railgauge::rdma {
namespace {

std::vector<FabricEndpoint> endpoints(const std::vector<std::string> &hosts,
                                      const std::vector<std::string> &nics) {
  std::vector<FabricEndpoint> out;
  for (int n = 0; n < static_cast<int>(hosts.size()); ++n)
    for (int r = 0; r < static_cast<int>(nics.size()); ++r)
      out.push_back({n, r, hosts[n] + "/" + nics[r]});
  return out;
}

// Rounds fit for the matrix: pairs on one rail, a node meeting one other node a round.
void expect_matrix_rounds(const std::vector<FabricEndpoint> &eps,
                          const std::vector<Round> &rounds) {
  for (const auto &round : rounds) {
    std::map<int, int> partner;
    for (const auto &[a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_EQ(eps[a].rail, eps[b].rail);
      EXPECT_NE(eps[a].node, eps[b].node);
      for (const auto &[x, y] : {std::pair{eps[a].node, eps[b].node}, {eps[b].node, eps[a].node}})
        EXPECT_TRUE(partner.emplace(x, y).second || partner[x] == y);
    }
  }
}

TEST(CoverageRounds, WithoutATopologyEachRailIsALeafAndKRoundsCrossEveryNicKTimes) {
  const auto eps = endpoints({"a", "b", "c", "d", "e", "f"}, {"mlx5_0", "mlx5_1"});
  const auto c = coverage_rounds(eps, "", 2, 1);
  ASSERT_EQ(c.rounds.size(), 2u);
  expect_matrix_rounds(eps, c.rounds);
  std::vector<int> played(eps.size(), 0);
  for (const auto &round : c.rounds)
    for (const auto &[a, b] : round)
      ++played[a], ++played[b];
  for (int n : played)
    EXPECT_EQ(n, 2);
  EXPECT_TRUE(c.missing.empty());
}

TEST(CoverageRounds, WithATopologyTheNicsAreFoundByLabelAndTheMissingSaid) {
  const auto eps = endpoints({"gpu01", "gpu02", "gpu03", "gpu04"}, {"eth2", "eth3"});
  const auto c =
      coverage_rounds(eps, std::string(RAILGAUGE_TEST_FIXTURES) + "/rdma/topology/lldp", 2, 1);
  EXPECT_EQ(c.missing, std::vector<std::string>{"gpu04/eth3"}); // no neighbour in its table
  ASSERT_GE(c.rounds.size(), 2u);
  expect_matrix_rounds(eps, c.rounds);
  std::set<int> seen;
  for (const auto &round : c.rounds)
    for (const auto &[a, b] : round)
      seen.insert(a), seen.insert(b);
  EXPECT_EQ(seen.size(), eps.size() - 1);
  // One leaf a rail: rail-aligned pairs never climb, and the plan says so.
  EXPECT_NE(c.how.find("4 uplinks of leaves alone on their rail"), std::string::npos) << c.how;
}

} // namespace
} // namespace railgauge::rdma
