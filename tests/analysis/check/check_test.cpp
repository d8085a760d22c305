// check on synthetic fleets: JSON paths and fleet statistics, then the verdicts rules give on
// fleets (relative and absolute bounds, inventory probes, missing metrics, real runs).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/fleet_stats.h"
#include "analysis/check/inventory_probes.h"
#include "analysis/check/json_path.h"
#include "analysis/check/rules.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "railgauge/config.h"
#include "synthetic_fleet.h"
#include "tests/analysis/check/check_test_support.h"
#include "tests/support/reference_run_dirs.h"

namespace railgauge::check {
namespace {

using namespace support;

// ------------------------------------------------------------------ paths and statistics

TEST(JsonPath, WildcardsResolveToConcretePaths) {
  const json doc = {{"metrics",
                     {{"time_s", {{"median", 2.0}}},
                      {"port_counter_deltas",
                       {{"counters", {{"link_downed", 1}}}, {"hw_counters", {{"x", 2}}}}}}}};
  auto v = resolve_path(doc, "metrics.time_s.median");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].value, 2.0);
  v = resolve_path(doc, "metrics.port_counter_deltas.*.link_downed");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].path, "metrics.port_counter_deltas.counters.link_downed");
  EXPECT_EQ(resolve_path(doc, "metrics.**.x").at(0).path,
            "metrics.port_counter_deltas.hw_counters.x");
  EXPECT_EQ(resolve_path(doc, "metrics.**").size(), 8u); // every node, each once
  EXPECT_TRUE(resolve_path(doc, "metrics.nope").empty());
}

TEST(FleetStats, MedianAndMad) {
  const std::vector<double> odd = {1, 2, 3, 4, 100};
  auto s = fleet_stats(odd);
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mad, 1); // deviations 2 1 0 1 97
  const std::vector<double> even = {1, 2, 4, 8};
  s = fleet_stats(even);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mad, 1.5); // deviations 2 1 1 5
  EXPECT_THROW(fleet_stats(std::vector<double>{}), std::invalid_argument);
}

TEST(FleetStats, ThresholdTakesTheLooserBound) {
  FleetStats s{10, 100, 2};
  FleetBound b;
  b.mads = 3;
  EXPECT_DOUBLE_EQ(fleet_threshold(b, Op::ge, s), 94);
  EXPECT_DOUBLE_EQ(fleet_threshold(b, Op::le, s), 106);
  b.fraction = 0.9;
  EXPECT_DOUBLE_EQ(fleet_threshold(b, Op::ge, s), 90); // min(94, 90)
  b.fraction = 0.97;
  EXPECT_DOUBLE_EQ(fleet_threshold(b, Op::ge, s), 94); // min(94, 97)
  b.mads.reset();
  b.fraction = 2.1;
  EXPECT_DOUBLE_EQ(fleet_threshold(b, Op::le, s), 210);
}

TEST(NaturalOrder, DigitRunsCompareAsNumbers) {
  EXPECT_TRUE(natural_less("node2", "node10"));
  EXPECT_FALSE(natural_less("node10", "node2"));
  EXPECT_TRUE(natural_less("gpu9", "gpu10"));
  EXPECT_TRUE(natural_less("a", "b"));
  EXPECT_FALSE(natural_less("node1", "node1"));
  EXPECT_TRUE(natural_less("node1", "node01")); // a tie by value, then by length: still strict
}

// An HGX H100/H200 baseboard's GPUs sit at buses 18, 2a, 3a, 5d, 9a, ab, ba, db: read as
// numbers, "2a" was 2 and gpu0 (bus 18) was listed after gpu4 (bus 2a) in every table.
TEST(NaturalOrder, GpusOfAnHgxNodeAreInBusOrder) {
  std::vector<PartKey> parts;
  for (const char *bus : {"db", "2a", "9a", "18", "ab", "3a", "ba", "5d"})
    parts.push_back({"node01", PartKind::gpu, fmt::format("0000:{}:00.0", bus)});
  std::sort(parts.begin(), parts.end());
  std::vector<std::string> ids;
  for (const auto &p : parts)
    ids.push_back(p.id.substr(5, 2));
  EXPECT_EQ(ids, (std::vector<std::string>{"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"}));
  // Other ids still read naturally.
  EXPECT_TRUE((PartKey{"n", PartKind::nic, "mlx5_2"} < PartKey{"n", PartKind::nic, "mlx5_10"}));
}

// The loader's problems in line order within a file, as a reader walks it.
TEST(NaturalOrder, ProblemLinesAreInLineOrder) {
  auto fleet = make_fleet({});
  fleet.problems = {"n/records.jsonl:10: not a complete JSON line",
                    "n/records.jsonl:2: not a complete JSON line"};
  const auto r = evaluate(rules(kGemmRules), fleet);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0], "n/records.jsonl:2: not a complete JSON line");
}

TEST(Probes, ReadInventoryAndNormalizeBusIds) {
  EXPECT_EQ(normalize_bus_id("00000000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(normalize_bus_id("0000:1a:00.0"), "0000:1a:00.0");
  const auto fleet = make_fleet({.pcie_gen4 = true});
  const auto &inv = fleet.runs[4].manifest["inventory"]; // node05
  const auto gen = run_probe("gpu.pcie_gen_below_max", inv);
  ASSERT_EQ(gen.values.size(), 8u);
  EXPECT_EQ(gen.values[2].id, gpu_bus_id(2));
  EXPECT_EQ(gen.values[2].value, 1.0);
  EXPECT_EQ(gen.values[3].value, 0.0);
  EXPECT_EQ(run_probe("nic.port_active", inv).values.at(0).value, 1);
  EXPECT_EQ(run_probe("nic.counter.link_downed", inv).values.at(0).value, 0);
  EXPECT_EQ(run_probe("node.gpu_count", inv).values.at(0).value, 8);
  json no_nvml = inv;
  no_nvml["nvml"] = {
      {"available", false}, {"reason", "libnvidia-ml.so.1: not found"}, {"gpus", json::array()}};
  const auto r = run_probe("gpu.nvlink_down", no_nvml);
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("libnvidia-ml"), std::string::npos);
}

// ------------------------------------------------------------------ verdicts on fleets

TEST(Check, SlowGpuIsCaughtByTheRelativeRuleAndNotTheAbsoluteOne) {
  const auto r = evaluate(rules(kGemmRules), make_fleet({.slow_gpu = true}));
  EXPECT_EQ(violators(r, "gemm-relative"), std::vector<std::string>{"node03/gpu5"});
  EXPECT_TRUE(violators(r, "gemm-absolute").empty());
  const auto *gpu = find_part(r, "node03", PartKind::gpu, gpu_bus_id(5));
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, Level::fail);
  ASSERT_EQ(gpu->findings.size(), 1u);
  EXPECT_EQ(gpu->findings[0].fleet->n, 64);
  EXPECT_NE(gpu->findings[0].detail.find("-8."), std::string::npos) << gpu->findings[0].detail;
  EXPECT_EQ(gpu->rules.at("gemm-relative").checked, 1);
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node03"});
  EXPECT_EQ(exit_status(r.verdict), 2);
}

TEST(Check, HealthyFleetPasses) {
  const auto r = evaluate(rules(kGemmRules), make_fleet({}));
  EXPECT_EQ(r.verdict, Level::pass);
  EXPECT_TRUE(r.drain().empty());
  EXPECT_EQ(r.hosts().size(), 8u);
  // 8 nodes, 64 GPUs, 64 NICs (from the rdma records' devices, for the record-status rule).
  EXPECT_EQ(r.parts.size(), 8u + 64u + 64u);
  EXPECT_EQ(exit_status(r.verdict), 0);
}

TEST(Check, PcieGen4LinkIsFoundInTheInventoryAndInTheBandwidth) {
  const auto profile = load_rules_file(kSource + "/results/rules/h100-sxm-ib.yaml");
  const auto r = evaluate(profile, make_fleet({.pcie_gen4 = true}));
  EXPECT_EQ(violators(r, "pcie-gen-below-max"), std::vector<std::string>{"node05/gpu2"});
  EXPECT_EQ(violators(r, "pcie-link-downtrained"), std::vector<std::string>{"node05/gpu2"});
  EXPECT_EQ(violators(r, "h2d-floor"), std::vector<std::string>{"node05/gpu2"});
  EXPECT_EQ(violators(r, "offload-vs-fleet"), std::vector<std::string>{"node05/gpu2"});
  EXPECT_TRUE(violators(r, "pcie-width").empty());
  const auto *gpu = find_part(r, "node05", PartKind::gpu, gpu_bus_id(2));
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, Level::fail);
}

TEST(Check, ProfilesJudgeTheFloorsOnPinnedNearMemoryOnly) {
  // The default offload run also times pageable and far-NUMA copies at 512 MiB; those are
  // slower on every healthy node and must not fail the nvbandwidth-style floors.
  for (const char *name : {"h100-sxm-ib", "h100-sxm-roce"}) {
    const auto profile = load_rules_file(kSource + "/results/rules/" + name + ".yaml");
    const auto healthy = evaluate(profile, make_fleet({.host_memory_variants = true}));
    EXPECT_TRUE(violators(healthy, "h2d-floor").empty()) << name;
    EXPECT_TRUE(violators(healthy, "offload-vs-fleet").empty()) << name;
    EXPECT_TRUE(violators(healthy, "pcie-link-downtrained").empty()) << name;
    const auto gen4 =
        evaluate(profile, make_fleet({.pcie_gen4 = true, .host_memory_variants = true}));
    EXPECT_EQ(violators(gen4, "h2d-floor"), std::vector<std::string>{"node05/gpu2"}) << name;
  }
}

TEST(Check, NicWithLinkDownedDeltasFails) {
  const auto profile = load_rules_file(kSource + "/results/rules/h100-sxm-ib.yaml");
  const auto r = evaluate(profile, make_fleet({.nic_link_downed = true}));
  EXPECT_EQ(violators(r, "link-downed-during-point"), std::vector<std::string>{"node07/mlx5_4"});
  EXPECT_EQ(violators(r, "symbol-errors-during-point"), std::vector<std::string>{"node07/mlx5_4"});
  const auto *nic = find_part(r, "node07", PartKind::nic, "mlx5_4");
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->verdict, Level::fail);
  EXPECT_EQ(nic->findings.front().what, "metrics.port_counter_deltas.counters.link_downed");
}

// An HCA in firmware error: verbs lists it but cannot open it, so it has no port to probe. It
// fails on every port rule as a value the inventory could not give, never a NIC left out.
TEST(Check, NicVerbsCannotOpenFailsAsMissing) {
  const auto profile = load_rules_file(kSource + "/results/rules/h100-sxm-ib.yaml");
  auto fleet = make_fleet({});
  auto &devices = fleet.runs[2].manifest["inventory"]["verbs"]["devices"];
  ASSERT_GE(devices.size(), 4u);
  devices[3] = {{"name", devices[3]["name"]},
                {"error", "ibv_open_device: Input/output error"},
                {"ports", json::array()}};
  const std::string host = fleet.runs[2].manifest["host"];
  const std::string name = devices[3]["name"];
  const auto r = evaluate(profile, fleet);
  const auto *nic = find_part(r, host, PartKind::nic, name);
  ASSERT_NE(nic, nullptr);
  EXPECT_EQ(nic->verdict, Level::fail);
  std::set<std::string> rules_missing;
  for (const auto &f : nic->findings)
    if (f.missing && f.what.find("ibv_open_device: Input/output error") != std::string::npos)
      rules_missing.insert(f.rule_id);
  EXPECT_EQ(rules_missing, (std::set<std::string>{"nic-port-active", "nic-physical-link-up",
                                                  "nic-rate", "nic-link-layer"}));
}

TEST(Check, ProfilesFindTheSlowGpuAsAWarning) {
  const auto profile = load_rules_file(kSource + "/results/rules/h100-sxm-roce.yaml");
  const auto r = evaluate(profile, make_fleet({.slow_gpu = true}));
  EXPECT_EQ(violators(r, "gemm-vs-fleet-warn"), std::vector<std::string>{"node03/gpu5"});
  EXPECT_TRUE(violators(r, "gemm-vs-fleet-fail").empty()); // 8% is inside SuperBench's 10%
  // The fixture's ports are InfiniBand: the RoCE profile says so on every NIC.
  EXPECT_EQ(violators(r, "nic-link-layer").size(), 64u);
}

TEST(Check, MissingMetricsAreReportedNeverPassed) {
  const auto set = rules(R"(
  - id: h2d
    category: pcie
    severity: fail
    select: {key: offload.h2d}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 48
  - id: no-such-metric
    category: memory
    severity: warn
    select: {key: memory.hbm_copy}
    metric: metrics.nonexistent_gbytes_per_s
    compare: ">="
    value: 1
  - id: nvlink
    category: nvlink
    severity: fail
    on_missing: info
    inventory: gpu.nvlink_up
    compare: ">="
    value: 18
)");
  auto fleet = make_fleet({.drop_h2d = true}, 8, 2);
  fleet.runs[0].manifest["inventory"]["nvml"] = {
      {"available", false}, {"reason", "no NVML here"}, {"gpus", json::array()}};
  const auto r = evaluate(set, fleet);
  const auto *node8 = find_part(r, "node08", PartKind::node, "");
  ASSERT_NE(node8, nullptr);
  ASSERT_FALSE(node8->findings.empty());
  EXPECT_TRUE(node8->findings[0].missing);
  EXPECT_EQ(node8->findings[0].rule_id, "h2d");
  EXPECT_EQ(node8->verdict, Level::fail); // missing at the rule's severity
  const auto *gpu = find_part(r, "node02", PartKind::gpu, gpu_bus_id(1));
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, Level::warn);
  EXPECT_TRUE(gpu->findings.at(0).missing);
  EXPECT_EQ(gpu->findings[0].rule_id, "no-such-metric");
  const auto *node1 = find_part(r, "node01", PartKind::node, "");
  bool nvml_missing = false;
  for (const auto &f : node1->findings)
    nvml_missing |= f.rule_id == "nvlink" && f.missing && f.level == Level::info &&
                    f.detail.find("no NVML here") != std::string::npos;
  EXPECT_TRUE(nvml_missing);
}

// A curve's point whose figure is not a number is a value the rule could not read: missing at
// the rule's severity, never a point left out so that the next largest passes in its place.
TEST(Check, ACurvePointThatIsNotANumberIsMissingNeverLeftOut) {
  auto fleet = make_fleet({}, 2, 8);
  // A bandwidth sweep of the fleet: the key of the first ok record with a size and a bandwidth.
  std::string key;
  for (const auto &rec : fleet.runs[0].records)
    if (rec.status == Status::ok && rec.params.contains("size_bytes") &&
        rec.metrics.contains("bandwidth_gbytes_per_s")) {
      key = rec.key;
      break;
    }
  ASSERT_FALSE(key.empty());
  const auto set = rules(fmt::format(R"(
  - id: largest
    category: memory
    severity: fail
    select: {{key: "{}"}}
    metric: metrics.bandwidth_gbytes_per_s
    curve: {{over: size_bytes, take: largest}}
    compare: ">="
    value: 0.001
)",
                                     key));
  EXPECT_EQ(evaluate(set, fleet).verdict, Level::pass);
  // One node's figures lost: every point of its curves unreadable, none left out.
  const std::string host = fleet.runs[0].records.front().host;
  for (auto &rec : fleet.runs[0].records)
    if (rec.key == key && rec.status == Status::ok)
      rec.metrics["bandwidth_gbytes_per_s"] = nullptr;
  const auto r = evaluate(set, fleet);
  int unreadable = 0;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == "largest") {
        EXPECT_EQ(p.key.host, host);
        EXPECT_TRUE(f.missing);
        EXPECT_EQ(f.level, Level::fail);
        unreadable += f.detail.find("value null is not a number") != std::string::npos;
      }
  EXPECT_GE(unreadable, 1);
  EXPECT_EQ(r.verdict, Level::fail);
}

TEST(Check, FleetTooSmallIsMissingNotPass) {
  const auto r = evaluate(rules(kGemmRules), make_fleet({}, 1, 2));
  const auto *gpu = find_part(r, "node01", PartKind::gpu, gpu_bus_id(0));
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(gpu->findings.size(), 1u);
  EXPECT_TRUE(gpu->findings[0].missing);
  EXPECT_EQ(gpu->findings[0].level, Level::info);
  EXPECT_NE(gpu->findings[0].detail.find("smaller than min_size 5"), std::string::npos);
  EXPECT_EQ(r.verdict, Level::info);
  EXPECT_EQ(exit_status(r.verdict), 0);
}

// The committed reference runs of healthy H200s in one-GPU VMs (two machines, two sessions),
// judged by the 8-GPU H100 and H200 profiles: the node fails on its GPU count, once however many
// runs report it, and on what the VM cannot show (NVLink, NICs: missing), while every per-GPU
// floor judges real records and passes.
TEST(Check, RealH200ReferenceRunFailsOnlyTheEightGpuNodeRules) {
  for (const auto &[reference, name] : {std::pair{"h200-2026-11-26", "h100-sxm-ib"},
                                        {"h200-2026-11-26", "h200-sxm-ib"},
                                        {"h200-2026-11-26b", "h100-sxm-ib"},
                                        {"h200-2026-11-26b", "h200-sxm-ib"}}) {
    SCOPED_TRACE(std::string(reference) + " judged by " + name);
    const auto runs = analysis::load_runs(railgauge::testing::reference_run_dirs(reference));
    const auto r = evaluate(load_rules_file(kSource + "/results/rules/" + name + ".yaml"), runs);
    std::vector<std::string> violations;
    for (const auto &p : r.parts)
      for (const auto &f : p.findings)
        if (!f.missing && !f.not_applicable && !f.not_covered)
          violations.push_back(f.rule_id + " " + p.label + " = " + f.value.dump());
    EXPECT_EQ(violations, std::vector<std::string>{"gpu-count vm = 1"});
    const auto *gpu = find_part(r, "vm", PartKind::gpu, "0000:00:06.0");
    ASSERT_NE(gpu, nullptr);
    for (const char *rule :
         {"hbm-floor", "hbm-data-check", "h2d-floor", "d2h-floor", "sgemm-floor", "pcie-width",
          "pcie-gen-max", "row-remap-pending", "clocks-throttled"}) {
      ASSERT_TRUE(gpu->rules.contains(rule)) << rule;
      EXPECT_GT(gpu->rules.at(rule).checked, 0) << rule;
      EXPECT_EQ(gpu->rules.at(rule).passed, gpu->rules.at(rule).checked) << rule;
    }
    EXPECT_EQ(r.verdict, Level::fail);
  }
}

TEST(Check, FailedRecordFailsItsPartEvenWithoutARule) {
  const auto r = evaluate(rules(kGemmRules), make_fleet({.failed_record = true}));
  EXPECT_EQ(violators(r, kRecordStatusRule), std::vector<std::string>{"node02/gpu0"});
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node02"});
}

// A two-node all_reduce in a node's own run: a node-local profile passes every other rule of the
// node but selects no multi-node record, and says so (it passed the fabric unread before); a
// fabric profile judges it, and says nothing of the kind.
TEST(Check, MultiNodeRecordsNoRuleSelectsAreNamedEvenOnANodeOtherwiseJudged) {
  auto fleet = make_fleet({});
  Record two_nodes;
  two_nodes.run = fleet.runs[0].records.front().run;
  two_nodes.host = fleet.runs[0].records.front().host;
  two_nodes.key = "collectives.nccl_all_reduce";
  two_nodes.params = {{"size_bytes", 1 << 30},
                      {"group_hosts", 2},
                      {"world_size", 16},
                      {"group_size", 16},
                      {"dtype", "bf16"}};
  two_nodes.metrics = {{"busbw_gbytes_per_s", 54.97}};
  fleet.runs[0].records.push_back(two_nodes);
  const auto unjudged = [](const CheckResult &r) {
    std::vector<std::string> out;
    for (const auto &p : r.parts)
      for (const auto &f : p.findings)
        if (f.rule_id == kNothingJudgedRule)
          out.push_back(p.key.host + ": " + f.detail);
    return out;
  };
  const auto local = evaluate(load_rules_file(kSource + "/results/rules/h200-sxm.yaml"), fleet);
  const auto named = unjudged(local);
  ASSERT_EQ(named.size(), 1u) << ::testing::PrintToString(named);
  EXPECT_EQ(named[0].rfind(two_nodes.host + ": no rule of h200-sxm selects its 1 ok record "
                                            "(collectives.nccl_all_reduce x1), which ran across "
                                            "hosts",
                           0),
            0u)
      << named[0];
  EXPECT_NE(local.verdict, Level::pass);
  const auto fabric = evaluate(load_rules_file(kSource + "/results/rules/h200-sxm-ib.yaml"), fleet);
  EXPECT_EQ(unjudged(fabric), std::vector<std::string>{});
}

TEST(Check, SameInputsGiveIdenticalOutputInAnyLoadOrder) {
  const FleetFaults all{true, true, true, true, true};
  const auto profile = load_rules_file(kSource + "/results/rules/h100-sxm-ib.yaml");
  const auto a = evaluate(profile, make_fleet(all));
  auto shuffled = make_fleet(all);
  std::reverse(shuffled.runs.begin(), shuffled.runs.end());
  for (auto &run : shuffled.runs)
    std::reverse(run.records.begin(), run.records.end());
  const auto b = evaluate(profile, shuffled);
  EXPECT_EQ(to_json(a).dump(), to_json(b).dump());
  EXPECT_EQ(render_table(a), render_table(b));
  EXPECT_EQ(render_junit(a), render_junit(b));
  EXPECT_EQ(render_prometheus(a), render_prometheus(b));
  EXPECT_EQ(render_markdown(a), render_markdown(b));
}

// A run of which nothing names its host (run.json not JSON, not one record readable, as with
// invalid UTF-8 in the host name) is no node's: its paths fail the verdict as unreadable inputs,
// and the drain list never carries its directory for a node (scontrol would refuse it).
TEST(Check, ARunThatNamesNoHostFailsTheVerdictAndDrainsNoDirectory) {
  auto runs = make_fleet({}, 2, 1);
  analysis::LoadedRun lost;
  lost.dir = "fleet/n0001/run-1";
  runs.runs.push_back(lost);
  for (const auto *file : {"run.json", "records.jsonl"})
    runs.unreadable.push_back({lost.dir + "/" + file, "not valid JSON"});
  const auto r = evaluate(load_rules_file(kSource + "/results/rules/any-fabric.yaml"), runs);
  EXPECT_EQ(r.verdict, Level::fail);
  EXPECT_EQ(r.unreadable.size(), 2u);
  for (const auto &p : r.parts)
    EXPECT_NE(p.key.host, lost.dir);
  EXPECT_TRUE(r.drain().empty()) << ::testing::PrintToString(r.drain());
}

// A fleet's console table lists what did not pass and counts the rest: the one FAIL among 60
// nodes is near the top, not one row of 60 sorted by host. --wide lists every node.
TEST(Check, AFleetsTableListsTheNodesThatDidNotPassAndCountsTheOthers) {
  const auto r = evaluate(rules(kGemmRules), make_fleet({.slow_gpu = true}, 60, 8));
  const auto table = render_table(r);
  EXPECT_NE(table.find("\nnode03  node "), std::string::npos) << table;
  EXPECT_EQ(table.find("\nnode04  node "), std::string::npos) << table;
  EXPECT_NE(table.find("... and 59 nodes that PASS, not listed (--wide lists every node)"),
            std::string::npos)
      << table;
  EXPECT_NE(render_table(r, true).find("\nnode04  node "), std::string::npos);
}

} // namespace
} // namespace railgauge::check
