// The block prediction's arithmetic on coefficients given by hand: a known GEMM efficiency and
// memory term, a known α and β, give a known block time; the block plan's steps and sizes.
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/calibrate/block_prediction.h"
#include "block/tp_block_plan.h"
#include "block/transformer_tp_gpu.h"
#include "harness/cuda/device.h"
#include "tests/support/quick_run_context.h"

namespace railgauge::calibrate {
namespace {

TEST(BlockPredictionArithmetic, GemmAndCollectiveTimes) {
  // 2 GFLOP at 1 TFLOP/s × 0.8 is 2.5 ms, plus 1 ms of memory (no_overlap) or the larger.
  EXPECT_DOUBLE_EQ(gemm_time_s(2e9, 1.0, 0.8, 1e-3, ProcessingMode::no_overlap), 3.5e-3);
  EXPECT_DOUBLE_EQ(gemm_time_s(2e9, 1.0, 0.8, 1e-3, ProcessingMode::roofline), 2.5e-3);
  // all_reduce on 4 ranks: the bus carries 2·3/4 of S; all_gather 3/4.
  EXPECT_DOUBLE_EQ(collective_time_s("all_reduce", 1e6, 4, 1e-5, 1e-9), 1e-5 + 1.5e-3);
  EXPECT_DOUBLE_EQ(collective_time_s("all_gather", 1e6, 4, 1e-5, 1e-9), 1e-5 + 0.75e-3);
}

Record block_record(int tp) {
  Record r;
  r.run = "synthetic";
  r.key = "block.transformer_tp";
  r.params = {{"model", "toy"}, {"hidden", 1000}, {"seq", 1000}, {"micro_batch", 1},
              {"heads", 10},    {"ffn", 4000},    {"tp", tp},    {"sequence_parallel", 0}};
  r.metrics = {{"time_s", {{"median", 5e-3}, {"p10", 4.9e-3}, {"p90", 5.2e-3}}},
               {"gemm_time_s", 3.6e-3},
               {"collective_time_s", 1.3e-3},
               {"phases",
                {{{"name", "qkv.fwd"},
                  {"kind", "gemm"},
                  {"op", "qkv.fwd"},
                  {"m", 1000},
                  {"n", 1000},
                  {"k", 1000},
                  {"batch", 1},
                  {"time_s", 3.6e-3}},
                 {{"name", "all_reduce.attn.fwd"},
                  {"kind", "collective"},
                  {"op", "all_reduce"},
                  {"size_bytes", 1e6},
                  {"time_s", 0.6e-3}},
                 {{"name", "all_reduce.mlp.fwd"},
                  {"kind", "collective"},
                  {"op", "all_reduce"},
                  {"size_bytes", 1e6},
                  {"time_s", 0.7e-3}}}}};
  return r;
}

Calibration known_coefficients() {
  Calibration c;
  c.options.mode = ProcessingMode::no_overlap;
  TableFit fit;
  fit.peak.value = 1.0;          // TFLOP/s
  fit.table.rows = {{0.0, 0.5}}; // Calculon's step table: 50 % everywhere
  c.gemm_by_dtype["fp32"] = fit;
  GemmShapeRow row;
  row.sample.dtype = "fp32";
  row.sample.op = "qkv.fwd";
  row.sample.tp = 2;
  row.sample.flops = 2e9;
  row.sample.time_s = 3.5e-3;
  row.compute_efficiency = 0.8; // this shape's own efficiency
  row.memory_s = 1e-3;
  c.gemm_shapes["fp32"] = {row};
  // all_reduce on 2 ranks, exactly α = 10 µs, β = 1 ns per bus byte (bus factor 1 at n = 2).
  for (double size : {0.5e6, 1e6, 2e6, 4e6}) {
    CollectiveSample s;
    s.op = "all_reduce";
    s.tier = kScaleUp;
    s.ranks = 2;
    s.backend = "mpi"; // the CPU block's collectives: MPI over host memory
    s.dtype = "float32";
    s.size_bytes = size;
    s.time_s = 1e-5 + 1e-9 * size;
    c.samples.collectives.push_back(s);
  }
  return c;
}

TEST(BlockPrediction, KnownCoefficientsGiveAKnownBlockTime) {
  analysis::RunSet runs;
  runs.runs.push_back({"synthetic", nullptr, {block_record(2)}});
  const auto p = predict_blocks(runs, known_coefficients());
  ASSERT_EQ(p.size(), 1u);
  ASSERT_TRUE(p[0].predicted_s.has_value()) << ::testing::PrintToString(p[0].missing);
  EXPECT_NEAR(*p[0].predicted_gemm_s, 3.5e-3, 1e-12);
  EXPECT_NEAR(*p[0].predicted_collective_s, 2 * (1e-5 + 1e-3), 1e-9);
  EXPECT_NEAR(*p[0].predicted_s, 3.5e-3 + 2.02e-3, 1e-9);
  // Through the step table instead: 2e9 / (1e12 · 0.5) + 1 ms.
  EXPECT_NEAR(*p[0].step_table_s, 5e-3 + 2.02e-3, 1e-9);
  EXPECT_NEAR(*p[0].error(), (5.52e-3 - 5e-3) / 5e-3, 1e-6);
  ASSERT_EQ(p[0].phases.size(), 2u); // qkv.fwd, and the two all_reduces as one op
  EXPECT_EQ(p[0].phases[1].calls, 2);
  EXPECT_NEAR(p[0].phases[1].measured_s, 1.3e-3, 1e-12);
  const auto md = block_prediction_markdown(to_json(p));
  EXPECT_NE(md.find("| toy (h 1000, s 1000, b 1, 10 heads, ffn 4000) | 2 | no | 0.0050"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| +10.40 |"), std::string::npos) << md;
}

// Collectives of another library, another element type or split groups measure other paths: a
// CPU block's all_reduce is predicted from MPI float32 whole-world points only, and says which.
TEST(BlockPrediction, CollectivesOfAnotherBackendDtypeOrGroupKindAreNotPooled) {
  auto c = known_coefficients();
  const auto add = [&](std::string backend, std::string dtype, std::string group_type,
                       double scale) {
    for (double size : {0.5e6, 1e6, 2e6, 4e6}) {
      CollectiveSample s;
      s.op = "all_reduce";
      s.tier = kScaleUp;
      s.ranks = 2;
      s.backend = backend;
      s.dtype = dtype;
      s.group_type = group_type;
      s.size_bytes = size;
      s.time_s = scale * (1e-5 + 1e-9 * size);
      c.samples.collectives.push_back(s);
    }
  };
  add("nccl", "float32", "world", 0.1); // NCCL on GPU memory: ten times faster
  add("mpi", "float64", "world", 2.0);  // twice the bytes per element
  add("mpi", "float32", "tp", 3.0);     // split groups sharing the links
  analysis::RunSet runs;
  runs.runs.push_back({"synthetic", nullptr, {block_record(2)}});
  const auto p = predict_blocks(runs, c);
  ASSERT_TRUE(p[0].predicted_collective_s.has_value());
  EXPECT_NEAR(*p[0].predicted_collective_s, 2 * (1e-5 + 1e-3), 1e-9);
  EXPECT_NE(p[0].phases[1].source.find("collectives all_reduce on 2 ranks (mpi, fp32, world "
                                       "group)"),
            std::string::npos)
      << p[0].phases[1].source;
  // Only NCCL points: the CPU block's collectives are missing, and the gap says what it needs.
  std::erase_if(c.samples.collectives,
                [](const CollectiveSample &s) { return s.backend == "mpi"; });
  const auto q = predict_blocks(runs, c);
  EXPECT_FALSE(q[0].predicted_s.has_value());
  ASSERT_FALSE(q[0].missing.empty());
  EXPECT_NE(q[0].missing.back().find("(mpi, fp32, world group) at two sizes or more"),
            std::string::npos)
      << q[0].missing.back();
}

// 4 ranks of 1 BLAS thread on a 2-core host (the run's inventory says so) take turns, 2 to a
// core: each GEMM's predicted time doubles, and the row is marked and given its own error range.
TEST(BlockPrediction, RanksSharingCoresRunTheirGemmsAtAShareOfACore) {
  Record alone = block_record(2), shared = block_record(2);
  alone.params["ranks_per_host"] = 2;
  alone.params["blas_threads"] = 1;
  shared.params["ranks_per_host"] = 4;
  shared.params["blas_threads"] = 1;
  shared.params["sequence_parallel"] = 1;
  const nlohmann::json two_cores = {{"inventory", {{"machine", {{"cores", 2}}}}}};
  analysis::RunSet runs;
  runs.runs.push_back({"alone", two_cores, {alone}});
  runs.runs.push_back({"shared", two_cores, {shared}});
  const auto p = predict_blocks(runs, known_coefficients());
  ASSERT_EQ(p.size(), 2u);
  EXPECT_FALSE(p[0].shares_cores());
  EXPECT_TRUE(p[1].shares_cores());
  EXPECT_EQ(p[1].cores.ranks_per_core(), 2);
  EXPECT_NEAR(*p[0].predicted_gemm_s, 3.5e-3, 1e-12);
  EXPECT_NEAR(*p[1].predicted_gemm_s, 7e-3, 1e-12);
  EXPECT_NEAR(*p[1].step_table_s, 2 * 5e-3 + 2.02e-3, 1e-9); // the step table's GEMMs too
  EXPECT_NE(p[1].phases[0].source.find("× 2 ranks per core"), std::string::npos)
      << p[1].phases[0].source;
  const auto md = block_prediction_markdown(to_json(p));
  EXPECT_NE(md.find("| 2 † 2 per core | yes |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2 | no |"), std::string::npos) << md;
  EXPECT_NE(md.find("Where every rank has cores of its own: error +10.40 to +10.40 %, 0 of 1 "
                    "within 3 %."),
            std::string::npos)
      << md;
  // (7 + 2.02) ms against 5 ms measured.
  EXPECT_NE(md.find("† Where ranks take turns on cores: error +80.40 to +80.40 %, 0 of 1 within "
                    "3 %."),
            std::string::npos)
      << md;
  // Measured in lockstep, a rank's own call (here 0.9 of the lockstep call that waits for the
  // slowest rank) is what a core shared in turns adds up.
  Calibration lockstep = known_coefficients();
  lockstep.gemm_shapes["fp32"].front().sample.own_time_s = 0.9 * 3.5e-3;
  EXPECT_NEAR(*predict_blocks(runs, lockstep)[1].predicted_gemm_s, 2 * 0.9 * 3.5e-3, 1e-12);
  EXPECT_NEAR(*predict_blocks(runs, lockstep)[0].predicted_gemm_s, 3.5e-3, 1e-12);
  // Without an inventory nothing is known of the cores, and nothing is scaled.
  analysis::RunSet bare;
  bare.runs.push_back({"bare", nullptr, {shared}});
  const auto b = predict_blocks(bare, known_coefficients());
  EXPECT_FALSE(b[0].shares_cores());
  EXPECT_NEAR(*b[0].predicted_gemm_s, 3.5e-3, 1e-12);
}

// A point measured in several runs (rounds between the GEMM runs) is one row: the median of the
// runs' medians, p10s and p90s.
TEST(BlockPrediction, RunsOfOnePointAreOneRowOfTheirMedian) {
  analysis::RunSet runs;
  for (double median_s : {7e-3, 5e-3, 6e-3}) {
    Record r = block_record(2);
    r.run = fmt::format("round at {}", median_s);
    r.metrics["time_s"] = {
        {"median", median_s}, {"p10", median_s - 1e-4}, {"p90", median_s + 1e-4}};
    runs.runs.push_back({r.run, nullptr, {r}});
  }
  const auto p = predict_blocks(runs, known_coefficients());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].runs, 3);
  EXPECT_DOUBLE_EQ(p[0].measured_s, 6e-3);
  EXPECT_DOUBLE_EQ(p[0].measured_p90_s, 6.1e-3);
  EXPECT_EQ(p[0].run, "round at 0.006");
  EXPECT_NEAR(*p[0].error(), (5.52e-3 - 6e-3) / 6e-3, 1e-9);
  EXPECT_EQ(p[0].run_medians_s, (std::vector<double>{5e-3, 6e-3, 7e-3}));
  // Rounds 33 % apart: the row is marked as measured noisily, and the summary says so.
  const auto md = block_prediction_markdown(to_json(p));
  EXPECT_NE(md.find("| 0.0060 (0.0059–0.0061), 3 runs ≈ |"), std::string::npos) << md;
  EXPECT_NE(md.find("≈ 1 of 1 rows measured noisily"), std::string::npos) << md;
}

// A block whose rounds agree and whose iterations spread little is not marked; one whose
// iterations spread past kNoisyBlockSpread (a host slowing a core for seconds) is.
TEST(BlockPrediction, OnlyABlockThatSpreadsPastTheNoiseShareIsMarked) {
  for (const auto &[p10_s, p90_s, noisy] :
       {std::tuple{5.97e-3, 6.3e-3, false}, std::tuple{5.9e-3, 6.7e-3, true}}) {
    analysis::RunSet runs;
    for (double median_s : {6.0e-3, 6.1e-3, 6.2e-3}) {
      Record r = block_record(2);
      r.run = fmt::format("round at {}", median_s);
      r.metrics["time_s"] = {{"median", median_s}, {"p10", p10_s}, {"p90", p90_s}};
      runs.runs.push_back({r.run, nullptr, {r}});
    }
    const auto md = block_prediction_markdown(to_json(predict_blocks(runs, known_coefficients())));
    EXPECT_EQ(md.find("3 runs ≈ |") != std::string::npos, noisy) << md;
    EXPECT_EQ(md.find("rows measured noisily") != std::string::npos, noisy) << md;
  }
}

// A GEMM measured by ranks taking turns leaves the turns out of its lockstep time: the records
// whose ranks had cores of their own are used when there are any, the others only when not.
TEST(BlockPrediction, GemmRecordsOfRanksWithCoresOfTheirOwnComeFirst) {
  Calibration c = known_coefficients();
  GemmShapeRow turns = c.gemm_shapes["fp32"].front();
  turns.compute_efficiency = 0.4; // 5 ms + 1 ms: what the own-core row (3.5 ms) must win over
  turns.sample.cores = {4, 1, 2};
  c.gemm_shapes["fp32"].push_back(turns);
  analysis::RunSet runs;
  runs.runs.push_back({"synthetic", nullptr, {block_record(2)}});
  auto p = predict_blocks(runs, c);
  EXPECT_NEAR(*p[0].predicted_gemm_s, 3.5e-3, 1e-12);
  EXPECT_NE(p[0].phases[0].source.find("1 record(s)"), std::string::npos) << p[0].phases[0].source;
  c.gemm_shapes["fp32"].erase(c.gemm_shapes["fp32"].begin());
  p = predict_blocks(runs, c);
  EXPECT_NEAR(*p[0].predicted_gemm_s, 6e-3, 1e-12);
  EXPECT_NE(p[0].phases[0].source.find("their ranks shared cores too"), std::string::npos)
      << p[0].phases[0].source;
}

// The GPU block (bf16 cuBLASLt GEMMs) is predicted from the bf16 coefficients that gemm.cublaslt
// gave, never from the CPU's fp32 ones; without bf16 ones its GEMMs are named missing.
TEST(BlockPrediction, TheGpuBlockTakesTheCoefficientsOfItsDtype) {
  Record gpu = block_record(2);
  gpu.key = "block.transformer_tp_gpu";
  gpu.params["dtype"] = "bf16";
  gpu.params["ranks_per_host"] = 8; // more GPU ranks than the host's cores: its GEMMs run on GPUs
  analysis::RunSet runs;
  runs.runs.push_back({"gpu", {{"inventory", {{"machine", {{"cores", 2}}}}}}, {gpu}});
  const Calibration fp32_only = known_coefficients();
  auto p = predict_blocks(runs, fp32_only);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].predicted_s.has_value());
  // Neither its GEMMs nor its collectives: MPI's float32 points on host memory are not NCCL's.
  ASSERT_EQ(p[0].missing.size(), 2u);
  EXPECT_NE(p[0].missing[0].find("gemm.cublaslt bf16 qkv.fwd at tp 2"), std::string::npos)
      << p[0].missing[0];
  EXPECT_NE(p[0].missing[1].find("all_reduce on 2 ranks (nccl, bf16, world group, 1 host(s))"),
            std::string::npos)
      << p[0].missing[1];

  Calibration both = known_coefficients();
  for (auto s : fp32_only.samples.collectives) {
    s.backend = "nccl";
    s.dtype = "bf16";
    both.samples.collectives.push_back(s);
  }
  both.gemm_by_dtype["bf16"] = both.gemm_by_dtype["fp32"];
  both.gemm_by_dtype["bf16"].peak.value = 2.0; // TFLOP/s
  GemmShapeRow row = both.gemm_shapes["fp32"].front();
  row.sample.dtype = "bf16";
  row.compute_efficiency = 0.25;
  both.gemm_shapes["bf16"] = {row};
  p = predict_blocks(runs, both);
  ASSERT_TRUE(p[0].predicted_s.has_value()) << ::testing::PrintToString(p[0].missing);
  // 2e9 FLOP at 2 TFLOP/s × 0.25 is 4 ms, plus the row's 1 ms of memory (fp32's gives 3.5 ms).
  EXPECT_NEAR(*p[0].predicted_gemm_s, 5e-3, 1e-12);
  EXPECT_NE(p[0].phases[0].source.find("gemm.cublaslt bf16 qkv.fwd at tp 2"), std::string::npos)
      << p[0].phases[0].source;
  EXPECT_NE(p[0].model.find("; GPU, bf16)"), std::string::npos) << p[0].model;
  EXPECT_FALSE(p[0].shares_cores());
}

// Where no GPU answers (this build's CI), every point of the GPU block is waived with the reason,
// never run or skipped silently.
class GpuBlockWithoutGpu : public testing::QuickRunContextTest {};
TEST_F(GpuBlockWithoutGpu, IsWaivedWithTheReason) {
  const auto no_gpu = gpu::cuda_unavailable_reason();
  if (!no_gpu)
    GTEST_SKIP() << "a GPU answers here: block_gpu_tests (label gpu) runs the block";
  auto bench = block::make_transformer_tp_gpu(std::make_shared<block::GpuBlockTestHooks>());
  Point p;
  for (const auto &a : bench->axes())
    p.set(a.name, a.defaults.front());
  EXPECT_EQ(p.text("model"), "gpt3-175b");
  const auto why = bench->supported(ctx_, p);
  ASSERT_TRUE(why.has_value());
  EXPECT_TRUE(why->find(*no_gpu) != std::string::npos ||
              why->find("built without") != std::string::npos)
      << *why;
}

TEST(BlockPrediction, AMissingCoefficientIsNamedAndNothingIsPredicted) {
  analysis::RunSet runs;
  runs.runs.push_back({"synthetic", nullptr, {block_record(4)}}); // no tp 4 GEMM, no 4 ranks
  const auto p = predict_blocks(runs, known_coefficients());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_FALSE(p[0].predicted_s.has_value());
  ASSERT_EQ(p[0].missing.size(), 2u);
  EXPECT_NE(p[0].missing[0].find("qkv.fwd at tp 4"), std::string::npos);
  EXPECT_NE(p[0].missing[1].find("all_reduce on 4 ranks"), std::string::npos);
}

TEST(TpBlockPlan, CollectivesSitBetweenTheGemmsAsMegatronRunsThem) {
  gemm::ModelShape m{"toy", 512, 8, 8, 2048, 256, 1, false};
  const auto count = [](const std::vector<block::BlockStep> &steps, block::StepKind kind) {
    return std::count_if(steps.begin(), steps.end(), [&](auto &s) { return s.kind == kind; });
  };
  const auto one = block::tp_block_steps(m, 1, false);
  EXPECT_EQ(count(one, block::StepKind::collective), 0); // t = 1: nothing to reduce
  EXPECT_EQ(count(one, block::StepKind::gemm), 18);
  const auto ar = block::tp_block_steps(m, 2, false);
  ASSERT_EQ(count(ar, block::StepKind::collective), 4);
  EXPECT_EQ(ar[4].name, "all_reduce.attn.fwd"); // after out_proj.fwd
  EXPECT_EQ(ar[3].name, "out_proj.fwd");
  EXPECT_EQ(ar[4].size_elements, 256 * 512);
  EXPECT_EQ(ar.back().name, "qkv.wgrad");
  const auto sp = block::tp_block_steps(m, 4, true);
  EXPECT_EQ(count(sp, block::StepKind::collective), 8);
  EXPECT_EQ(sp.front().name, "all_gather.attn.fwd");
  // Half the block's FLOPs per rank at t = 2 (every GEMM is split over the ranks).
  EXPECT_DOUBLE_EQ(block::block_flops(ar) * 2, block::block_flops(one));
}

} // namespace
} // namespace railgauge::calibrate
