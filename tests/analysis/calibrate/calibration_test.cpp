// A calibration over synthetic records of every family: what it fits, what it assumes (and
// says so), and a Calculon file that passes every structural rule of the format.
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
#include "tests/support/reference_run_dirs.h"

namespace railgauge::calibrate {
namespace {

using analysis::LoadedRun;
using analysis::RunSet;

constexpr double kMemPeak = 2000e9; // bytes/s
constexpr double kPeakTflops = 500;

// A memory curve: 30% under 1 MB, 80% under 100 MB, 95% above.
double mem_eff(double bytes) { return bytes >= 100e6 ? 0.95 : bytes >= 1e6 ? 0.8 : 0.3; }
// A GEMM compute curve: 40% under 10 GFLOP, 85% above.
double gemm_eff(double flops) { return flops >= 10e9 ? 0.85 : 0.4; }

Record rec(const std::string &key, nlohmann::json params, nlohmann::json metrics,
           const std::string &host = "node0") {
  Record r;
  r.run = "synthetic";
  r.host = host;
  r.key = key;
  r.params = std::move(params);
  r.metrics = std::move(metrics);
  return r;
}

nlohmann::json time_json(double t) { return {{"median", t}, {"n", 10}}; }

// One rank's record of a run.
Record rank_rec(const std::string &key, const std::string &run, int rank, const std::string &host,
                nlohmann::json params, nlohmann::json metrics) {
  Record r = rec(key, std::move(params), std::move(metrics), host);
  r.run = run;
  r.rank = rank;
  return r;
}

// The params a collectives record carries (collectives/collective_point.cpp add_group_params).
nlohmann::json collective_params(double size_bytes, int world_size, const std::string &groups,
                                 const std::string &group_type, int group_index, int group_size) {
  return {{"size_bytes", size_bytes},
          {"dtype", "bf16"},
          {"op", "sum"},
          {"backend", "nccl"},
          {"world_size", world_size},
          {"groups", groups},
          {"group_type", group_type},
          {"group_index", group_index},
          {"group_size", group_size}};
}

struct Synthetic {
  bool gemm = true, memory = true, collectives = true, offload = true, rdma = true;
  double noise = 0.01;
};

RunSet make_runs(const Synthetic &s) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> err(0.0, s.noise);
  const auto noisy = [&](double t) { return t * (1 + err(rng)); };
  LoadedRun run;
  run.dir = "synthetic";
  if (s.memory)
    for (double b = 4096; b <= 4e9; b *= 2)
      for (const char *kind : {"copy", "triad"})
        run.records.push_back(rec(
            std::string("memory.hbm_") + kind, {{"size_bytes", b / 2}},
            {{"bytes_per_call", b}, {"time_s", time_json(noisy(b / (kMemPeak * mem_eff(b))))}}));
  if (s.gemm)
    for (std::int64_t m = 16; m <= 16384; m *= 2)
      for (std::int64_t n : {1536, 4608, 12288}) {
        const std::int64_t k = 12288;
        const double flops = 2.0 * m * n * k;
        const double bytes = 2.0 * (m * k + k * n + m * n);
        // What a GPU measures: compute and memory one after the other (Calculon no_overlap).
        const double t =
            flops / (kPeakTflops * 1e12 * gemm_eff(flops)) + bytes / (kMemPeak * mem_eff(bytes));
        run.records.push_back(rec("gemm.cublaslt",
                                  {{"dtype", "bf16"},
                                   {"m", m},
                                   {"n", n},
                                   {"k", k},
                                   {"batch", 1},
                                   {"op", "qkv.fwd"},
                                   {"model", "gpt3-175b"},
                                   {"tp", 8}},
                                  {{"flops_per_call", flops},
                                   {"bytes_per_call", bytes},
                                   {"peak_tflops", kPeakTflops},
                                   {"time_s", time_json(noisy(t))}}));
      }
  if (s.collectives) {
    // As real records are: every rank writes each point with the same time (the max over
    // ranks), world_size and group_size, no node count. The NVLink domain: a run of 8 ranks on
    // one host; the fabric: a run of 2 ranks on 2 hosts, one GPU per node, so that its bus
    // bandwidth is the fabric's (more GPUs per node: tier_decomposition_test.cpp).
    struct Tier {
      const char *run;
      int ranks;
      int hosts;
      double alpha, busbw;
    };
    for (const Tier tier : {Tier{"up", 8, 1, 12e-6, 360e9}, Tier{"out", 2, 2, 30e-6, 45e9}})
      for (const char *op : {"all_reduce", "all_gather", "reduce_scatter", "sendrecv"})
        for (double size = 1024; size <= 1 << 30; size *= 4) {
          const std::string name = op == std::string("sendrecv") ? "p2p" : op;
          const double t = noisy(tier.alpha + size * bus_factor(name, tier.ranks) / tier.busbw);
          for (int rank = 0; rank < tier.ranks; ++rank)
            run.records.push_back(
                rank_rec(std::string("collectives.nccl_") + op, tier.run, rank,
                         fmt::format("node{}", rank * tier.hosts / tier.ranks),
                         collective_params(size, tier.ranks, "world", "world", 0, tier.ranks),
                         {{"time_s", time_json(t)}}));
        }
    run.records.push_back(rank_rec("collectives.nccl_all_reduce_with_gemm", "up", 0, "node0",
                                   collective_params(1 << 20, 8, "world", "world", 0, 8),
                                   {{"gemm_slowdown", 1.25}}));
    Record waived = rec("collectives.nccl_all_reduce", {{"size_bytes", 8}, {"ranks", 8}}, {});
    waived.status = Status::waived;
    run.records.push_back(waived);
    run.records.push_back(rec("collectives.mpi_all_reduce",
                              {{"size_bytes", 1024}, {"ranks", 4}, {"algorithm", "ring"}},
                              {{"time_s", time_json(1e-5)}}));
  }
  if (s.offload)
    for (double b = 4096; b <= 1 << 30; b *= 4)
      for (const char *dir : {"h2d", "d2h"})
        run.records.push_back(
            rec(std::string("offload.") + dir,
                {{"size_bytes", b}, {"host_memory", "pinned"}, {"placement", "near"}},
                {{"bytes_per_call", b}, {"time_s", time_json(noisy(5e-6 + b / 50e9))}}));
  if (s.rdma)
    for (double b = 2; b <= 1 << 20; b *= 4)
      run.records.push_back(rec("rdma.write_lat", {{"size_bytes", b}},
                                {{"latency", {{"p50_s", noisy(2e-6 + b / 45e9)}}}}));
  RunSet set;
  set.runs.push_back(run);
  return set;
}

const NetworkTier &tier(const Calibration &c, const char *name) {
  for (const auto &n : c.networks)
    if (n.name == name)
      return n;
  throw std::logic_error("no tier");
}

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

// What `mpirun -n 4 railgauge collectives` writes: one rank directory per rank, each with every
// point, all with the same time (the max over ranks).
RunSet ranks_of_one_run(int ranks, const std::vector<double> &sizes) {
  RunSet set;
  for (int rank = ranks - 1; rank >= 0; --rank) { // rank 0's directory not first
    LoadedRun run;
    run.dir = fmt::format("runs/r1/rank{}", rank);
    for (double size : sizes) {
      Record r = rec("collectives.mpi_all_reduce",
                     {{"size_bytes", size},
                      {"dtype", "f32"},
                      {"backend", "mpi"},
                      {"world_size", ranks},
                      {"groups", "world"},
                      {"group_type", "world"},
                      {"group_index", 0},
                      {"group_size", ranks}},
                     {{"time_s", time_json(1e-5 + size / 10e9 + rank * 1e-9)}});
      r.run = "r1";
      r.rank = rank;
      run.records.push_back(r);
    }
    set.runs.push_back(run);
  }
  return set;
}

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

// `mpirun -n 4 ... -a groups=tp=2+dp=rest` over two hosts (ranks 0, 1 on a; 2, 3 on b): each
// tp group stays in its host, each dp group crosses them. Records carry world_size 4 and
// group_size 2; the concurrent point (both axes at once) has only a contended time.
RunSet tp_dp_run(const std::vector<double> &sizes) {
  LoadedRun run;
  run.dir = "runs/r1";
  for (double size : sizes)
    for (int rank = 0; rank < 4; ++rank) {
      const std::string host = rank < 2 ? "a" : "b";
      const auto add = [&](const char *type, int index, double t) {
        run.records.push_back(rank_rec("collectives.mpi_all_reduce", "r1", rank, host,
                                       collective_params(size, 4, "tp=2+dp=rest", type, index, 2),
                                       {{"time_s", time_json(t)}}));
      };
      add("tp", rank / 2, 5e-6 + size / 100e9); // all_reduce on 2 ranks: bus factor 1
      add("dp", rank % 2, 20e-6 + size / 10e9);
      add("concurrent", rank / 2, 25e-6 + size / 8e9);
    }
  RunSet set;
  set.runs.push_back(run);
  return set;
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

TEST(CalculonProblems, EveryRuleIsChecked) {
  const Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  const auto good = calculon_system(c);
  ASSERT_TRUE(calculon_problems(good).empty());
  const auto broken = [&](auto mutate) {
    auto s = good;
    mutate(s);
    return calculon_problems(s);
  };
  using J = nlohmann::json;
  EXPECT_FALSE(broken([](J &s) { s.erase("mem2"); }).empty());
  EXPECT_FALSE(broken([](J &s) { s["extra"] = 1; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["processing_mode"] = "overlap"; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["matrix"]["float64"] = s["matrix"]["bfloat16"]; }).empty());
  EXPECT_FALSE(broken([](J &s) {
                 s["matrix"]["bfloat16"]["gflops_efficiency"] =
                     J::parse("[[1,0.5],[10,0.9],[0,0.1]]");
               }).empty());
  EXPECT_FALSE(broken([](J &s) {
                 s["matrix"]["bfloat16"]["gflops_efficiency"] = J::parse("[[10,0.9],[1,0.5]]");
               }).empty());
  EXPECT_FALSE(
      broken([](J &s) { s["mem1"]["MB_efficiency"] = J::parse("[[10,1.2],[0,0.5]]"); }).empty());
  EXPECT_FALSE(broken([](J &s) { s["mem1"]["GBps"] = 0; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["vector"].erase("bfloat16"); }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["ops"]["p2p"][1] = 0; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["ops"]["all_reduce"][1] = nullptr; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["ops"].erase("reduce_scatter"); }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["size"] = 8.5; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["efficiency"] = 1.5; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["processor_usage"] = 1.0; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][0]["must_be_filled"] = 1; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][1]["speed"] = 1; }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"][1].erase("latency"); }).empty());
  EXPECT_FALSE(broken([](J &s) { s["networks"] = J::array(); }).empty());
}

// Found by fuzzing calibrate on records of extreme sizes and times: thresholds that differ only
// past the 6 digits the file keeps, a threshold of inf, and a subnormal peak (whose rounding was
// NaN) gave Calculon files that broke its rules.
TEST(CalculonSystem, ExtremeFitsStillObeyEveryRule) {
  Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  c.matrix.at("bfloat16").table.rows = {
      {INFINITY, 0.95}, {1000000.7, 0.9}, {1000000.2, 0.5}, {1000000.1, 0.4}, {0, 0.3}};
  c.mem1.peak.value = 1e-320;
  const auto s = calculon_system(c);
  EXPECT_EQ(calculon_problems(s), std::vector<std::string>{});
  // Calculon uses the first row x reaches: of the rows that round to one threshold, the first.
  EXPECT_EQ(s["matrix"]["bfloat16"]["gflops_efficiency"],
            nlohmann::json::parse("[[0.001, 0.9], [0, 0.3]]"));
  EXPECT_GT(s["mem1"]["GBps"].get<double>(), 0);
}

TEST(CalculonSystem, NonFiniteCoefficientIsAnInputErrorNamingIt) {
  const Calibration good = calibrate(make_runs({}), Assumptions{}, {});
  const auto message = [&](auto mutate) -> std::string {
    Calibration c = good;
    mutate(c);
    try {
      calculon_system(c);
    } catch (const InputError &e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message([](Calibration &c) {
              c.networks[0].bandwidth_gbytes_per_s.value = INFINITY;
            }).find("bandwidth (GB/s) is inf"),
            std::string::npos);
  EXPECT_NE(message([](Calibration &c) { c.networks[1].latency_s.value = NAN; }).find("latency"),
            std::string::npos);
  EXPECT_NE(message([](Calibration &c) {
              c.matrix.at("bfloat16").peak.value = 0;
            }).find("matrix.bfloat16 peak (TFLOP/s) is 0"),
            std::string::npos);
  EXPECT_NE(message([](Calibration &c) {
              c.mem2.table.rows = {{0, NAN}};
            }).find("mem2 table"),
            std::string::npos);
  EXPECT_EQ(message([](Calibration &c) { c.networks[1].latency_s.value = 0; }), "no error");
}

TEST(AstraNetwork, OneEntryPerDimension) {
  const Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  const std::string y = astra_network_yaml(c);
  EXPECT_NE(y.find("topology: [ Switch, Switch ]"), std::string::npos) << y;
  EXPECT_NE(y.find("npus_count: [ 8, 2 ]"), std::string::npos) << y;
  // ASTRA-sim's GB is 2^30 bytes: 360e9 B/s of bus bandwidth is about 335 of its GB/s.
  const auto &up = c.networks[0];
  const double astra_gbytes =
      up.bandwidth_gbytes_per_s.value * up.efficiency.value * 1e9 / 1073741824.0;
  EXPECT_NEAR(astra_gbytes, 335, 10);
  EXPECT_NE(y.find(fmt::format("bandwidth: [ {:.6g},", astra_gbytes)), std::string::npos) << y;
  // 12 µs over the 2·7 steps of an 8-rank ring, each step two links through the switch, as
  // ASTRA-sim's Switch charges them: about 429 ns per link.
  const double link_ns = up.latency_s.value * 1e9 / (2 * 7 * 2);
  EXPECT_NEAR(link_ns, 429, 40);
  EXPECT_NE(y.find(fmt::format("latency: [ {:.6g},", link_ns)), std::string::npos) << y;
  // The scale-out tier's α, fitted on 16 ranks over 2 nodes, is spread over the 2(2-1) steps
  // that ASTRA-sim runs on its 2-NPU dimension, as npus_count says, not over 2(16-1).
  const auto &out = c.networks[1];
  ASSERT_TRUE(out.measured);
  const double out_ns = out.latency_s.value * 1e9 / (2 * 1 * 2);
  EXPECT_NE(y.find(fmt::format(", {:.6g} ]  # ns", out_ns)), std::string::npos) << y;
}

TEST(AstraNetwork, AScaleOutDimensionCountsTheNodesOfItsGroup) {
  // 2 nodes of 8 ranks, tp=8+dp=rest: the data-parallel groups hold one rank per node, 2 ranks.
  // Calculon's tier size is that group (2); ASTRA-sim's dimension is 2 nodes, not 2 / 8.
  RunSet set = make_runs({.gemm = false, .memory = false, .collectives = false});
  LoadedRun run;
  run.dir = "runs/dp";
  for (double size = 1024; size <= 1 << 26; size *= 4)
    for (int rank = 0; rank < 16; ++rank)
      run.records.push_back(
          rank_rec("collectives.nccl_all_reduce", "dp", rank, fmt::format("node{}", rank / 8),
                   collective_params(size, 16, "tp=8+dp=rest", "dp", rank % 8, 2),
                   {{"time_s", time_json(20e-6 + size * bus_factor("all_reduce", 2) / 45e9)}}));
  set.runs.push_back(run);
  const Calibration c = calibrate(set, Assumptions{}, {});
  ASSERT_TRUE(c.networks[1].measured);
  EXPECT_EQ(c.networks[1].size.value, 2);
  EXPECT_EQ(c.networks[1].group_hosts, 2);
  const std::string y = astra_network_yaml(c);
  EXPECT_NE(y.find("npus_count: [ 8, 2 ]"), std::string::npos) << y;
}

TEST(AstraNetwork, AnUnmeasuredTierKeepsItsAssumedLatencyAndSaysItsSizeIsAssumed) {
  // One node of 4 ranks: the scale-out tier is not measured.
  const Calibration c =
      calibrate(ranks_of_one_run(4, {1024, 8192, 65536, 524288, 4194304}), Assumptions{}, {});
  ASSERT_TRUE(c.networks[0].measured);
  ASSERT_FALSE(c.networks[1].measured);
  const std::string y = astra_network_yaml(c);
  // Calculon's 65536-GPU fabric over 4-GPU nodes; its 20 µs per message, half on each of a
  // Switch's two links, not over 2·16383 ring steps.
  EXPECT_NE(y.find("npus_count: [ 4, 16384 ]"), std::string::npos) << y;
  EXPECT_NE(y.find("latency: [ "), std::string::npos) << y;
  EXPECT_NE(y.find(", 10000 ]  # ns"), std::string::npos) << y;
  EXPECT_NE(y.find("ASSUMED: give --assume networks.1.size"), std::string::npos) << y;
  bool noted = false;
  for (const auto &n : c.notes)
    noted |= n.find("scale_out: size 65536") != std::string::npos;
  EXPECT_TRUE(noted);
  // The measured tier's α is still spread over its ring's 2(n-1) steps of 2 links: 10 µs / 12.
  const double up_ns = c.networks[0].latency_s.value * 1e9 / 12;
  EXPECT_NE(y.find(fmt::format("latency: [ {:.6g},", up_ns)), std::string::npos) << y;
}

TEST(FitReport, CountsRunsNotRankDirectoriesAndNotesOnce) {
  const Calibration c =
      calibrate(ranks_of_one_run(4, {1024, 8192, 65536, 524288, 4194304}), Assumptions{}, {});
  EXPECT_EQ(c.runs.size(), 4u);
  EXPECT_EQ(c.run_ids, std::vector<std::string>{"r1"});
  const std::string md = fit_report_markdown(fit_report_json(c));
  EXPECT_NE(md.find("Runs: 1 (4 directories)."), std::string::npos) << md;
  // Each note once: "no GEMM records" was added by the GEMM fit and again at the end.
  std::size_t gemm_notes = 0;
  for (const auto &n : c.notes)
    gemm_notes += n.find("no GEMM records") != std::string::npos;
  EXPECT_EQ(gemm_notes, 1u);
}

TEST(CoefficientFile, CarriesTheSchemaAndEveryFamily) {
  const Calibration c = calibrate(make_runs({}), Assumptions{}, {});
  const auto j = coefficient_file(c);
  EXPECT_EQ(j["schema"], kCoefficientSchema);
  EXPECT_TRUE(j["gemm"].contains("bf16"));
  EXPECT_EQ(j["gemm"]["bf16"]["by_shape"].size(), 33u);
  EXPECT_TRUE(j["network"]["scale_up"]["ops"].contains("all_reduce"));
  EXPECT_TRUE(j["network"]["scale_up"]["ops"]["all_reduce"]["table"].is_array());
  EXPECT_TRUE(j["rdma"]["write"].contains("latency"));
  EXPECT_TRUE(j["offload"].contains("h2d.pinned.near"));
}

} // namespace
} // namespace railgauge::calibrate

namespace railgauge::calibrate {
namespace {

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
