// The samples a calibration is fitted on: one per point, not per rank, their group's size and
// tier, and the bytes Calculon counts.
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

namespace railgauge::calibrate {
namespace {

using namespace synthetic;

TEST(Samples, OneCollectiveSamplePerPointNotPerRank) {
  const std::vector<double> sizes = {1024, 8192, 65536, 524288, 4194304};
  const Samples s = extract_samples(ranks_of_one_run(4, sizes));
  ASSERT_EQ(s.collectives.size(), sizes.size());
  EXPECT_EQ(s.used_by_key.at("collectives.mpi_all_reduce"), 5);
  EXPECT_EQ(s.duplicates_by_key.at("collectives.mpi_all_reduce"), 15);
  for (std::size_t i = 0; i < sizes.size(); ++i) // rank 0's record stands for the point
    EXPECT_DOUBLE_EQ(s.collectives[i].time_s, 1e-5 + sizes[i] / 10e9);
  // Two runs of the same point are two measurements.
  RunSet two = ranks_of_one_run(2, sizes);
  for (auto &r : two.runs[0].records)
    r.run = "r2";
  EXPECT_EQ(extract_samples(two).collectives.size(), 2 * sizes.size());
}

TEST(Samples, GroupSizeAndTierComeFromTheGroup) {
  const std::vector<double> sizes = {4096, 32768, 262144, 2097152, 16777216, 134217728};
  const RunSet runs = tp_dp_run(sizes);
  const Samples s = extract_samples(runs);
  ASSERT_EQ(s.collectives.size(), 2 * sizes.size()); // one per point per axis
  for (const auto &x : s.collectives) {
    EXPECT_EQ(x.ranks, 2);
    EXPECT_EQ(x.tier_from, "hosts in the group");
  }
  EXPECT_EQ(s.skipped.size(), 4 * sizes.size()); // the concurrent records, each named
  for (const auto &why : s.skipped)
    EXPECT_NE(why.find("concurrent"), std::string::npos) << why;

  const Calibration c = calibrate(runs, Assumptions{}, {});
  const auto &up = tier(c, kScaleUp);
  const auto &out = tier(c, kScaleOut);
  ASSERT_TRUE(up.measured && out.measured);
  EXPECT_EQ(up.size.value, 2);
  EXPECT_EQ(out.size.value, 2);
  EXPECT_NEAR(up.bandwidth_gbytes_per_s.value * up.efficiency.value / 100, 1.0, 0.01);
  EXPECT_NEAR(out.bandwidth_gbytes_per_s.value * out.efficiency.value / 10, 1.0, 0.01);
  EXPECT_NEAR(up.latency_s.value / 5e-6, 1.0, 0.01);
  EXPECT_NEAR(out.latency_s.value / 20e-6, 1.0, 0.01);
}

// A BMM's dgrad record as gemm.cublaslt writes it: dQ and dK (s, d, s) in one call, the FLOPs
// and bytes of both.
Record bmm_dgrad_record(double time_s) {
  const std::int64_t s = 2048, d = 128, batch = 12;
  const double gemm_flops = 2.0 * batch * s * d * s;
  const double gemm_bytes = 2.0 * batch * (s * s + s * d + s * d); // bf16: A, B and C
  return rec("gemm.cublaslt",
             {{"dtype", "bf16"},
              {"m", s},
              {"n", d},
              {"k", s},
              {"batch", batch},
              {"op", "scores.dgrad"},
              {"gemm", "scores"},
              {"pass", "dgrad"},
              {"model", "gpt3-175b"},
              {"tp", 8},
              {"gemm_count", 2}},
             {{"flops_per_call", 2 * gemm_flops},
              {"bytes_per_call", 2 * gemm_bytes},
              {"peak_tflops", kPeakTflops},
              {"time_s", time_json(time_s)}});
}

TEST(Samples, BmmDgradMemoryTermCountsCalculonsBytes) {
  Synthetic memory_only;
  memory_only.gemm = memory_only.collectives = memory_only.offload = memory_only.rdma = false;
  RunSet runs = make_runs(memory_only);
  runs.runs[0].records.push_back(bmm_dgrad_record(2e-3));
  const double forward_bytes = 2.0 * 12 * (2048.0 * 2048 + 2 * 2048.0 * 128);
  const Calibration c = calibrate(runs, Assumptions{}, {});
  ASSERT_EQ(c.gemm_shapes.at("bf16").size(), 1u);
  const GemmShapeRow &row = c.gemm_shapes.at("bf16")[0];
  // Calculon's BatchMatMul: backward FLOPs 2F, bytes B (the forward's), not the record's 2B.
  EXPECT_DOUBLE_EQ(row.sample.flops, 2 * 2.0 * 12 * 2048 * 128 * 2048);
  EXPECT_DOUBLE_EQ(row.sample.bytes, forward_bytes);
  EXPECT_DOUBLE_EQ(row.sample.bytes_per_call, 2 * forward_bytes);
  EXPECT_DOUBLE_EQ(row.memory_s, forward_bytes / (c.mem1.peak.value * 1e9 *
                                                  c.mem1.table.efficiency(forward_bytes)));
}

// A gemm.cpu_blas point of two ranks in lockstep: where each rank had a core of its own, the
// sample is the rank's own call (what one processor of a TP step computes); where they took turns
// on one core, the lockstep call stays (block_prediction scales it by the turns).
TEST(Samples, LockstepRanksOnTheirOwnCoresGiveTheirOwnCallTime) {
  const auto lockstep_point = [] {
    Record r;
    r.run = "run";
    r.host = "h";
    r.key = "gemm.cpu_blas";
    r.params = {{"dtype", "fp32"},
                {"m", 512},
                {"n", 512},
                {"k", 1024},
                {"batch", 1},
                {"tp", 2},
                {"op", "mlp_down.fwd"},
                {"ranks_per_host", 2},
                {"blas_threads", 1}};
    r.metrics = {{"flops_per_call", 2.0 * 512 * 512 * 1024},
                 {"bytes_per_call", 4.0 * (512 * 1024 + 1024 * 512 + 512 * 512)},
                 {"time_s", {{"median", 10e-3}}},
                 {"lockstep", {{"ranks", 2}, {"own_time_s", {{"median", 8e-3}}}}}};
    return r;
  };
  for (const int cores : {2, 1}) {
    RunSet runs;
    runs.runs.push_back(
        {"run", {{"inventory", {{"machine", {{"cores", cores}}}}}}, {lockstep_point()}});
    const Samples s = extract_samples(runs);
    ASSERT_EQ(s.gemm.size(), 1u) << cores;
    EXPECT_DOUBLE_EQ(s.gemm[0].own_time_s, 8e-3);
    if (cores == 2) {
      EXPECT_DOUBLE_EQ(s.gemm[0].time_s, 8e-3);
      EXPECT_DOUBLE_EQ(s.gemm[0].lockstep_time_s, 10e-3);
    } else {
      EXPECT_DOUBLE_EQ(s.gemm[0].time_s, 10e-3);
      EXPECT_DOUBLE_EQ(s.gemm[0].lockstep_time_s, 0);
    }
  }
}

} // namespace
} // namespace railgauge::calibrate
