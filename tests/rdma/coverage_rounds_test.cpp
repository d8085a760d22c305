// pairing by coverage (coverage_k > 0): the pair matrix's rounds from the coverage planner.
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>

#include "harness/error.h"
#include "harness/store/memory_store.h"
#include "rdma/coverage_rounds.h"
#include "rdma/matrix_ledger.h"

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

// The matrix's ledger: a first matrix over four hosts writes one line per NIC cable; a later
// matrix over eight hosts with cover_since plans only the four hosts' cables that no ledger saw
// lately, each at least k times, and pairs two fresh NICs never. Labels, not indices, carry the
// ledger from one matrix to the next.
TEST(CoverageRounds, CoverSincePlansOnlyTheCablesNoLedgerSawLately) {
  const std::vector<std::string> hosts = {"a", "b", "c", "d", "e", "f", "g", "h"};
  const auto first_eps =
      endpoints({hosts.begin(), hosts.begin() + 4}, std::vector<std::string>{"mlx5_0", "mlx5_1"});
  const auto first = coverage_rounds(first_eps, "", 2, 1);
  nlohmann::json metrics = {{"pairs", nlohmann::json::array()}};
  for (const auto &round : first.rounds)
    for (const auto &[a, b] : round)
      metrics["pairs"].push_back({{"endpoints", {a, b}}});
  const auto ledger =
      matrix_ledger_lines(matrix_topology(first_eps, ""), metrics, 1000.0, "rdma.pair_matrix");
  ASSERT_EQ(ledger.size(), first_eps.size());
  for (const auto &line : ledger) {
    EXPECT_EQ(line.flows, 2) << line.link; // k = 2: every cable in two pairs
    EXPECT_EQ(line.phase, "matrix");
    EXPECT_EQ(line.via, "rdma.pair_matrix");
  }

  const auto eps = endpoints(hosts, {"mlx5_0", "mlx5_1"});
  const auto later = coverage_rounds(eps, "", 2, 1, {true, 500.0, "30m", ledger});
  ASSERT_FALSE(later.rounds.empty());
  expect_matrix_rounds(eps, later.rounds);
  std::vector<int> played(eps.size(), 0);
  for (const auto &round : later.rounds)
    for (const auto &[a, b] : round) {
      EXPECT_TRUE(eps[a].node >= 4 || eps[b].node >= 4) << eps[a].label << " - " << eps[b].label;
      ++played[a], ++played[b];
    }
  for (std::size_t e = 8; e < eps.size(); ++e)
    EXPECT_GE(played[e], 2) << eps[e].label;
  EXPECT_NE(later.how.find("8 of 16 NIC cables exercised since then, 8 planned"), std::string::npos)
      << later.how;
  // The ledger older than the window: every cable is planned again.
  const auto stale = coverage_rounds(eps, "", 2, 1, {true, 2000.0, "30m", ledger});
  EXPECT_NE(stale.how.find("0 of 16 NIC cables"), std::string::npos) << stale.how;
  // Everything fresh: no rounds at all.
  const auto eps_first = coverage_rounds(first_eps, "", 2, 1, {true, 500.0, "30m", ledger});
  EXPECT_TRUE(eps_first.rounds.empty());
  EXPECT_NE(eps_first.how.find("no rounds"), std::string::npos) << eps_first.how;
}

// Rank 0 reads the ledgers of the runs beside its own and every rank gets the same lines.
TEST(CoverageRounds, EveryRankAgreesOnTheLedgerRankZeroRead) {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / ("rg_cover_" + std::to_string(::getpid()));
  fs::create_directories(out / "run1");
  fs::create_directories(out / "run2" / "rank-00000");
  fabric::append_ledger((out / "run1" / kLedgerFileName).string(),
                        {{"x/mlx5_0 - rail-0[x]", "nic_leaf", "matrix", 100.0, 0, 1, 0, ""}});
  fabric::append_ledger((out / "run2" / "rank-00000" / kLedgerFileName).string(),
                        {{"y/mlx5_0 - rail-0[y]", "nic_leaf", "matrix", 900.0, 0, 1, 0, ""},
                         {"x/mlx5_0 - rail-0[x]", "nic_leaf", "matrix", 950.0, 0, 1, 0, ""}});
  EXPECT_EQ(ledgers_beside((out / "run3" / "rank-00001").string()).size(), 2u);
  MemoryStore store;
  std::vector<CoverSince> got(2);
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      const std::string dir = (out / "run3" / fmt::format("rank-0000{}", r)).string();
      // Rank 1's clock is an hour off: rank 0's decides.
      got[r] = agree_cover_since("10m", dir, store, "k", r, Milliseconds(5000),
                                 r == 0 ? 1000.0 : 4600.0);
    });
  for (auto &t : ranks)
    t.join();
  fs::remove_all(out);
  for (const auto &since : got) {
    EXPECT_TRUE(since.active);
    EXPECT_EQ(since.since_s, 400.0);
    ASSERT_EQ(since.ledger.size(), 2u); // x's latest line and y's; x's line at 100 s left out
    EXPECT_EQ(since.ledger[0].time_s, 950.0);
  }
  EXPECT_THROW(agree_cover_since("soon", "", store, "k2", 0, Milliseconds(10), 0), InputError);
}

} // namespace
} // namespace railgauge::rdma
