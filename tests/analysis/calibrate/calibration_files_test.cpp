// The files a calibration writes: a Calculon system file that passes every structural rule of
// the format, ASTRA-sim's network, the fit report and the coefficient file.
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
