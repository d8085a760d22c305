// The shipped profile against its shipped suite: a synthetic healthy H100 node run through
// burnin-h100 by the real runner (synthetic_node.h) passes h100-sxm-ib, with the points waived by
// construction reported as not applicable; each injected fault fails or warns naming its part.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "analysis/check/check_output.h"
#include "analysis/check/check_result.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "analysis/report/report.h"
#include "analysis/run_set.h"
#include "railgauge/config.h"
#include "synthetic_node.h"

namespace railgauge::check {
namespace {

using testing::NodeFaults;
using testing::write_synthetic_node;

const std::string kSource = RAILGAUGE_SOURCE_DIR;

CheckResult judge(const NodeFaults &faults, const std::string &profile = "h100-sxm-ib",
                  testing::Fabric fabric = testing::Fabric::infiniband) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("railgauge-burnin-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(out);
  const auto dir = write_synthetic_node(kSource + "/results/suites/burnin-h100.yaml", out.string(),
                                        1, faults, fabric);
  const auto rules = load_rules_file(kSource + "/results/rules/" + profile + ".yaml");
  auto result = evaluate(rules, analysis::load_runs({dir}));
  std::filesystem::remove_all(out);
  return result;
}

// Labels of the parts with a violation (not missing, not info) of `rule`.
std::set<std::string> violators(const CheckResult &r, const std::string &rule) {
  std::set<std::string> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule && !f.missing && !f.not_covered && !f.not_applicable &&
          f.level >= Level::warn)
        out.insert(p.label);
  return out;
}

// Findings with `flag` set at `level` or worse.
int count_findings(const CheckResult &r, bool Finding::*flag, Level level = Level::info) {
  int n = 0;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      n += f.*flag && f.level >= level;
  return n;
}

TEST(BurninProfile, HealthyNodePasses) {
  const auto r = judge({});
  EXPECT_EQ(exit_status(r.verdict), 0) << render_table(r); // pass, info findings included
  // Missing at warn or fail: a floor the suite does not feed. (A fleet rule on one node lacks the
  // parts it compares, which is missing at info: a rack's check judges it.)
  EXPECT_EQ(count_findings(r, &Finding::missing, Level::warn), 0) << render_table(r);
  // One process waives the MPI collectives and the in-place sendrecv/alltoall by construction.
  EXPECT_GT(count_findings(r, &Finding::not_applicable), 0);
  // The floors that make a burn-in judged something: not passed for want of records.
  for (const std::string rule :
       {"allreduce-8gpu-floor", "sgemm-floor", "hbm-floor", "h2d-floor", "d2h-floor",
        "h2d-within-node", "gemm-vs-fleet-fail", "rdma-write-bw-floor", "busbw-falls-with-size"}) {
    int checked = 0;
    for (const auto &p : r.parts)
      if (auto it = p.rules.find(rule); it != p.rules.end())
        checked += it->second.checked;
    EXPECT_GT(checked, 0) << rule << " judged nothing";
  }
}

TEST(BurninProfile, HealthyRoceNodePassesTheRoceProfile) {
  const auto r = judge({}, "h100-sxm-roce", testing::Fabric::roce);
  EXPECT_EQ(exit_status(r.verdict), 0) << render_table(r); // pass, info findings included
  // Missing at warn or fail: a floor the suite does not feed. (A fleet rule on one node lacks the
  // parts it compares, which is missing at info: a rack's check judges it.)
  EXPECT_EQ(count_findings(r, &Finding::missing, Level::warn), 0) << render_table(r);
}

TEST(BurninProfile, InfinibandNodeFailsTheRoceProfileOnItsNics) {
  const auto r = judge({}, "h100-sxm-roce");
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_EQ(violators(r, "nic-link-layer").size(), 8u) << render_table(r);
}

TEST(BurninProfile, SlowGemmGpuIsNamed) {
  const auto r = judge({.slow_gemm_gpu = 5});
  EXPECT_GE(r.verdict, Level::warn);
  EXPECT_EQ(violators(r, "gemm-vs-fleet-warn"), std::set<std::string>{"gpu5"}) << render_table(r);
}

TEST(BurninProfile, HalfTheGpusCopyingSlowerFailWithinTheNode) {
  const auto r = judge({.h2d_half_slow = true});
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_EQ(violators(r, "h2d-within-node"),
            (std::set<std::string>{"gpu4", "gpu5", "gpu6", "gpu7"}))
      << render_table(r);
}

// The report of the same node draws it: one H2D bar per GPU, the slow half red with its share.
TEST(BurninProfile, ReportShowsTheSlowHalfAsRedBars) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("railgauge-burnin-report-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  const auto dir = write_synthetic_node(kSource + "/results/suites/burnin-h100.yaml", out.string(),
                                        1, {.h2d_half_slow = true}, testing::Fabric::infiniband);
  const auto runs = analysis::load_runs({dir});
  const report::Report page = report::build_report({"node", &runs, nullptr, std::nullopt});
  std::filesystem::remove_all(out);
  const auto at = page.html.find("offload.h2d: GB/s per GPU");
  ASSERT_NE(at, std::string::npos) << "no per-GPU H2D chart";
  const std::string svg = page.html.substr(at, page.html.find("</svg>", at) - at);
  std::size_t red = 0, bars = 0;
  for (auto p = svg.find("<rect "); p != std::string::npos; p = svg.find("<rect ", p + 1)) {
    ++bars;
    const std::string red_fill = "fill=\"#d62728\"";
    red += svg.compare(svg.find("fill=", p), red_fill.size(), red_fill) == 0;
  }
  EXPECT_EQ(bars, 8u);
  EXPECT_EQ(red, 4u);
  EXPECT_NE(page.markdown.find("| gpu7 |"), std::string::npos) << "per-GPU table";
}

TEST(BurninProfile, DowntrainedLinkFails) {
  const auto r = judge({.downtrained_gpu = 2});
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_EQ(violators(r, "pcie-link-downtrained"), std::set<std::string>{"gpu2"});
  EXPECT_EQ(violators(r, "h2d-floor"), std::set<std::string>{"gpu2"});
  EXPECT_EQ(violators(r, "h2d-within-node"), std::set<std::string>{"gpu2"});
}

TEST(BurninProfile, AllReduceThatFallsFails) {
  const auto r = judge({.allreduce_falls = true});
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_FALSE(violators(r, "busbw-falls-with-size").empty()) << render_table(r);
  EXPECT_FALSE(violators(r, "allreduce-8gpu-floor").empty());
}

TEST(BurninProfile, LatencyTailWarnsOnTheNic) {
  const auto r = judge({.latency_tail = true});
  EXPECT_EQ(r.verdict, Level::warn) << render_table(r);
  EXPECT_EQ(violators(r, "rdma-latency-tail"), std::set<std::string>{"mlx5_0"});
}

TEST(BurninProfile, LinkDownDuringRdmaFails) {
  const auto r = judge({.nic_link_downed = true});
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_EQ(violators(r, "link-downed-during-point"), std::set<std::string>{"mlx5_0"});
}

TEST(BurninProfile, BadCableFailsItsNicOnBandwidthAndWarnsOnSymbolErrors) {
  const auto r = judge({.bad_cable = true});
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_EQ(violators(r, "rdma-write-bw-floor"), std::set<std::string>{"mlx5_0"})
      << render_table(r);
  EXPECT_EQ(violators(r, "symbol-errors-during-point"), std::set<std::string>{"mlx5_0"});
  EXPECT_TRUE(violators(r, "link-downed-during-point").empty());
}

} // namespace
} // namespace railgauge::check
