// A pair matrix with a topology file (-a coverage_k=K -a topology=PATH): its endpoints are found
// in the topology by host and NIC across naming schemes, with the mapping said, or the point
// fails; a matrix that plans no pair is never `ok`. Before, the TCP matrix's endpoints
// ("rank 0 (vm)") were looked up by label among the topology's "host/nic" and none was found:
// 0 rounds, an `ok` record, exit 0.
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/store/memory_store.h"
#include "rdma/coverage_rounds.h"
#include "rdma/pair_matrix_run.h"
#include "tests/reliability/temp_dir.h"
#include "tests/support/thread_ranks.h"

namespace railgauge::rdma {
namespace {

const std::string kLldp = std::string(RAILGAUGE_TEST_FIXTURES) + "/rdma/topology/lldp";

// The TCP matrix's endpoints: one a rank, named by rank and host.
std::vector<FabricEndpoint> tcp_endpoints(const std::vector<std::string> &hosts) {
  std::vector<FabricEndpoint> eps;
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r)
    eps.push_back({r, 0, fmt::format("rank {} ({})", r, hosts[r])});
  return eps;
}

// Every endpoint in some pair of the rounds.
std::set<int> played(const std::vector<Round> &rounds) {
  std::set<int> seen;
  for (const auto &round : rounds)
    for (const auto &[a, b] : round)
      seen.insert(a), seen.insert(b);
  return seen;
}

TEST(MatrixTopology, TcpRanksAreTheirHostsNicsInRankOrderAndTheMappingIsSaid) {
  const auto eps = tcp_endpoints({"gpu01", "gpu02", "gpu03", "gpu04"});
  const auto c = coverage_rounds(eps, kLldp, 2, 1);
  EXPECT_TRUE(c.missing.empty());
  ASSERT_FALSE(c.rounds.empty()) << c.how;
  EXPECT_EQ(played(c.rounds), (std::set<int>{0, 1, 2, 3})) << c.how;
  EXPECT_NE(c.how.find("NICs by rail order, their names differing, on 4 host(s) (e.g. gpu01: "
                       "eth2 = rank 0 (gpu01))"),
            std::string::npos)
      << c.how;
}

// ibnetdiscover names a host's NICs by its NodeDescription (HCA-1), verbs by device (mlx5_0); a
// host may be fully qualified on one side.
TEST(MatrixTopology, VerbsNamesThatDifferAreMatchedByRailOrderWhenTheCountsAgree) {
  testing::TempDir dir("matrix_topology");
  const std::string path = dir.path() + "/fabric.yaml";
  {
    std::ofstream yaml(path);
    yaml << "nodes:\n";
    for (const char *node : {"node01", "node02", "node03", "node04"})
      yaml << "  " << node << ":\n    - {nic: HCA-1, leaf: leaf-r0}\n"
           << "    - {nic: HCA-2, leaf: leaf-r1}\n";
  }
  std::vector<FabricEndpoint> eps;
  int node = 0;
  for (const char *host : {"node01", "node02.cluster.local", "node03"}) {
    // mlx5_10 before mlx5_2 in the matrix's name order; rail order puts mlx5_2 first.
    eps.push_back({node, 0, fmt::format("{}/mlx5_10", host)});
    eps.push_back({node++, 1, fmt::format("{}/mlx5_2", host)});
  }
  eps.push_back({node, 0, "node04/mlx5_0"}); // one NIC where the topology has two: not guessed
  const auto m = matrix_topology(eps, path);
  EXPECT_EQ(m.missing, std::vector<std::string>{"node04/mlx5_0"});
  EXPECT_NE(m.mapping.find("hosts by their short name on 1 host(s) (e.g. node02.cluster.local = "
                           "node02)"),
            std::string::npos)
      << m.mapping;
  EXPECT_NE(m.mapping.find("NICs by rail order, their names differing, on 3 host(s) (e.g. "
                           "node01: HCA-1 = node01/mlx5_2, HCA-2 = node01/mlx5_10)"),
            std::string::npos)
      << m.mapping;
  EXPECT_EQ(m.to_matrix[m.topology.endpoint(1, 0)], 3); // node02's HCA-1: its mlx5_2
  const auto c = coverage_rounds(eps, path, 2, 1);
  EXPECT_EQ(played(c.rounds), (std::set<int>{0, 1, 2, 3, 4, 5})) << c.how;
}

TEST(MatrixTopology, ATopologyOfOtherHostsIsAnInputErrorNamingBothSides) {
  const auto eps = tcp_endpoints({"vm1", "vm2", "vm3"});
  try {
    matrix_topology(eps, kLldp);
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), kLldp);
    EXPECT_NE(e.problem().find("holds 0 of the matrix's 3 endpoints, on 0 node(s): no pair to "
                               "plan (the matrix's hosts: vm1, vm2, vm3; the topology's: gpu01, "
                               "gpu02, gpu03 (of 4))"),
              std::string::npos)
        << e.what();
  }
}

// run_pair_matrix on four ranks as threads, each pair "measured" at once.
std::vector<Outcome> run_matrix(const std::vector<FabricEndpoint> &endpoints,
                                const PairMatrixSpec &spec) {
  MemoryStore store;
  MatrixEndpoints eps{endpoints, {}};
  for (int r = 0; r < static_cast<int>(endpoints.size()); ++r)
    eps.owner_rank.push_back(r);
  const PairSideFn side = [](const EndpointPair &pair, bool, const std::string &) {
    return PairResult{pair, 2e-6, 100.0};
  };
  return testing::run_ranks_as_threads(
      static_cast<int>(endpoints.size()), store, testing::brief_measure_spec(),
      [&](RunContext &ctx) { return run_pair_matrix(ctx, store, eps, spec, side); });
}

PairMatrixSpec coverage_spec(const std::string &topology) {
  PairMatrixSpec spec;
  spec.prefix = "m/";
  spec.pair_timeout_s = 10;
  spec.coverage_k = 2;
  spec.topology = topology;
  return spec;
}

TEST(MatrixTopology, AMatrixWithATopologyPlaysItsPairsOrFailsOnEveryRank) {
  const auto ok =
      run_matrix(tcp_endpoints({"gpu01", "gpu02", "gpu03", "gpu04"}), coverage_spec(kLldp));
  ASSERT_EQ(ok[0].status, Status::ok) << ok[0].reason.value_or("");
  EXPECT_GE(ok[0].metrics.at("rounds").get<int>(), 1);
  EXPECT_FALSE(ok[0].metrics.at("pairs").empty());

  const auto other = run_matrix(tcp_endpoints({"vm1", "vm2", "vm3"}), coverage_spec(kLldp));
  for (const auto &o : other) {
    EXPECT_EQ(o.status, Status::error);
    EXPECT_NE(o.reason.value_or("").find(kLldp + ": the topology holds 0 of the matrix's 3"),
              std::string::npos)
        << o.reason.value_or("");
  }
}

// cover_since with every cable fresh plans nothing: waived with the plan's account, not `ok`.
TEST(MatrixTopology, AMatrixOfNoRoundsIsNeverOk) {
  std::vector<FabricEndpoint> eps;
  std::vector<records::LedgerLine> ledger;
  for (int n = 0; n < 3; ++n) {
    const std::string host = fmt::format("h{}", n);
    eps.push_back({n, 0, host + "/mlx5_0"});
    ledger.push_back({fmt::format("{}/mlx5_0 - rail-0[{}]", host, host), "nic_leaf", "matrix",
                      900.0, 0, 1, 0, ""});
  }
  auto spec = coverage_spec("");
  spec.cover_since = {true, 500.0, "30m", ledger};
  const auto outs = run_matrix(eps, spec);
  for (const auto &o : outs) {
    EXPECT_EQ(o.status, Status::waived);
    EXPECT_NE(o.reason.value_or("").find("nothing to cover: cover_since 30m: 3 of 3 NIC cables "
                                         "exercised since then, 0 planned; no rounds"),
              std::string::npos)
        << o.reason.value_or("");
  }
}

} // namespace
} // namespace railgauge::rdma
