// The verbs pair matrix's endpoints (which NICs of which ranks, nodes and rails) from what every
// rank said about itself, and the matrix runner (pair_matrix_run.h) end to end with ranks as
// threads over an in-memory store and a synthetic fabric with one slow NIC.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <unistd.h>

#include "analysis/check/pair_isolation.h"
#include "harness/error.h"
#include "harness/measure.h"
#include "harness/store/memory_store.h"
#include "rdma/matrix_endpoints.h"
#include "rdma/pair_matrix_run.h"
#include "tests/support/thread_ranks.h"

namespace railgauge::rdma {
namespace {

RankNics nics(std::string host, std::vector<std::string> usable) {
  return {std::move(host), std::move(usable), ""};
}

TEST(NicMatrixPlan, AllNicsOfOneRankPerNodeAreRailsInNameOrder) {
  const auto plan =
      plan_nic_matrix({nics("a", {"mlx5_0", "mlx5_1"}), nics("b", {"mlx5_0", "mlx5_1"}),
                       nics("c", {"mlx5_0", "mlx5_1"})},
                      "all", false);
  ASSERT_FALSE(plan.waive) << *plan.waive;
  ASSERT_TRUE(plan.problems.empty());
  ASSERT_EQ(plan.eps.endpoints.size(), 6u);
  for (std::size_t e = 0; e < 6; ++e) {
    EXPECT_EQ(plan.eps.endpoints[e].node, static_cast<int>(e / 2));
    EXPECT_EQ(plan.eps.endpoints[e].rail, static_cast<int>(e % 2));
    EXPECT_EQ(plan.eps.owner_rank[e], static_cast<int>(e / 2));
    EXPECT_EQ(plan.device[e], e % 2 ? "mlx5_1" : "mlx5_0");
  }
  EXPECT_EQ(plan.eps.endpoints[3].label, "b/mlx5_1");
  // Rail-aligned: 3 rounds of node pairs, both rails in each.
  const auto rounds = fabric_rounds(plan.eps.endpoints, PairMode::rail_aligned);
  EXPECT_EQ(rounds.size(), 3u);
  for (const auto &r : rounds)
    EXPECT_EQ(r.size(), 2u);
}

TEST(NicMatrixPlan, LocalRankTakesTheNicAtTheRanksIndexOnItsHost) {
  const std::vector<std::string> two = {"mlx5_0", "mlx5_1"};
  const auto plan = plan_nic_matrix(
      {nics("a", two), nics("a", two), nics("b", two), nics("b", two)}, "local_rank", false);
  ASSERT_FALSE(plan.waive);
  ASSERT_TRUE(plan.problems.empty());
  ASSERT_EQ(plan.device, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_0", "mlx5_1"}));
  EXPECT_EQ(plan.eps.endpoints[1].node, 0);
  EXPECT_EQ(plan.eps.endpoints[1].rail, 1);
  EXPECT_EQ(plan.eps.endpoints[2].node, 1);
  EXPECT_EQ(plan.eps.endpoints[2].rail, 0);
  // A third rank on a host with two NICs has none left.
  const auto short_of_nics = plan_nic_matrix(
      {nics("a", two), nics("a", two), nics("a", two), nics("b", two)}, "local_rank", false);
  ASSERT_EQ(short_of_nics.problems.size(), 1u);
  EXPECT_NE(short_of_nics.problems[0].find("rank 2 (a): local rank 2 but only 2"),
            std::string::npos)
      << short_of_nics.problems[0];
}

TEST(NicMatrixPlan, TwoRanksClaimingOneNicIsAnInputErrorSayingWhatToUse) {
  try {
    plan_nic_matrix({nics("a", {"mlx5_0"}), nics("a", {"mlx5_0"}), nics("b", {"mlx5_0"})}, "all",
                    false);
    FAIL() << "no InputError";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("mlx5_0 on a is taken by ranks 0 and 1"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nics=local_rank"), std::string::npos) << e.what();
  }
  // Ranks that stand for nodes may share a device (Soft-RoCE in one VM).
  const auto shared = plan_nic_matrix({nics("vm", {"rxe0"}), nics("vm", {"rxe0"})}, "all", true);
  EXPECT_FALSE(shared.waive);
  EXPECT_EQ(shared.eps.endpoints.size(), 2u);
  EXPECT_EQ(shared.eps.endpoints[1].label, "rank 1 (vm)/rxe0");
}

TEST(NicMatrixPlan, RanksWithoutNicsAreNamedAndNoneAnywhereIsAWaiver) {
  RankNics lost = nics("c", {});
  lost.why_none = "no RDMA device (ibv_get_device_list found none)";
  const auto plan = plan_nic_matrix(
      {nics("a", {"mlx5_0"}), nics("b", {"mlx5_0"}), lost, nics("d", {"mlx5_1"})}, "mlx5_0", false);
  ASSERT_FALSE(plan.waive);
  ASSERT_EQ(plan.problems.size(), 2u);
  EXPECT_EQ(plan.problems[0], "rank 2 (c): no RDMA device (ibv_get_device_list found none)");
  EXPECT_EQ(plan.problems[1], "rank 3 (d): mlx5_0 is not usable here (usable: mlx5_1)");

  const auto none = plan_nic_matrix({lost, lost}, "all", false);
  ASSERT_TRUE(none.waive);
  EXPECT_NE(none.waive->find("no rank has a usable NIC"), std::string::npos) << *none.waive;
  EXPECT_TRUE(none.problems.empty());

  const auto one_node =
      plan_nic_matrix({nics("a", {"mlx5_0"}), nics("a", {"mlx5_1"})}, "all", false);
  ASSERT_TRUE(one_node.waive);
  EXPECT_NE(one_node.waive->find("all 2 ranks are on one node (a)"), std::string::npos)
      << *one_node.waive;
  EXPECT_THROW(plan_nic_matrix({nics("a", {"x"})}, ",,", false), InputError);
}

TEST(NicMatrixPlan, RankNicsRoundTripAndMalformedTextNamesTheRank) {
  const RankNics sent{"node7", {"mlx5_0", "mlx5_3"}, ""};
  const RankNics got = decode_rank_nics(encode_rank_nics(sent), 7);
  EXPECT_EQ(got.host, "node7");
  EXPECT_EQ(got.usable, sent.usable);
  for (const std::string text :
       {"", "[]", R"({"host": "a"})", R"({"host": "a", "why_none": "", "usable": [1]})",
        R"({"host": "a", "why_none": "", "usable": [""]})", R"({"host": 3, "why_none": ""})"}) {
    try {
      decode_rank_nics(text, 5);
      FAIL() << text;
    } catch (const BackendError &e) {
      EXPECT_NE(std::string(e.what()).find("rank 5 sent malformed NIC information"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(NicMatrixPlan, ActiveDevicesReadThePortStateFromSysfs) {
  namespace fs = std::filesystem;
  const fs::path root =
      fs::temp_directory_path() / ("railgauge_nics_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const auto state = [&](const std::string &dev, const std::string &text) {
    const fs::path f = root / "class/infiniband" / dev / "ports/1/state";
    fs::create_directories(f.parent_path());
    std::ofstream(f) << text << "\n";
  };
  state("mlx5_1", "4: ACTIVE");
  state("mlx5_0", "4: ACTIVE");
  state("mlx5_2", "1: DOWN");
  std::string why;
  EXPECT_EQ(active_devices(root.string(), {"mlx5_2", "mlx5_1", "mlx5_0"}, 1, why),
            (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  EXPECT_TRUE(active_devices(root.string(), {"mlx5_2", "mlx5_9"}, 1, why).empty());
  EXPECT_NE(why.find("mlx5_2 port 1: 1: DOWN"), std::string::npos) << why;
  EXPECT_NE(why.find("mlx5_9 port 1: no "), std::string::npos) << why;
  fs::remove_all(root);
}

// The runner end to end: 4 nodes x 2 rails as 4 ranks on threads, a synthetic fabric where
// node 2's rail 1 NIC is slow. Every pair is played once by both its owners, measured by the
// owner of its second endpoint, and the slow NIC is named after the retests.
TEST(PairMatrixRun, RanksAsThreadsFindTheSlowNicOfAFleet) {
  constexpr int kRanks = 4;
  MatrixEndpoints eps;
  for (int node = 0; node < kRanks; ++node)
    for (int rail = 0; rail < 2; ++rail) {
      eps.endpoints.push_back(
          {node, rail, "node" + std::to_string(node) + "/mlx5_" + std::to_string(rail)});
      eps.owner_rank.push_back(node);
      eps.host.push_back("node" + std::to_string(node));
      eps.device.push_back("mlx5_" + std::to_string(rail));
    }
  const int slow = 2 * 2 + 1;
  MemoryStore store;
  std::mutex mutex;
  std::map<std::pair<EndpointPair, bool>, int> played; // (pair, measuring) -> times
  const auto outs = testing::run_ranks_as_threads(
      kRanks, store, testing::brief_measure_spec(), [&](RunContext &ctx) {
        PairMatrixSpec spec;
        spec.prefix = "m/";
        spec.pair_timeout_s = 10;
        const auto side = [&](const EndpointPair &pair, bool measuring, const std::string &) {
          {
            std::lock_guard lock(mutex);
            ++played[{pair, measuring}];
            const auto mine = static_cast<std::size_t>(measuring ? pair.second : pair.first);
            EXPECT_EQ(eps.owner_rank[mine], ctx.rank());
          }
          const bool hits_slow = pair.first == slow || pair.second == slow;
          return PairResult{{}, hits_slow ? 9e-6 : 2e-6, hits_slow ? 200.0 : 390.0};
        };
        return run_pair_matrix(ctx, store, eps, spec, side);
      });
  // Rail-aligned: C(4,2) node pairs x 2 rails, each played once by each side.
  const auto rounds = fabric_rounds(eps.endpoints, PairMode::rail_aligned);
  std::set<EndpointPair> matrix;
  for (const auto &round : rounds)
    matrix.insert(round.begin(), round.end());
  EXPECT_EQ(matrix.size(), 12u);
  for (const auto &pair : matrix)
    for (bool measuring : {false, true})
      EXPECT_GE((played[{pair, measuring}]), 1) << pair.first << "-" << pair.second;
  const auto &m = outs[0].metrics;
  ASSERT_TRUE(m.contains("pairs")) << m.dump();
  EXPECT_EQ(m.at("pairs").size(), 12u);
  EXPECT_EQ(m.at("bad_pairs").size(), 3u); // the slow NIC against its rail on 3 nodes
  ASSERT_EQ(m.at("findings").size(), 1u) << m.at("findings").dump();
  EXPECT_EQ(m.at("findings")[0].at("kind"), "nic");
  EXPECT_EQ(m.at("findings")[0].at("labels")[0], "node2/mlx5_1");
  EXPECT_GE(m.at("retests").size(), 1u);
  for (int r = 1; r < kRanks; ++r)
    EXPECT_FALSE(outs[static_cast<std::size_t>(r)].metrics.contains("pairs"));
  // Each endpoint names its host and device, and check charges the named NIC to its own node,
  // not to rank 0's, which holds the record; every NIC of the matrix is judged.
  EXPECT_EQ(m.at("endpoints")[slow].at("host"), "node2");
  EXPECT_EQ(m.at("endpoints")[slow].at("device"), "mlx5_1");
  Record r;
  r.host = "node0";
  r.key = "rdma.pair_matrix";
  r.metrics = m;
  const auto judged = check::pair_isolation(
      r, "run-dir", {{"node0", "d0"}, {"node1", "d1"}, {"node2", "d2"}, {"node3", "d3"}});
  ASSERT_TRUE(judged.has_value());
  EXPECT_EQ(judged->tallies.size(), 8u);
  ASSERT_EQ(judged->findings.size(), 1u);
  const auto &[part, finding] = judged->findings[0];
  EXPECT_EQ(part, (check::PartKey{"node2", check::PartKind::nic, "mlx5_1"}));
  EXPECT_EQ(finding.level, check::Level::fail);
  EXPECT_FALSE(finding.missing);
  EXPECT_EQ(finding.run, "d2"); // filed in node2's own run
}

// A pair whose side throws, or measures no finite figure, is a bad pair carrying its error, not
// a failed matrix.
TEST(PairMatrixRun, AFailingPairIsABadPairWithItsError) {
  MatrixEndpoints eps;
  for (int node = 0; node < 3; ++node) {
    eps.endpoints.push_back({node, 0, "n" + std::to_string(node)});
    eps.owner_rank.push_back(node);
  }
  MemoryStore store;
  const auto outs =
      testing::run_ranks_as_threads(3, store, testing::brief_measure_spec(), [&](RunContext &ctx) {
        PairMatrixSpec spec;
        spec.prefix = "f/";
        spec.pair_timeout_s = 10;
        const auto side = [](const EndpointPair &pair, bool measuring,
                             const std::string &) -> PairResult {
          if (measuring && pair == EndpointPair{0, 1})
            throw BackendError("IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded)");
          if (measuring && pair == EndpointPair{1, 2}) // a zero median time: no figure
            return {{}, 2e-6, std::numeric_limits<double>::infinity()};
          return {{}, 2e-6, 390.0};
        };
        return run_pair_matrix(ctx, store, eps, spec, side);
      });
  const auto &m = outs[0].metrics;
  ASSERT_EQ(m.at("bad_pairs").size(), 2u) << m.dump();
  EXPECT_EQ(m.at("bad_pairs")[0].at("why"), "no result (the pair failed to run)");
  bool carried = false, infinite = false;
  for (const auto &p : m.at("pairs")) {
    carried |= p.value("error", "").find("RETRY_EXC") != std::string::npos;
    infinite |= p.value("error", "").find("bandwidth inf Gb/s") != std::string::npos;
  }
  EXPECT_TRUE(carried) << m.at("pairs").dump();
  EXPECT_TRUE(infinite) << m.at("pairs").dump();
}

} // namespace
} // namespace railgauge::rdma
