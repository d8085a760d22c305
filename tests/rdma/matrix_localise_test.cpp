// `railgauge fabric localise`'s core: measured pairs placed on a real topology (NetQ's 8 DGX,
// 2 leaves, 1 spine), the suspect named, and a pair matrix record's pairs read.
#include <gtest/gtest.h>

#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"
#include "rdma/matrix_localise.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

const std::string kNetq =
    std::string(RAILGAUGE_TEST_FIXTURES) +
    "/rdma/topology/corpus/topograph_netq_topologyGraph_8dgx_2leaf_1spine.json";

// Every rail-aligned pair of hosts, at 390 Gb/s give or take 1%, but for the pairs through
// `bad` (host/nic), which run at 200.
std::vector<MeasuredPair> all_pairs(const fabric::Topology &t, const std::string &bad) {
  std::vector<MeasuredPair> pairs;
  int n = 0;
  for (int r = 0; r < t.rails; ++r)
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
      for (std::size_t j = i + 1; j < t.nodes.size(); ++j) {
        const auto a = t.nodes[i] + "/" + t.nics[i][r], b = t.nodes[j] + "/" + t.nics[j][r];
        const double bw = a == bad || b == bad ? 200 : 390 * (1 + 0.01 * ((n++ % 5) - 2) / 2);
        pairs.push_back({a, b, bw, ""});
      }
  return pairs;
}

TEST(MatrixLocalise, TheNicWhosePairsAreAllSlowIsNamed) {
  const auto t = fabric::load_topology(kNetq);
  const auto bad = t.nodes[2] + "/" + t.nics[2][1];
  const auto r = localise_pairs(all_pairs(t, bad), kNetq);
  EXPECT_EQ(r.pairs, r.pairs_placed);
  ASSERT_EQ(r.verdict.named.size(), 1u);
  const auto &named = r.topology.links[r.verdict.named[0].link];
  EXPECT_EQ(named.kind, fabric::LinkKind::nic_leaf);
  EXPECT_EQ(named.label.rfind(bad + " - ", 0), 0u) << named.label;
  EXPECT_EQ(r.verdict.named[0].bad, 7); // its seven partners
}

TEST(MatrixLocalise, AHealthyMatrixNamesNothingAndAPairOffTheTopologyIsSaid) {
  const auto t = fabric::load_topology(kNetq);
  auto pairs = all_pairs(t, "");
  pairs.push_back({"elsewhere/mlx5_0", t.nodes[0] + "/" + t.nics[0][0], 390, ""});
  const auto r = localise_pairs(pairs, kNetq);
  EXPECT_TRUE(r.verdict.named.empty());
  EXPECT_EQ(r.pairs_placed + 1, r.pairs);
  EXPECT_EQ(r.missing, std::vector<std::string>{"elsewhere/mlx5_0"});
}

TEST(MatrixLocalise, AMatrixRecordsPairsAreReadWithTheirErrors) {
  namespace rec = record;
  const nlohmann::json metrics = {
      {rec::kEndpoints,
       {{{rec::kMatrixEndpoint, 0}, {rec::kMatrixLabel, "a/mlx5_0"}},
        {{rec::kMatrixEndpoint, 1}, {rec::kMatrixLabel, "b/mlx5_0"}}}},
      {rec::kPairs,
       {{{rec::kMatrixEndpoints, {0, 1}}, {rec::kBandwidthGbitsPerS, 390.0}},
        {{rec::kMatrixEndpoints, {0, 1}},
         {rec::kBandwidthGbitsPerS, 0.0},
         {rec::kMatrixError, "timed out"}}}}};
  const auto pairs = matrix_pairs(metrics, "run");
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].a, "a/mlx5_0");
  EXPECT_DOUBLE_EQ(pairs[0].bandwidth_gbits_per_s, 390);
  EXPECT_EQ(pairs[1].error, "timed out");
  EXPECT_THROW(matrix_pairs(nlohmann::json::object(), "run"), InputError);
}

} // namespace
} // namespace railgauge::rdma
