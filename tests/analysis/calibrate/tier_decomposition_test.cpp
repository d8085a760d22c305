// The scale-out tier taken apart: synthetic two-level runs with known intra-node and per-GPU
// fabric rates, timed as NCCL's pipelined ring runs them (the slower hop sets the rate; the
// latency is NCCL's intra- and inter-node steps), must give back those rates.
#include <algorithm>
#include <random>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/fit_report.h"
#include "analysis/calibrate/tier_decomposition.h"

namespace railgauge::calibrate {
namespace {

using analysis::LoadedRun;
using analysis::RunSet;

// The known tiers of one synthetic cluster.
struct Cluster {
  int gpus_per_node = 8;
  double nvlink_bytes_per_s = 360e9; // one GPU's NVLink rate (a one-node ring's busbw)
  double fabric_bytes_per_s = 45e9;  // one GPU's share of its node's NICs
  double intra_step_s = 1e-6;        // NCCL's intraLat
  double inter_step_s = 6e-6;        // NCCL's interLat
  double noise = 0.005;
};

// One call of `op` on `nodes` nodes, as the pipelined ring takes it.
double ring_time_s(const Cluster &k, const std::string &op, double size, int nodes) {
  const int ranks = nodes * k.gpus_per_node;
  const auto h = *hop_bytes_per_gpu(op, size, ranks, nodes);
  const int steps = ring_steps(op, ranks), inter = inter_node_steps(op, nodes);
  const double latency = (steps - inter) * k.intra_step_s + inter * k.inter_step_s;
  return latency + std::max(h.fabric / k.fabric_bytes_per_s, h.nvlink / k.nvlink_bytes_per_s);
}

// A run of `nodes` nodes as the nccl-tests import writes it: one record per point with the group's
// size and its host count.
LoadedRun ring_run(const Cluster &k, const std::string &op, int nodes, std::mt19937_64 &rng) {
  std::normal_distribution<double> err(0.0, k.noise);
  LoadedRun run;
  run.dir = fmt::format("runs/{}node", nodes);
  const int ranks = nodes * k.gpus_per_node;
  for (double size = 64 * 1024; size <= 4.0 * (1 << 30); size *= 4) {
    Record r;
    r.run = fmt::format("{}node", nodes);
    r.host = nodes == 1 ? "node0" : "node0+node1";
    r.key = "collectives.nccl_" + op;
    r.params = {{"size_bytes", size},
                {"group_size", ranks},
                {"world_size", ranks},
                {"group_hosts", nodes},
                {"source", "nccl-tests"}};
    r.metrics = {{"wall_time_s", ring_time_s(k, op, size, nodes) * (1 + err(rng))}};
    run.records.push_back(r);
  }
  return run;
}

RunSet cluster_runs(const Cluster &k, const std::vector<int> &node_counts,
                    const std::string &op = "all_reduce") {
  std::mt19937_64 rng(11);
  RunSet set;
  for (int n : node_counts)
    set.runs.push_back(ring_run(k, op, n, rng));
  return set;
}

bool has_note(const Calibration &c, const std::string &text) {
  return std::any_of(c.notes.begin(), c.notes.end(),
                     [&](const std::string &n) { return n.find(text) != std::string::npos; });
}

TEST(HopBytes, TheRingSendsANodesBusBytesThroughItsNics) {
  // 4 nodes × 8 GPUs: an all_reduce's bus bytes 2·31/32·S; 1/8 over the fabric, 7/8 NVLink.
  const auto ar = *hop_bytes_per_gpu("all_reduce", 32.0, 32, 4);
  EXPECT_DOUBLE_EQ(ar.fabric, 2.0 * 31 / 8);
  EXPECT_DOUBLE_EQ(ar.nvlink, 2.0 * 31 * 7 / 8);
  const auto ag = *hop_bytes_per_gpu("all_gather", 32.0, 32, 4);
  EXPECT_DOUBLE_EQ(ag.fabric, 31.0 / 8);
  // One node: the ring never leaves it.
  EXPECT_DOUBLE_EQ(hop_bytes_per_gpu("all_reduce", 8.0, 8, 1)->fabric, 0);
  // alltoall: S/N to each rank, 24 of 32 of them on other nodes, 7 on this one.
  const auto a2a = *hop_bytes_per_gpu("alltoall", 32.0, 32, 4);
  EXPECT_DOUBLE_EQ(a2a.fabric, 24);
  EXPECT_DOUBLE_EQ(a2a.nvlink, 7);
  EXPECT_DOUBLE_EQ(hop_bytes_per_gpu("p2p", 5.0, 16, 2)->fabric, 5);
  // Not whole nodes, or an op that is not modelled.
  EXPECT_FALSE(hop_bytes_per_gpu("all_reduce", 8.0, 12, 8));
  EXPECT_FALSE(hop_bytes_per_gpu("broadcast", 8.0, 16, 2));
  // NCCL's step counts (src/graph/tuning.cc).
  EXPECT_EQ(ring_steps("all_reduce", 32), 62);
  EXPECT_EQ(inter_node_steps("all_reduce", 4), 6);
  EXPECT_EQ(ring_steps("reduce_scatter", 32), 31);
  EXPECT_EQ(inter_node_steps("all_gather", 4), 3);
  EXPECT_EQ(inter_node_steps("all_reduce", 1), 0);
}

TEST(TierDecomposition, RecoversTheKnownTiersOfATwoLevelRun) {
  const Cluster k;
  const Calibration c = calibrate(cluster_runs(k, {1, 4}), Assumptions{}, {});
  const NetworkTier &out = c.networks.at(1);
  ASSERT_TRUE(out.measured);
  ASSERT_TRUE(out.decomposition.has_value());
  const auto &d = *out.decomposition;
  EXPECT_EQ(d.nodes, 4);
  EXPECT_EQ(d.gpus_per_node, 8);
  EXPECT_EQ(d.runs, std::vector<std::string>{"4node"});
  // The run's busbw is the node's 8 NICs together; Calculon's tier gets one GPU's share.
  EXPECT_NEAR(d.bus_gbytes_per_s / 360, 1.0, 0.02);
  EXPECT_NEAR(out.bandwidth_gbytes_per_s.value * out.efficiency.value / 45, 1.0, 0.02);
  EXPECT_TRUE(out.bandwidth_gbytes_per_s.measured);
  // The node's tier from the one-node run in the same set, and checked against it.
  EXPECT_TRUE(d.intra.measured);
  EXPECT_NE(d.intra.source.find("one node of 8 ranks"), std::string::npos) << d.intra.source;
  EXPECT_NEAR(d.intra.bus_gbytes_per_s / 360, 1.0, 0.02);
  EXPECT_NEAR(d.nvlink_load, 7 * 45.0 / 360, 0.03);
  EXPECT_TRUE(d.fabric_bound);
  // Latency: the 56 intra-node steps at 1 µs come off the 92 µs; the 6 inter-node steps at
  // 6 µs stay.
  EXPECT_TRUE(d.latency_split);
  EXPECT_NEAR(d.intra.step_latency_s / 1e-6, 1.0, 0.15);
  EXPECT_NEAR(out.latency_s.value / 36e-6, 1.0, 0.15);
  EXPECT_TRUE(has_note(c, "taken apart (NCCL ring over 4 nodes × 8 GPUs, runs: 4node)"));

  // The fit report says it: which runs, which intra-node figure.
  const auto report = fit_report_json(c);
  ASSERT_EQ(report["decomposed_tiers"].size(), 1u);
  const auto &r = report["decomposed_tiers"][0];
  EXPECT_EQ(r["runs"], nlohmann::json::array({"4node"}));
  EXPECT_EQ(r["intra_node"]["op"], "all_reduce");
  EXPECT_NE(fit_report_markdown(report).find("## Network tiers taken apart"), std::string::npos);
}

TEST(TierDecomposition, NodeCountsTogetherGiveOneFabricRate) {
  // 2, 4 and 8 nodes: their busbw differ ((N-1)/N), their per-GPU fabric rate is one.
  const Cluster k;
  const Calibration c = calibrate(cluster_runs(k, {1, 2, 4, 8}), Assumptions{}, {});
  const NetworkTier &out = c.networks.at(1);
  ASSERT_TRUE(out.decomposition.has_value());
  EXPECT_EQ(out.decomposition->nodes, 8);
  EXPECT_NEAR(out.bandwidth_gbytes_per_s.value * out.efficiency.value / 45, 1.0, 0.03);
}

TEST(TierDecomposition, AllGatherIsTakenApartLikeAllReduce) {
  const Cluster k;
  const Calibration c = calibrate(cluster_runs(k, {1, 4}, "all_gather"), Assumptions{}, {});
  const NetworkTier &out = c.networks.at(1);
  ASSERT_TRUE(out.decomposition.has_value());
  EXPECT_EQ(out.decomposition->op, "all_gather");
  EXPECT_NEAR(out.bandwidth_gbytes_per_s.value / 45, 1.0, 0.02);
  EXPECT_NEAR(out.latency_s.value / (3 * 6e-6), 1.0, 0.2); // 3 inter-node steps
}

TEST(TierDecomposition, ARunBoundInsideTheNodeIsSaidNotFabricBound) {
  // NVLink at 200 GB/s: the ring's 7/8 of the bus bytes on NVLink take longer than the 1/8
  // through each GPU's 45 GB/s of NICs. The per-GPU figure is then NVLink's, and is said so.
  Cluster k;
  k.nvlink_bytes_per_s = 200e9;
  const Calibration c = calibrate(cluster_runs(k, {1, 4}), Assumptions{}, {});
  const auto &d = *c.networks.at(1).decomposition;
  EXPECT_NEAR(d.fabric_gbytes_per_s_per_gpu / (200.0 / 7), 1.0, 0.03);
  EXPECT_GE(d.nvlink_load, kNvlinkBoundLoad);
  EXPECT_FALSE(d.fabric_bound);
  EXPECT_TRUE(has_note(c, "is not the fabric's rate"));
}

TEST(TierDecomposition, AGivenIntraNodeFigureIsUsedAndLabelled) {
  // No one-node run: the node's tier is the given one, and the fabric rate is still found.
  const Cluster k;
  const auto given = Assumptions::parse({"networks.0.bandwidth=360", "networks.0.efficiency=1"});
  const Calibration c = calibrate(cluster_runs(k, {4}), given, {});
  const auto &d = *c.networks.at(1).decomposition;
  EXPECT_FALSE(d.intra.measured);
  EXPECT_NE(d.intra.source.find("--assume"), std::string::npos) << d.intra.source;
  EXPECT_DOUBLE_EQ(d.intra.bus_gbytes_per_s, 360);
  EXPECT_NEAR(d.fabric_gbytes_per_s_per_gpu / 45, 1.0, 0.02);
  EXPECT_NEAR(d.nvlink_load, 7 * 45.0 / 360, 0.03);
}

TEST(TierDecomposition, TwoNodesOfAllReduceAlsoGiveTheNvlsTreeReading) {
  // The ring's 2·15/16 S/8 per GPU against the NVLS tree's S/8: 45 GB/s read as 45·16/30.
  const Cluster k;
  const Calibration c = calibrate(cluster_runs(k, {1, 2}), Assumptions{}, {});
  const auto &d = *c.networks.at(1).decomposition;
  EXPECT_NEAR(d.fabric_gbytes_per_s_per_gpu / 45, 1.0, 0.02);
  EXPECT_DOUBLE_EQ(d.nvls_tree_gbytes_per_s_per_gpu, d.fabric_gbytes_per_s_per_gpu * 16 / 30);
  EXPECT_TRUE(has_note(c, "may run NCCL's NVLS tree"));
  // On more nodes the tree and the ring send alike: no second reading.
  EXPECT_EQ(calibrate(cluster_runs(k, {1, 4}), Assumptions{}, {})
                .networks.at(1)
                .decomposition->nvls_tree_gbytes_per_s_per_gpu,
            0);
}

TEST(TierDecomposition, OneGpuPerNodeIsNotTakenApart) {
  Cluster k;
  k.gpus_per_node = 1;
  const Calibration c = calibrate(cluster_runs(k, {4}), Assumptions{}, {});
  EXPECT_TRUE(c.networks.at(1).measured);
  EXPECT_FALSE(c.networks.at(1).decomposition.has_value());
  EXPECT_NEAR(c.networks.at(1).bandwidth_gbytes_per_s.value / 45, 1.0, 0.02);
}

} // namespace
} // namespace railgauge::calibrate
