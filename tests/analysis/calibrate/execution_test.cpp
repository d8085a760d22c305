// Errors where they matter: the sizes Calculon's layer model asks for under one execution must be
// Calculon's own (checked layer by layer against `calculon llm -l` output kept as fixtures), and
// the held-out error read at them must be the interpolated, weighted one.
#include <cmath>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "analysis/calibrate/execution_error.h"
#include "analysis/calibrate/execution_sizes.h"

namespace railgauge::calibrate {
namespace {

const std::string kDir = std::string(RAILGAUGE_SOURCE_DIR) + "/tests/fixtures/calculon/";

nlohmann::json read(const std::string &name) {
  std::ifstream f(kDir + name);
  EXPECT_TRUE(f.good()) << name;
  return nlohmann::json::parse(f);
}

ExecutionSizes sizes_of(const std::string &model, const std::string &execution) {
  return execution_sizes(parse_calculon_model(read(model), model),
                         parse_calculon_execution(read(execution), execution));
}

// The one use of `target` named `what`; x = 0 when there is none.
SizeUse find(const ExecutionSizes &s, const std::string &target, const std::string &what) {
  SizeUse found;
  int n = 0;
  for (const auto &u : s.uses)
    if (u.target == target && u.what == what)
      found = u, ++n;
  EXPECT_LE(n, 1) << target << " " << what;
  return found;
}

double sum_of(const ExecutionSizes &s, const std::string &prefix, const std::string &suffix) {
  double sum = 0;
  for (const auto &u : s.uses)
    if (u.target == "network" && u.what.starts_with(prefix) && u.what.ends_with(suffix))
      sum += u.x;
  return sum;
}

const std::set<std::string> kGemms = {
    "AttnBlock_Query",          "AttnBlock_Key", "AttnBlock_Value", "AttnBlock_Multihead_Key_Query",
    "AttnBlock_Multihead_Attn", "AttnBlock_MLP", "MlpBlock_Mlp1",   "MlpBlock_Mlp2"};

// Every layer's FLOPs and bytes per stage, and the block's TP, PP and DP sizes, as Calculon
// computed them for the same model and execution.
void expect_calculon_sizes(const std::string &model, const std::string &execution,
                           const std::string &reference) {
  const auto s = sizes_of(model, execution);
  const auto ref = read(reference);
  ASSERT_EQ(ref["layers"].size(), 24u);
  for (const auto &l : ref["layers"]) {
    const std::string name = l["name"].get<std::string>();
    for (const char *stage : {"fw", "agrad", "wgrad"}) {
      const double flops = l[std::string(stage) + "_flops"].get<double>();
      // Calculon gives vector layers FLOPs too; only the GEMMs look up the matrix table.
      EXPECT_DOUBLE_EQ(find(s, "matrix", name + " " + stage).x, kGemms.count(name) ? flops : 0)
          << name << " " << stage;
      const double bytes = l[std::string(stage) + "_mem_accessed"].get<double>();
      EXPECT_DOUBLE_EQ(find(s, "mem1", name + " " + stage).x, bytes) << name << " " << stage;
    }
    EXPECT_DOUBLE_EQ(find(s, "mem1", name + " optimizer step").x,
                     l["optim_mem_accessed"].get<double>())
        << name;
  }
  for (const auto &layer : kGemms)
    EXPECT_GT(find(s, "matrix", layer + " fw").x, 0) << layer;
  const auto &b = ref["block"];
  for (const char *block : {"base", "edge"}) {
    const std::string prefix = std::string("(") + block + " block)";
    double fw = 0, bw = 0, re = 0;
    for (const auto &u : s.uses)
      if (u.target == "network" && u.what.starts_with("TP ") &&
          u.what.find(prefix) != std::string::npos) {
        (u.what.ends_with(" fw") ? fw : u.what.ends_with(" bw") ? bw : re) += u.x;
      }
    EXPECT_DOUBLE_EQ(fw, b[std::string(block) + "block_fw_tp_size"].get<double>()) << block;
    EXPECT_DOUBLE_EQ(bw, b[std::string(block) + "block_bw_tp_size"].get<double>()) << block;
    EXPECT_DOUBLE_EQ(re, b[std::string(block) + "block_recomm_size"].get<double>()) << block;
  }
  EXPECT_DOUBLE_EQ(sum_of(s, "PP", ""), b["block_fw_pp_size"].get<double>());
  for (const auto &u : s.uses)
    if (u.what.starts_with("DP")) {
      EXPECT_DOUBLE_EQ(u.x, b["block_dp_size"].get<double>()) << u.what;
    }
}

TEST(ExecutionSizes, Gpt3OnCalculonsExampleAskForCalculonsSizes) {
  expect_calculon_sizes("gpt3-175B.json", "3072_t4_p64_d12_mbs4_full.json",
                        "layers_gpt3-175B_3072_t4_p64_d12_mbs4_full.json");
}

TEST(ExecutionSizes, Megatron126MAllReduceAttnOnlyAskForCalculonsSizes) {
  expect_calculon_sizes("megatron-126M.json", "32_t8_p2_d2_mbs2_attn_only_ar.json",
                        "layers_megatron-126M_32_t8_p2_d2_mbs2_attn_only_ar.json");
}

TEST(ExecutionSizes, CallsPerBatchFollowBlocksMicrobatchesAndRecompute) {
  // gpt3-175B, 96 blocks over PP 64: 2 blocks on processor 0; 3072 / 12 / 4 = 64 microbatches;
  // full recompute runs every forward GEMM twice.
  const auto g = sizes_of("gpt3-175B.json", "3072_t4_p64_d12_mbs4_full.json");
  EXPECT_DOUBLE_EQ(find(g, "matrix", "AttnBlock_Query fw").calls, 256);
  EXPECT_DOUBLE_EQ(find(g, "matrix", "AttnBlock_Query agrad").calls, 128);
  int rs = 0, ag = 0, ar = 0;
  for (const auto &u : g.uses)
    if (u.target == "network" && u.network == 0) {
      EXPECT_EQ(u.peers, 4);
      rs += u.op == "reduce_scatter", ag += u.op == "all_gather", ar += u.op == "all_reduce";
    }
  EXPECT_EQ(ar, 0); // sequence parallelism: reduce_scatter and all_gather only
  EXPECT_GT(rs, 0);
  EXPECT_GT(ag, 0);
  // DP 12 with optimizer sharding on networks[1]: RS + AG of the block's weights, per block.
  EXPECT_DOUBLE_EQ(find(g, "network", "DP block gradients").calls, 2);
  EXPECT_EQ(find(g, "network", "DP block gradients").op, "reduce_scatter");
  EXPECT_EQ(find(g, "network", "DP block weights").peers, 12);
  EXPECT_DOUBLE_EQ(find(g, "network", "PP activations").calls, 128); // 64 × (fw + bw)

  // megatron-126M, 12 blocks over PP 2 in 2 chunks of 3; 16 / 2 / 2 = 4 microbatches: per
  // chunk 2 base blocks and 1 edge block; attention-only recompute.
  const auto m = sizes_of("megatron-126M.json", "32_t8_p2_d2_mbs2_attn_only_ar.json");
  EXPECT_DOUBLE_EQ(find(m, "matrix", "AttnBlock_Query fw").calls, 24);
  EXPECT_DOUBLE_EQ(find(m, "matrix", "AttnBlock_Multihead_Key_Query fw").calls, 48);
  const auto base = find(m, "network", "TP AttnBlock_F (base block) bw");
  EXPECT_EQ(base.op, "all_reduce");
  EXPECT_DOUBLE_EQ(base.calls, 16);
  EXPECT_DOUBLE_EQ(find(m, "network", "TP AttnBlock_F (edge block) bw").calls, 8);
  EXPECT_EQ(find(m, "network", "TP AttnBlock_F (base block) fw").x, 0); // the identity
  EXPECT_EQ(find(m, "network", "DP block gradients").op, "all_reduce");
  EXPECT_DOUBLE_EQ(find(m, "network", "DP block gradients").calls, 6);
  // Weight and optimizer offload: the block's weights forward, weights + optimizer backward.
  const auto off_fw = find(m, "mem2", "offload fw"), off_bw = find(m, "mem2", "offload bw");
  EXPECT_DOUBLE_EQ(off_fw.x, 1775616); // Calculon's block_dp_size: the block's fp16 weights
  EXPECT_GT(off_bw.x, off_fw.x);
  EXPECT_DOUBLE_EQ(off_fw.calls, 24);
}

TEST(ExecutionSizes, RefusesWhatItDoesNotModel) {
  auto e = read("3072_t4_p64_d12_mbs4_full.json");
  e["tensor_par_overlap"] = "ring";
  EXPECT_THROW(parse_calculon_execution(e, "x"), std::invalid_argument);
  e = read("3072_t4_p64_d12_mbs4_full.json");
  e["num_procs"] = 3000;
  EXPECT_THROW(parse_calculon_execution(e, "x"), std::invalid_argument);
  e = read("3072_t4_p64_d12_mbs4_full.json");
  e.erase("tensor_par");
  EXPECT_THROW(parse_calculon_execution(e, "x"), std::invalid_argument);
  auto m = read("gpt3-175B.json");
  m["hidden"] = 12290; // not a multiple of TP 4
  EXPECT_THROW(
      execution_sizes(parse_calculon_model(m, "m"),
                      parse_calculon_execution(read("3072_t4_p64_d12_mbs4_full.json"), "e")),
      std::invalid_argument);
}

TEST(ExecutionError, ReadsTheErrorBetweenMeasuredSizesInLogSize) {
  // Sizes 1e3 (two points, 0.1 and 0.3) and 1e5 (0.4): per size 0.2 and 0.4.
  const std::vector<PointError> pts = {{1e3, 0.1, ""}, {1e3, 0.3, ""}, {1e5, 0.4, ""}};
  const auto t = errors_by_size(pts);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_DOUBLE_EQ(t[0].mean_rel, 0.2);
  EXPECT_EQ(t[0].points, 2u);
  bool outside = true;
  EXPECT_NEAR(error_at(t, 1e4, &outside), 0.3, 1e-12); // half way in log size
  EXPECT_FALSE(outside);
  EXPECT_NEAR(error_at(t, 1e3 * std::pow(10, 0.5), &outside), 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(error_at(t, 1e7, &outside), 0.4);
  EXPECT_TRUE(outside);
  EXPECT_DOUBLE_EQ(error_at(t, 10, &outside), 0.2);
  EXPECT_TRUE(outside);
  const auto plain = per_size_json(pts);
  EXPECT_NEAR(plain["mean_rel"].get<double>(), 0.3, 1e-12); // each size once, not 0.8/3
  EXPECT_EQ(plain["sizes"].get<int>(), 2);
}

TEST(ExecutionError, WeightsBySizeTimeAndCallsAndSaysWhatLiesOutside) {
  const std::vector<PointError> pts = {{1e3, 0.1, ""}, {1e5, 0.5, ""}};
  // 1 call of 9 s at 1e3 (0.1), 1 call of 1 s at 1e6 (outside: 0.5).
  const std::vector<SizeUse> uses = {{"mem1", 1e3, 1, -1, "", 0, "a"},
                                     {"mem1", 1e6, 1, -1, "", 0, "b"}};
  const auto e = execution_error(
      pts, uses, [](const SizeUse &u) { return u.x < 1e4 ? 9.0 : 1.0; },
      [](const SizeUse &) { return std::string(); });
  EXPECT_NEAR(*e.weighted, 0.9 * 0.1 + 0.1 * 0.5, 1e-12);
  EXPECT_NEAR(*e.by_calls, 0.3, 1e-12);
  EXPECT_NEAR(e.share_outside, 0.1, 1e-12);
  EXPECT_EQ(e.asked, 2u);
  EXPECT_DOUBLE_EQ(e.asked_min, 1e3);
  EXPECT_DOUBLE_EQ(e.asked_max, 1e6);
}

TEST(ExecutionError, ANetworkOpIsReadFromItsOwnPointsAndAnUnmeasuredOpIsSaid) {
  // all_gather points err 0.1, reduce_scatter 0.5 at the same sizes.
  const std::vector<PointError> pts = {{1e6, 0.1, "all_gather"},
                                       {1e8, 0.1, "all_gather"},
                                       {1e6, 0.5, "reduce_scatter"},
                                       {1e8, 0.5, "reduce_scatter"}};
  std::vector<SizeUse> uses = {{"network", 1e7, 4, 0, "all_gather", 4, "TP"},
                               {"network", 1e7, 1, 0, "p2p", 2, "PP"}};
  const auto e = execution_error(
      pts, uses, [](const SizeUse &) { return 1.0; }, [](const SizeUse &u) { return u.op; });
  EXPECT_NEAR(*e.weighted, 0.1, 1e-12);
  EXPECT_NEAR(e.share_unmeasured, 0.2, 1e-12); // p2p: 1 of 5 s
  uses[0].op = "reduce_scatter";
  const auto r = execution_error(
      pts, uses, [](const SizeUse &) { return 1.0; }, [](const SizeUse &u) { return u.op; });
  EXPECT_NEAR(*r.weighted, 0.5, 1e-12);
}

} // namespace
} // namespace railgauge::calibrate
