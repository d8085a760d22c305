// A calibration over synthetic records of every family: what it fits, what it assumes (and
// says so), and the sizes an execution reads it at; and calibrations of committed real runs.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <tuple>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "analysis/calibrate/astra_network.h"
#include "analysis/calibrate/calculon_system.h"
#include "analysis/calibrate/calibration.h"
#include "analysis/calibrate/coefficient_file.h"
#include "analysis/calibrate/execution_sizes.h"
#include "analysis/calibrate/fit_report.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "tests/analysis/calibrate/synthetic_runs.h"
#include "tests/support/reference_run_dirs.h"

namespace railgauge::calibrate {
namespace {

using namespace synthetic;

TEST(Calibrate, RecoversEveryFamilyFromSyntheticRecords) {
  const Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  // mem1 from HBM, in bytes: the three steps of the curve.
  EXPECT_EQ(c.mem1_tier, "hbm");
  EXPECT_TRUE(c.mem1.measured);
  EXPECT_NEAR(c.mem1.table.efficiency(1e9) / c.mem1.table.efficiency(1e4), 0.95 / 0.3, 0.1);
  // The matrix table holds the COMPUTE efficiency: the memory term was taken out.
  ASSERT_TRUE(c.matrix.count("bfloat16"));
  const auto &m = c.matrix.at("bfloat16");
  EXPECT_EQ(m.peak.value, kPeakTflops);
  EXPECT_NEAR(m.table.efficiency(1e12), std::min(m.max_efficiency, 0.84), 1e-9);
  EXPECT_NEAR(m.table.efficiency(2e9), 0.40, 0.03);
  ASSERT_TRUE(m.quality.held_out.has_value());
  EXPECT_LT(m.quality.held_out->mean_rel, 0.04);

  const auto &up = tier(c, kScaleUp);
  const auto &out = tier(c, kScaleOut);
  EXPECT_TRUE(up.measured);
  EXPECT_TRUE(out.measured);
  EXPECT_NEAR(up.latency_s.value / 12e-6, 1.0, 0.05);
  EXPECT_NEAR(out.latency_s.value / 30e-6, 1.0, 0.05);
  EXPECT_NEAR(up.bandwidth_gbytes_per_s.value * up.efficiency.value / 360, 1.0, 0.03);
  EXPECT_NEAR(out.bandwidth_gbytes_per_s.value * out.efficiency.value / 45, 1.0, 0.03);
  EXPECT_NEAR(up.calculon_ops.at("all_reduce").first, 2.0, 0.05);
  EXPECT_NEAR(up.calculon_ops.at("all_gather").first, 1.0, 0.05);
  EXPECT_FALSE(up.calculon_ops.at("p2p").second.has_value());
  EXPECT_EQ(up.size.value, 8);
  EXPECT_EQ(out.size.value, 2);
  EXPECT_FALSE(out.decomposition.has_value()); // one GPU per node: nothing to take apart
  EXPECT_TRUE(up.must_be_filled);
  EXPECT_FALSE(out.must_be_filled);
  EXPECT_NEAR(up.processor_usage.value, 0.2, 1e-9); // 1 - 1/1.25
  EXPECT_TRUE(up.processor_usage.measured);
  EXPECT_FALSE(out.processor_usage.measured);
  ASSERT_TRUE(up.joint_quality && up.joint_quality->held_out);
  EXPECT_LT(up.joint_quality->held_out->mean_rel, 0.03);
  // The waived record and the textbook algorithm are counted, not fitted.
  EXPECT_EQ(c.samples.ignored_status.at("waived"), 1);
  EXPECT_EQ(c.samples.skipped.size(), 1u);
  // Every point once: 4 ops × 11 sizes per tier, the other ranks' records counted as duplicates.
  EXPECT_EQ(c.samples.collectives.size(), 2u * 4 * 11);
  EXPECT_EQ(c.samples.duplicates_by_key.at("collectives.nccl_all_reduce"), (7 + 1) * 11);

  ASSERT_EQ(c.offload.size(), 2u);
  EXPECT_EQ(c.offload[0].name(), "d2h.pinned.near");
  EXPECT_NEAR(c.offload[0].fit.beta_s_per_byte * 50e9, 1.0, 0.03);
  EXPECT_TRUE(c.mem2.measured);
  ASSERT_EQ(c.p2p.size(), 1u);
  EXPECT_NEAR(c.p2p[0].fit.alpha_s / 2e-6, 1.0, 0.05);
  EXPECT_NEAR(c.p2p[0].fit.beta_s_per_byte * 45e9, 1.0, 0.05);
}

TEST(Calibrate, CalculonFileObeysEveryRule) {
  const Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  const auto s = calculon_system(c);
  EXPECT_EQ(calculon_problems(s), std::vector<std::string>{});
  // Units: GFLOP thresholds for the matrix, MB for memory, GB/s, seconds.
  const auto &rows = s["matrix"]["bfloat16"]["gflops_efficiency"];
  EXPECT_EQ(rows.back()[0], 0);
  bool gflop_step = false;
  for (const auto &r : rows)
    gflop_step |= r[0].get<double>() > 3 && r[0].get<double>() < 30; // the 10 GFLOP boundary
  EXPECT_TRUE(gflop_step) << rows.dump();
  bool mb_step = false;
  for (const auto &r : s["mem1"]["MB_efficiency"])
    mb_step |= r[0].get<double>() > 30 && r[0].get<double>() < 300; // the 100 MB boundary
  EXPECT_TRUE(mb_step) << s["mem1"].dump();
  EXPECT_NEAR(s["mem1"]["GBps"].get<double>(), 2000, 2000 * 0.05);
  EXPECT_NEAR(s["networks"][0]["latency"].get<double>(), 12e-6, 1e-6);
  EXPECT_TRUE(s["networks"][0]["ops"]["p2p"][1].is_null());
  EXPECT_EQ(s["processing_mode"], "no_overlap");
  EXPECT_TRUE(s["vector"].contains("bfloat16"));
  // No vector benchmark: the vector peak is the matrix peak of the same datatype at Calculon's
  // a100 float16 vector/matrix ratio (78/312), never the A100's 78 TFLOP/s beside another peak.
  const auto &matrix = c.matrix.at("bfloat16"), &vector = c.vector.at("bfloat16");
  EXPECT_NEAR(vector.peak.value, matrix.peak.value * 78.0 / 312.0, 1e-9);
  EXPECT_FALSE(vector.peak.measured);
  EXPECT_NE(vector.peak.source.find("matrix.bfloat16.tflops x 0.25"), std::string::npos)
      << vector.peak.source;
}

TEST(Calibrate, UnmeasuredFamiliesAreCompleteAndLabelled) {
  Synthetic only_memory;
  only_memory.gemm = only_memory.collectives = only_memory.offload = only_memory.rdma = false;
  const Calibration c = calibrate(make_runs(only_memory), Assumptions{}, {});
  const auto s = calculon_system(c);
  EXPECT_EQ(calculon_problems(s), std::vector<std::string>{});
  EXPECT_FALSE(c.matrix.at("float16").measured);
  EXPECT_EQ(c.matrix.at("float16").source, kBorrowedSource);
  EXPECT_EQ(s["networks"].size(), 2u);
  EXPECT_EQ(s["networks"][0]["bandwidth"], 300);
  EXPECT_EQ(s["networks"][1]["ops"]["all_reduce"][1], 0);
  const auto report = fit_report_json(c);
  bool listed = false;
  for (const auto &a : report["not_measured"])
    listed |= a["name"] == "networks.0.bandwidth" && a["source"] == kBorrowedSource;
  EXPECT_TRUE(listed) << report["not_measured"].dump();
  EXPECT_NE(fit_report_markdown(report).find("Not measured"), std::string::npos);
}

// In no_overlap mode each GEMM step is its measured time less a mem1 term: with no memory run,
// that term comes from an assumed mem1, and the table said "measured" alone.
TEST(Calibrate, AGemmTableThroughAnAssumedMem1SaysSo) {
  Synthetic no_memory;
  no_memory.memory = no_memory.offload = false;
  const Calibration c = calibrate(make_runs(no_memory), Assumptions{}, {});
  ASSERT_FALSE(c.mem1.measured);
  const auto &gemm = c.gemm_by_dtype.begin()->second;
  EXPECT_TRUE(gemm.source.starts_with("measured: ")) << gemm.source;
  EXPECT_NE(gemm.source.find(", less a mem1 time not measured (" + c.mem1.source + ")"),
            std::string::npos)
      << gemm.source;
  Synthetic all;
  const Calibration measured = calibrate(make_runs(all), Assumptions{}, {});
  ASSERT_TRUE(measured.mem1.measured);
  EXPECT_EQ(measured.gemm_by_dtype.begin()->second.source.find("not measured"), std::string::npos);
}

TEST(Calibrate, AssumptionsOverrideDefaultsAndAreChecked) {
  Synthetic none_but_memory;
  none_but_memory.gemm = none_but_memory.collectives = none_but_memory.offload = false;
  const auto a = Assumptions::parse({"matrix.float16.tflops=989", "networks.1.bandwidth=50",
                                     "mem2.efficiency=0.8", "networks.1.processor_usage=0"});
  const Calibration c = calibrate(make_runs(none_but_memory), a, {});
  const auto s = calculon_system(c);
  EXPECT_EQ(s["matrix"]["float16"]["tflops"], 989);
  EXPECT_EQ(s["networks"][1]["bandwidth"], 50);
  EXPECT_EQ(s["networks"][1]["processor_usage"], 0);
  EXPECT_EQ(s["mem2"]["MB_efficiency"], nlohmann::json::parse("[[0, 0.8]]"));
  EXPECT_EQ(c.networks[1].bandwidth_gbytes_per_s.source, kUserSource);
  EXPECT_THROW(Assumptions::parse({"mem1.speed=3"}), InputError);
  EXPECT_THROW(Assumptions::parse({"mem1.GBps"}), InputError);
  EXPECT_THROW(Assumptions::parse({"mem1.GBps=fast"}), InputError);
  EXPECT_THROW(Assumptions::parse({"mem1.efficiency=1.5"}), InputError);
  EXPECT_THROW(Assumptions::parse({"networks.0.processor_usage=1"}), InputError);
  // A figure in another unit: FLOP/s for TFLOP/s, B/s for GB/s, microseconds for seconds. Each
  // was written as given, 1e8 times too fast or a latency of 43 s.
  for (const char *other_unit : {"matrix.bfloat16.tflops=989e12", "networks.0.bandwidth=450e9",
                                 "mem2.GBps=55.1e9", "networks.0.latency=43"})
    EXPECT_THROW(Assumptions::parse({other_unit}), InputError) << other_unit;
  EXPECT_NO_THROW(Assumptions::parse({"matrix.bfloat16.tflops=989", "networks.0.bandwidth=450",
                                      "mem2.GBps=55.1", "networks.0.latency=4.3e-05"}));
}

TEST(Calibrate, RooflineModeUsesTheRawEfficiency) {
  CalibrateOptions o;
  o.mode = ProcessingMode::roofline;
  const Calibration c = calibrate(make_runs({}), Assumptions{}, o);
  EXPECT_EQ(calculon_system(c)["processing_mode"], "roofline");
  // Without taking memory out, the small GEMMs look less efficient than their compute.
  EXPECT_LT(c.matrix.at("bfloat16").table.efficiency(2e9), 0.39);
}

TEST(Calibrate, TierFromHostsWhenTheRecordDoesNotSay) {
  RunSet set;
  LoadedRun run;
  for (const char *host : {"a", "b"})
    for (double size = 1024; size <= 1 << 24; size *= 8)
      run.records.push_back(rec("collectives.nccl_all_reduce",
                                {{"size_bytes", size}, {"ranks", 16}},
                                {{"time_s", time_json(1e-5 + size / 40e9)}}, host));
  for (double size = 1024; size <= 1 << 24; size *= 8)
    run.records.push_back(rec("collectives.mpi_all_gather", {{"size_bytes", size}, {"ranks", 4}},
                              {{"time_s", time_json(1e-5 + size / 40e9)}}, "a"));
  set.runs.push_back(run);
  const Samples s = extract_samples(set);
  // The two hosts' records of an all_reduce point are one point: 5 sizes of each op.
  ASSERT_EQ(s.collectives.size(), 10u);
  for (const auto &x : s.collectives) {
    EXPECT_EQ(x.tier, x.op == "all_reduce" ? kScaleOut : kScaleUp) << x.op;
    EXPECT_EQ(x.tier_from, "hosts in the group");
  }
}

// collectives.nccl_all_reduce_with_gemm run per group type on the same two hosts: the tp
// groups' GEMM slowdown (each group on one host) sets the NVLink domain's processor_usage, the
// dp groups' (each over both hosts) the fabric's.
TEST(Calibrate, AllReduceWithGemmSetsProcessorUsageOnItsGroupsTier) {
  RunSet runs = tp_dp_run({4096, 262144, 16777216});
  for (int rank = 0; rank < 4; ++rank) {
    const std::string host = rank < 2 ? "a" : "b";
    for (const auto &[type, index, slowdown] :
         {std::tuple{"tp", rank / 2, 1.25}, std::tuple{"dp", rank % 2, 2.0}})
      runs.runs[0].records.push_back(
          rank_rec("collectives.nccl_all_reduce_with_gemm", "r1", rank, host,
                   collective_params(1 << 20, 4, "tp=2+dp=rest", type, index, 2),
                   {{"time_s", time_json(1e-4)}, {"gemm_slowdown", slowdown}}));
  }
  const Calibration c = calibrate(runs, Assumptions{}, {});
  const auto &up = tier(c, kScaleUp);
  const auto &out = tier(c, kScaleOut);
  ASSERT_TRUE(up.processor_usage.measured && out.processor_usage.measured);
  EXPECT_NEAR(up.processor_usage.value, 0.2, 1e-9);  // 1 - 1/1.25
  EXPECT_NEAR(out.processor_usage.value, 0.5, 1e-9); // 1 - 1/2
}

TEST(Calibrate, OffloadIsFittedPerDirectionHostMemoryAndPlacement) {
  Synthetic memory_only;
  memory_only.gemm = memory_only.collectives = memory_only.offload = memory_only.rdma = false;
  RunSet runs = make_runs(memory_only);
  struct Path {
    const char *host_memory, *placement;
    double gbytes_per_s;
  };
  for (const Path path : {Path{"pinned", "near", 50}, Path{"pinned", "far", 25},
                          Path{"pageable", "near", 12}, Path{"pageable", "far", 8}})
    for (double b = 4096; b <= 1 << 30; b *= 4)
      for (const char *dir : {"h2d", "d2h"})
        runs.runs[0].records.push_back(rec(
            std::string("offload.") + dir,
            {{"size_bytes", b}, {"host_memory", path.host_memory}, {"placement", path.placement}},
            {{"bytes_per_call", b}, {"time_s", time_json(5e-6 + b / (path.gbytes_per_s * 1e9))}}));
  const Calibration c = calibrate(runs, Assumptions{}, {});
  ASSERT_EQ(c.offload.size(), 8u); // 2 directions × 2 host memories × 2 placements
  const std::map<std::string, double> expected = {
      {"pinned.near", 50}, {"pinned.far", 25}, {"pageable.near", 12}, {"pageable.far", 8}};
  for (const auto &o : c.offload) {
    const double gbytes = expected.at(o.host_memory + "." + o.placement);
    EXPECT_NEAR(o.fit.beta_s_per_byte * gbytes * 1e9, 1.0, 1e-6) << o.name();
    EXPECT_NEAR(o.fit.alpha_s / 5e-6, 1.0, 1e-6) << o.name();
  }
  const auto j = coefficient_file(c);
  EXPECT_EQ(j["offload"]["h2d.pageable.far"]["host_memory"], "pageable");
  EXPECT_EQ(j["offload"]["h2d.pageable.far"]["placement"], "far");
  // Calculon's mem2 is the pinned, near path only: 50 GB/s at the largest size.
  EXPECT_TRUE(c.mem2.measured);
  EXPECT_NEAR(c.mem2.peak.value / 50, 1.0, 0.01);
  EXPECT_NE(c.mem2.source.find("pinned, near"), std::string::npos) << c.mem2.source;
}

// Every family measured (synthetic, 1% noise), read under megatron-126M's execution with PP and
// DP on the fabric, weight and optimizer offload: each set the execution uses gets an execution
// error, small on clean data, never outside the range of its errors per size (of its op's, for
// a tier's joint fit).
TEST(ExecutionWeighted, EverySetTheExecutionUsesIsReadAtItsSizes) {
  const Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  const std::string dir = std::string(RAILGAUGE_SOURCE_DIR) + "/tests/fixtures/calculon/";
  std::ifstream m(dir + "megatron-126M.json"), e(dir + "32_t8_p2_d2_mbs2_attn_only_ar.json");
  const auto sizes =
      execution_sizes(parse_calculon_model(nlohmann::json::parse(m), "megatron-126M.json"),
                      parse_calculon_execution(nlohmann::json::parse(e), "exe.json"));
  const auto report = fit_report_json(c, &sizes);
  EXPECT_EQ(report["execution"]["tensor_par"], 8);
  std::map<std::string, nlohmann::json> by_name;
  for (const auto &s : report["coefficient_sets"])
    by_name[s["name"].get<std::string>()] = s;
  for (const char *name :
       {"gemm.bf16", "memory.hbm", "mem2", "offload.h2d.pinned.near", "scale_up.all_reduce",
        "networks[0] scale_up", "scale_out.p2p", "scale_out.all_reduce", "networks[1] scale_out"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(by_name.count(name));
    const auto &s = by_name[name];
    ASSERT_TRUE(s.contains("execution"));
    const auto &x = s["execution"];
    ASSERT_GT(x["uses"].get<int>(), 0);
    const double w = x["weighted_mean_rel"].get<double>();
    double lo = 1e9, hi = 0;
    for (const auto &row : s["held_out_per_size"]["table"]) {
      lo = std::min(lo, row["mean_rel"].get<double>());
      hi = std::max(hi, row["mean_rel"].get<double>());
    }
    // A tier's joint fit reads each op from that op's points; its per-size table holds all ops.
    if (!std::string(name).starts_with("networks[")) {
      EXPECT_GE(w, lo - 1e-12);
      EXPECT_LE(w, hi + 1e-12);
    }
    EXPECT_LT(w, 0.1); // clean data: held-out errors of a few percent
    EXPECT_EQ(x["share_on_unmeasured_ops"].get<double>(), 0);
    EXPECT_GT(x["time_s"].get<double>(), 0);
  }
  // No TP all_gather or reduce_scatter (all_reduce TP), no p2p on the NVLink tier.
  EXPECT_EQ(by_name["scale_up.all_gather"]["execution"]["uses"], 0);
  EXPECT_EQ(by_name["scale_up.p2p"]["execution"]["uses"], 0);
  // Each held-out point is kept once: the per-size table counts them all.
  std::size_t points = 0;
  for (const auto &row : by_name["networks[1] scale_out"]["held_out_per_size"]["table"])
    points += row["points"].get<std::size_t>();
  EXPECT_EQ(points, by_name["networks[1] scale_out"]["fit"]["held_out"]["points"]);
  const std::string md = fit_report_markdown(report);
  EXPECT_NE(md.find("| execution-weighted |"), std::string::npos);
  EXPECT_NE(md.find("exe.json on megatron-126M.json (TP 8 on networks[0], PP 2 on networks[1]"),
            std::string::npos);
}

// A committed H200 reference run (one GPU): its NCCL collectives ran on one rank, so they
// measure no network; its HBM copies of arrays within twice the 60 MB L2 ran faster than the HBM
// plateau, so mem1's peak is the best point beyond them, and those points are left out.
void expect_hbm_beyond_l2_and_no_network(const std::string &reference) {
  SCOPED_TRACE(reference);
  const RunSet runs = analysis::load_runs(testing::reference_run_dirs(reference));
  const Calibration c = calibrate(runs, Assumptions{}, {});
  for (const auto &n : c.networks)
    EXPECT_FALSE(n.measured) << n.name;
  const auto one_rank = std::find_if(
      c.samples.skipped_by_why.begin(), c.samples.skipped_by_why.end(),
      [](const auto &w) { return w.first.find("a group of one rank") != std::string::npos; });
  ASSERT_NE(one_rank, c.samples.skipped_by_why.end());
  EXPECT_GT(one_rank->second, 100);

  double best_all = 0, best_beyond = 0;
  for (const auto &m : c.samples.memory) {
    if (m.tier != "hbm" || (m.kind != "copy" && m.kind != "triad" && m.kind != "memcpy_d2d"))
      continue;
    const double gbps = m.bytes / m.time_s / 1e9;
    best_all = std::max(best_all, gbps);
    ASSERT_GT(m.cache_bytes, 0);
    if (m.working_set_bytes > 2 * m.cache_bytes)
      best_beyond = std::max(best_beyond, gbps);
  }
  EXPECT_EQ(c.mem1_tier, "hbm");
  EXPECT_DOUBLE_EQ(c.mem1.peak.value, best_beyond);
  EXPECT_LT(c.mem1.peak.value, best_all); // the L2-resident copy was faster
  EXPECT_EQ(c.mem1.notes.size(), 1u);
}

TEST(Calibrate, RealH200RunFitsHbmBeyondL2AndNoNetworkFromOneRank) {
  for (const char *reference : {"h200-2026-11-26", "h200-2026-11-26b"})
    expect_hbm_beyond_l2_and_no_network(reference);
}

// The second H200 run's inventory has NVML's memory total: mem1's capacity is the GPU's
// 150754820096 bytes (140.4 GiB; nvidia-smi's memory.total in the same run: 143771 MiB), not
// Calculon's default.
TEST(Calibrate, RealH200MemoryCapacityComesFromNvml) {
  const Calibration c =
      calibrate(analysis::load_runs(testing::reference_run_dirs("h200-2026-11-26b")), {}, {});
  EXPECT_NEAR(c.mem1_gib.value, 140.4, 0.05);
  EXPECT_TRUE(c.mem1_gib.measured);
  EXPECT_NE(c.mem1_gib.source.find("NVML"), std::string::npos) << c.mem1_gib.source;
}

} // namespace
} // namespace railgauge::calibrate
