// Rules files: parsing, their errors, bases extended rule by rule, params filters and
// comparisons; and the shipped profiles, every number cited.
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
#include "analysis/check/rule_values.h"
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
  // An empty set would pass every value under none_of: refused where it is written.
  EXPECT_NE(rules_error(base + "    compare: none_of\n    values: []\n")
                .find("t.yaml:10: 'none_of' has an empty 'values' list"),
            std::string::npos);
  EXPECT_NE(rules_error("  - id: [unclosed\n").find("t.yaml:"), std::string::npos);
  EXPECT_NE(rules_error(base + "    compare: \">=\"\n    value: 1\n").find(""), std::string::npos);
  EXPECT_EQ(rules_error(base + "    compare: \">=\"\n    value: 1\n"), "");
}

// detail: the items of a list in the judged record, each through the rule's text, beside the
// figure; nothing where the list is empty. Misuse is refused at its line.
TEST(Rules, ADetailShowsEachItemOfAListBesideTheJudgedFigure) {
  const std::string rule = "  - id: links\n    category: nvlink\n    severity: warn\n"
                           "    select: {key: gemm.burn}\n"
                           "    metric: metrics.telemetry.health_delta.nvlink_errors\n"
                           "    compare: \"<=\"\n";
  const auto set =
      rules(rule + "    value: 0\n    detail: {path: metrics.telemetry.health_delta."
                   "nvlink_errors_per_link, text: \"NVLink {link}: {crc_flit} flit\"}\n");
  Record r;
  r.key = "gemm.burn";
  r.metrics["telemetry"]["health_delta"] = {
      {"nvlink_errors", 15.0},
      {"nvlink_errors_per_link",
       {{{"link", 7}, {"crc_flit", 12.0}}, {{"link", 11}, {"crc_flit", 3.0}}}}};
  auto values = rule_values(set.rules.at(0), r);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].detail, "NVLink 7: 12 flit; NVLink 11: 3 flit");
  r.metrics["telemetry"]["health_delta"]["nvlink_errors_per_link"] = json::array();
  EXPECT_EQ(rule_values(set.rules.at(0), r).at(0).detail, "");
  r.metrics["telemetry"]["health_delta"]["nvlink_errors_per_link"] = nullptr;
  EXPECT_EQ(rule_values(set.rules.at(0), r).at(0).detail, "");

  EXPECT_NE(rules_error(rule + "    value: 0\n    detail: {path: metrics.x, text: plain}\n")
                .find("t.yaml:11: detail text 'plain' names no field"),
            std::string::npos);
  EXPECT_NE(rules_error(rule + "    value: 0\n    detail: {path: metrics.*.x, text: \"{a}\"}\n")
                .find("must start with metrics. or params., without wildcards"),
            std::string::npos);
  // A curve's finding is about a curve, not one record: no detail; a fleet's is a record's.
  EXPECT_NE(rules_error(rule + "    curve: {over: size_bytes, take: peak}\n    value: 0\n"
                               "    detail: {path: metrics.x, text: \"{a}\"}\n")
                .find("'detail' is shown by a rule that judges records, not curves"),
            std::string::npos);
  EXPECT_NE(rules_error(rule + "    fleet: {fraction: 1.1, scope: node}\n"
                               "    detail: {path: metrics.x, text: \"{a}\"}\n")
                .find("'detail' is not shown by a rule with relative_to: or a fleet scope:"),
            std::string::npos);
  // on_missing_relative_to is the level of a value without its denominator: with none, a mistake.
  EXPECT_NE(rules_error(rule + "    value: 0\n    on_missing_relative_to: info\n")
                .find("'on_missing_relative_to' is the level of a value without its relative_to"),
            std::string::npos);
  const auto limit_set = rules(rule + "    relative_to: metrics.limit\n    value: 1\n"
                                      "    on_missing_relative_to: info\n");
  Record hot;
  hot.key = "gemm.burn";
  hot.metrics["telemetry"]["health_delta"]["nvlink_errors"] = nullptr;
  EXPECT_EQ(no_metric_level(limit_set.rules.at(0), hot), Level::info); // no limit: no verdict
  hot.metrics["limit"] = 2.0;
  const auto unread = rule_values(limit_set.rules.at(0), hot);
  ASSERT_EQ(unread.size(), 1u);
  EXPECT_EQ(unread[0].unreadable_level, Level::warn); // the limit read: the rule's on_missing
  EXPECT_EQ(unread[0].unreadable, "value null is not a number (over 2)");
  hot.metrics["limit"] = 0.0;
  EXPECT_EQ(rule_values(limit_set.rules.at(0), hot).at(0).unreadable_level, Level::info);
  // A param's single value: `{value}`.
  const auto fleet_set =
      rules(rule + "    fleet: {fraction: 1.1}\n    detail: {path: params.memory, text: "
                   "\"memory {value}\"}\n");
  r.params["memory"] = "gpu:2";
  r.metrics["telemetry"]["health_delta"]["nvlink_errors"] = 15.0;
  EXPECT_EQ(rule_values(fleet_set.rules.at(0), r).at(0).detail, "memory gpu:2");
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

// Each H200 fabric profile is the H100's on the same fabric with NHC's H200 floors and its own
// HBM floor: the same rules, three values changed.
TEST(Profiles, H200IsTheH100ProfileWithNhcsH200Floors) {
  for (const std::string fabric : {"ib", "roce"}) {
    const auto h100 = load_rules_file(kSource + "/results/rules/h100-sxm-" + fabric + ".yaml");
    const auto h200 = load_rules_file(kSource + "/results/rules/h200-sxm-" + fabric + ".yaml");
    EXPECT_EQ(h200.name, "h200-sxm-" + fabric);
    ASSERT_EQ(h200.rules.size(), h100.rules.size()) << fabric;
    for (std::size_t i = 0; i < h100.rules.size(); ++i) {
      EXPECT_EQ(h200.rules[i].id, h100.rules[i].id);
      if (h100.rules[i].id == "allreduce-8gpu-floor")
        EXPECT_EQ(h200.rules[i].value, 431);
      else if (h100.rules[i].id == "rdma-write-bw-floor")
        EXPECT_EQ(h200.rules[i].value, 360);
      else if (h100.rules[i].id == "hbm-floor")
        EXPECT_EQ(h200.rules[i].value, 3240.1);
      else
        EXPECT_EQ(h200.rules[i].value, h100.rules[i].value) << fabric << " " << h100.rules[i].id;
    }
    EXPECT_EQ(h200.suite, h100.suite);
    EXPECT_EQ(h100.gpu, "H100");
    EXPECT_EQ(h200.gpu, "H200");
  }
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

TEST(Rules, RanksPerHostIsTheGroupsRanksOverItsHosts) {
  // The 8-GPU-a-node floor once failed a healthy 16 x 1 all_reduce (world 16, 2+ hosts).
  const auto filter = json::parse(R"({"ranks_per_host": 8})");
  EXPECT_TRUE(params_match(filter, {{"group_size", 16}, {"group_hosts", 2}}));
  EXPECT_FALSE(params_match(filter, {{"group_size", 16}, {"group_hosts", 16}}));
  EXPECT_FALSE(params_match(filter, {{"group_size", 16}, {"group_hosts", 4}}));
  EXPECT_FALSE(params_match(filter, {{"group_size", 15}, {"group_hosts", 2}})); // uneven
  EXPECT_FALSE(params_match(filter, {{"group_size", 16}}));
  EXPECT_FALSE(params_match(filter, {{"group_size", 16}, {"group_hosts", 0}}));
  // A record that states it is read as it says.
  EXPECT_TRUE(
      params_match(filter, {{"ranks_per_host", 8}, {"group_size", 16}, {"group_hosts", 16}}));
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

// ------------------------------------------------------------------ shipped profiles

TEST(Profiles, ParseAndCiteEveryNumber) {
  for (const char *name :
       {"h100-sxm-ib", "h100-sxm-roce", "h200-sxm-ib", "h200-sxm-roce", "host-only"}) {
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
