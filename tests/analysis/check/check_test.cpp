#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

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
#include "tests/support/reference_run_dirs.h"

namespace railgauge::check {
namespace {

using json = nlohmann::json;
using testing::FleetFaults;
using testing::gpu_bus_id;
using testing::make_fleet;

const std::string kSource = RAILGAUGE_SOURCE_DIR;

RuleSet rules(const std::string &body) {
  return parse_rules("schema: railgauge.rules/1\nname: t\nrules:\n" + body, "t.yaml");
}

// The InputError message of parsing `body`, or "" when it parses.
std::string rules_error(const std::string &body) {
  try {
    rules(body);
  } catch (const InputError &e) {
    return e.what();
  }
  return "";
}

const PartResult *find_part(const CheckResult &r, const std::string &host, PartKind kind,
                            const std::string &id) {
  for (const auto &p : r.parts)
    if (p.key.host == host && p.key.kind == kind && p.key.id == id)
      return &p;
  return nullptr;
}

// Parts with a finding of `rule` that is a violation (not missing).
std::vector<std::string> violators(const CheckResult &r, const std::string &rule) {
  std::vector<std::string> out;
  for (const auto &p : r.parts)
    for (const auto &f : p.findings)
      if (f.rule_id == rule && !f.missing) {
        out.push_back(p.key.host + "/" + p.label);
        break;
      }
  return out;
}

const char *kGemmRules = R"(
  - id: gemm-absolute
    category: compute
    severity: fail
    select: {key: "gemm.*", params: {dtype: bf16}}
    metric: metrics.tflops
    compare: ">="
    value: 600
  - id: gemm-relative
    category: compute
    severity: fail
    select: {key: "gemm.*", params: {dtype: bf16}}
    metric: metrics.tflops
    compare: ">="
    fleet: {mads: 3, fraction: 0.95}
)";

// ------------------------------------------------------------------ rules files

TEST(Rules, ParsesRecordAndInventoryRules) {
  const auto set = rules(std::string(kGemmRules) + R"(
  - id: ecc
    category: health
    severity: warn
    on_missing: info
    inventory: gpu.ecc_uncorrected_volatile
    compare: "=="
    value: 0
)");
  ASSERT_EQ(set.rules.size(), 3u);
  EXPECT_EQ(set.rules[0].key_glob, "gemm.*");
  EXPECT_EQ(set.rules[0].params["dtype"], "bf16");
  EXPECT_EQ(*set.rules[0].value, 600);
  EXPECT_EQ(set.rules[0].on_missing, Level::fail); // defaults to the severity
  EXPECT_EQ(*set.rules[1].fleet->mads, 3);
  EXPECT_EQ(*set.rules[1].fleet->fraction, 0.95);
  EXPECT_TRUE(set.rules[2].from_inventory());
  EXPECT_EQ(set.rules[2].on_missing, Level::info);
  EXPECT_EQ(set.rules[1].where, "t.yaml:12");
}

TEST(Rules, ErrorsNameTheLineAndTheFix) {
  const std::string base = "  - id: a\n    category: compute\n    severity: fail\n"
                           "    select: {key: gemm.x}\n    metric: metrics.tflops\n";
  // Each bad rules file gives an error at the right line of t.yaml (line 4 is the rule's first).
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    value: 1\n    colour: red\n")
                .find("t.yaml:11: unknown field 'colour'"),
            std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n")
                .find("t.yaml:4: rule 'a' needs exactly one "
                      "bound"),
            std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    value: 1\n    fleet: {mads: 3}\n")
                .find("exactly one bound"),
            std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \"=>\"\n    value: 1\n")
                .find("t.yaml:9: unknown comparison '=>'"),
            std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    value: fast\n")
                .find("t.yaml:10: 'value' must be a number"),
            std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    fleet: {fraction: 1.1}\n")
                .find("wrong side of the median"),
            std::string::npos);
  EXPECT_NE(rules_error("  - id: a\n    category: gpu\n").find("t.yaml:5: unknown category 'gpu'"),
            std::string::npos);
  EXPECT_NE(rules_error("  - id: a\n    category: health\n    severity: fail\n"
                        "    inventory: gpu.ecc\n    compare: \"==\"\n    value: 0\n")
                .find("t.yaml:7: unknown inventory probe 'gpu.ecc'"),
            std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    value: 1\n" + base +
                        "    compare: \">=\"\n    value: 1\n")
                .find("t.yaml:11: duplicate rule id 'a'"),
            std::string::npos);
  EXPECT_NE(rules_error("  - id: [unclosed\n").find("t.yaml:"), std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    value: 1\n").find(""), std::string::npos);
  EXPECT_EQ(rules_error(base + "    compare: \">=\"\n    value: 1\n"), "");
}

// A profile on a base: the base's rules in its order, each replaced by the file's rule of the
// same id, the file's new rules after them; the name is the file's. A base that leads back to
// the file, or cannot be read, is an input error naming the base.
TEST(Rules, BaseIsExtendedRuleByRule) {
  const auto dir = std::filesystem::temp_directory_path() / "railgauge_rules_base_test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string rule_a = "  - {id: a, category: compute, severity: fail, select: {key: "
                             "\"gemm.*\"}, metric: metrics.tflops, compare: \">=\", value: 1}\n";
  const std::string rule_b = "  - {id: b, category: compute, severity: warn, select: {key: "
                             "\"gemm.*\"}, metric: metrics.tflops, compare: \">=\", value: ";
  write("base.yaml",
        "schema: railgauge.rules/1\nname: base\nsuite: s\nrules:\n" + rule_a + rule_b + "2}\n");
  const auto derived =
      write("derived.yaml", "schema: railgauge.rules/1\nname: derived\nbase: base.yaml\nrules:\n" +
                                rule_b + "3}\n" + rule_a.substr(0, 9) + "c" + rule_a.substr(10));
  const auto set = load_rules_file(derived);
  EXPECT_EQ(set.name, "derived");
  EXPECT_EQ(set.suite, "s");
  ASSERT_EQ(set.rules.size(), 3u);
  EXPECT_EQ(set.rules[0].id, "a");
  EXPECT_EQ(set.rules[1].id, "b");
  EXPECT_EQ(set.rules[1].value, 3);
  EXPECT_EQ(set.rules[2].id, "c");

  const auto loop = write(
      "loop.yaml", "schema: railgauge.rules/1\nname: loop\nbase: loop.yaml\nrules:\n" + rule_a);
  const auto missing = write(
      "missing.yaml", "schema: railgauge.rules/1\nname: m\nbase: nowhere.yaml\nrules:\n" + rule_a);
  for (const auto &[path, says] : {std::pair{loop, "leads back"}, {missing, "cannot read"}}) {
    try {
      load_rules_file(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const InputError &e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_NE(e.where().find(path), std::string::npos) << e.where();
    }
  }
  std::filesystem::remove_all(dir);
}

// The H200 profile is the H100's with NHC's H200 floors: the same rules, two values lower.
TEST(Profiles, H200IsTheH100ProfileWithNhcsH200Floors) {
  const auto h100 = load_rules_file(kSource + "/results/rules/h100-sxm-ib.yaml");
  const auto h200 = load_rules_file(kSource + "/results/rules/h200-sxm-ib.yaml");
  ASSERT_EQ(h200.rules.size(), h100.rules.size());
  for (std::size_t i = 0; i < h100.rules.size(); ++i) {
    EXPECT_EQ(h200.rules[i].id, h100.rules[i].id);
    if (h100.rules[i].id == "allreduce-8gpu-floor")
      EXPECT_EQ(h200.rules[i].value, 431);
    else if (h100.rules[i].id == "rdma-write-bw-floor")
      EXPECT_EQ(h200.rules[i].value, 360);
    else
      EXPECT_EQ(h200.rules[i].value, h100.rules[i].value) << h100.rules[i].id;
  }
  EXPECT_EQ(h200.suite, h100.suite);
}

TEST(Rules, ParamsFilterNumbersGlobsListsAndRanges) {
  const json params = {{"dtype", "bf16"}, {"tp", 8}, {"size_bytes", 1 << 30}};
  EXPECT_TRUE(params_match(json::parse(R"({"dtype":"bf16","tp":8})"), params));
  EXPECT_TRUE(params_match(json::parse(R"({"dtype":"bf*"})"), params));
  EXPECT_TRUE(params_match(json::parse(R"({"tp":[1,2,8]})"), params));
  EXPECT_TRUE(params_match(json::parse(R"({"size_bytes":">=1073741824"})"), params));
  EXPECT_FALSE(params_match(json::parse(R"({"size_bytes":">1073741824"})"), params));
  EXPECT_FALSE(params_match(json::parse(R"({"tp":4})"), params));
  EXPECT_FALSE(params_match(json::parse(R"({"model":"*"})"), params)); // absent never matches
}

TEST(Rules, Comparisons) {
  EXPECT_TRUE(compare_pass(Op::ge, 5, 5));
  EXPECT_FALSE(compare_pass(Op::gt, 5, 5));
  EXPECT_TRUE(compare_pass(Op::le, 4, 5));
  EXPECT_FALSE(compare_pass(Op::lt, 5, 5));
  EXPECT_TRUE(compare_pass(Op::eq, 0, 0));
  EXPECT_TRUE(compare_pass(Op::ne, 1, 0));
  const std::vector<std::string> bad = {"hw_slowdown", "hw_thermal_slowdown"};
  EXPECT_TRUE(values_pass(Op::none_of, json::array({"gpu_idle"}), bad));
  EXPECT_FALSE(values_pass(Op::none_of, json::array({"gpu_idle", "hw_slowdown"}), bad));
  EXPECT_TRUE(values_pass(Op::any_of, "hw_thermal_slowdown", bad));
  EXPECT_FALSE(values_pass(Op::any_of, json::array(), bad));
}

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

// ------------------------------------------------------------------ output formats

class Outputs : public ::testing::Test {
protected:
  // 3 nodes x 2 GPUs, node03 gpu1 8% slow, node02 gpu0 with a failed record; small enough to
  // read the golden files by eye.
  static CheckResult small_result() {
    auto fleet = make_fleet({.slow_gpu = false, .failed_record = true}, 3, 2);
    for (auto &r : fleet.runs[2].records)
      if (r.key == "gemm.cublaslt" && r.device["pci"] == gpu_bus_id(1))
        r.metrics["tflops"] = r.metrics["tflops"].get<double>() * 0.92;
    auto set = rules(std::string(kGemmRules) + R"(
  - id: h2d-floor
    category: pcie
    severity: warn
    select: {key: offload.h2d}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 54.9
  - id: throttle
    category: health
    severity: fail
    inventory: gpu.clocks_event_reasons
    compare: none_of
    values: [hw_slowdown]
)");
    for (auto &rule : set.rules)
      if (rule.fleet)
        rule.fleet->min_size = 3;
    return evaluate(set, fleet);
  }

  static void expect_golden(const std::string &name, const std::string &text) {
    const auto path = kSource + "/tests/analysis/check/golden/" + name;
    if (std::getenv("RAILGAUGE_UPDATE_GOLDEN")) {
      std::ofstream(path) << text;
      return;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << "missing golden file " << path
                    << " (set RAILGAUGE_UPDATE_GOLDEN=1 to write it)";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(text, want.str()) << "differs from " << path;
  }
};

TEST_F(Outputs, JsonMatchesGolden) {
  const auto r = small_result();
  const auto j = to_json(r);
  EXPECT_EQ(j["schema"], kCheckSchema);
  EXPECT_EQ(j["verdict"], "fail");
  EXPECT_EQ(j["exit_status"], 2);
  EXPECT_EQ(j["drain"], json::array({"node02", "node03"}));
  expect_golden("check.json", j.dump(2) + "\n");
}

TEST_F(Outputs, JunitParsesBackWithEveryFailure) {
  const auto text = render_junit(small_result());
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(text.c_str()));
  const auto suites = doc.child("testsuites");
  ASSERT_TRUE(suites);
  int failures = 0, cases = 0;
  std::vector<std::string> failed;
  for (auto suite : suites.children("testsuite"))
    for (auto tc : suite.children("testcase")) {
      ++cases;
      if (tc.child("failure")) {
        ++failures;
        failed.push_back(std::string(tc.attribute("classname").value()) + " " +
                         tc.attribute("name").value());
      }
    }
  EXPECT_EQ(suites.attribute("failures").as_int(), failures);
  EXPECT_EQ(suites.attribute("tests").as_int(), cases);
  std::sort(failed.begin(), failed.end());
  EXPECT_EQ(failed,
            (std::vector<std::string>{"node02.gpu0 record-status", "node03.gpu1 gemm-relative"}));
  expect_golden("check.junit.xml", text);
}

TEST_F(Outputs, PrometheusTextfileIsWellFormed) {
  const auto text = render_prometheus(small_result());
  const std::regex sample(R"re([a-z_]+\{([a-z_]+="([^"\\]|\\.)*",?)+\} -?[0-9]+)re");
  std::istringstream lines(text);
  std::string line;
  int samples = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE "))
      continue;
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
    ++samples;
  }
  EXPECT_GT(samples, 0);
  EXPECT_NE(text.find("railgauge_check_node_verdict{host=\"node03\",rules=\"t\"} 2"),
            std::string::npos);
  expect_golden("check.prom", text);
}

TEST_F(Outputs, TableMarkdownAndDrain) {
  const auto r = small_result();
  const auto table = render_table(r);
  EXPECT_NE(table.find("node03  gpu1 (0000:28:00.0)"), std::string::npos) << table;
  EXPECT_NE(table.find("drain: node02 node03"), std::string::npos) << table;
  EXPECT_NE(table.find("FAIL: 3 nodes (0 pass, 1 warn, 2 fail)"), std::string::npos) << table;
  const auto md = render_markdown(r);
  EXPECT_NE(md.find("| host | part | verdict | rules |"), std::string::npos);
  EXPECT_NE(md.find("## Drain\n\n- node02\n- node03\n"), std::string::npos) << md;
  EXPECT_EQ(render_drain(r), "node02\nnode03\n");
}

TEST(Output, PrometheusAndMarkdownEscape) {
  CheckResult r;
  r.rules_name = "a\"b\\c\nd";
  PartResult p;
  p.key = {"h|1", PartKind::node, ""};
  p.label = "h|1";
  r.parts.push_back(p);
  EXPECT_NE(render_prometheus(r).find(R"(rules="a\"b\\c\nd")"), std::string::npos);
  EXPECT_NE(render_markdown(r).find("| h\\|1 |"), std::string::npos);
}

// ------------------------------------------------------------------ shipped profiles

TEST(Profiles, ParseAndCiteEveryNumber) {
  for (const char *name : {"h100-sxm-ib", "h100-sxm-roce", "h200-sxm-ib", "host-only"}) {
    const auto path = kSource + "/results/rules/" + name + ".yaml";
    const auto set = load_rules_file(path);
    EXPECT_EQ(set.name, name);
    // Every rule with a number (value: or fleet:) has a comment in its block: the citation,
    // or why no source gives one.
    std::ifstream in(path);
    std::string line, block;
    std::vector<std::string> blocks;
    while (std::getline(in, line)) {
      if (line.starts_with("  - id:") && !block.empty()) {
        blocks.push_back(block);
        block.clear();
      }
      block += line + "\n";
    }
    blocks.push_back(block);
    for (const auto &b : blocks)
      if (b.starts_with("  - id:") &&
          (b.find("    value:") != std::string::npos || b.find("fleet:") != std::string::npos) &&
          b.find('#') == std::string::npos &&
          b.find("value: 1\n") == std::string::npos) // booleans (verified, port up) need none
        ADD_FAILURE() << name << ": rule without a cited number:\n" << b;
  }
}

} // namespace
} // namespace railgauge::check
