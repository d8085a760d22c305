// A verdict in every output format: JSON (golden), JUnit, Prometheus, table, Markdown and the
// drain list.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
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
#include "tests/analysis/check/check_test_support.h"
#include "tests/support/reference_run_dirs.h"

namespace railgauge::check {
namespace {

using namespace support;

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

// The console verdict is read in one look: no line past 120 columns unless --wide, which keeps
// every line whole; the drain list is wrapped, never cut.
TEST_F(Outputs, TableLinesFitOneHundredTwentyColumnsUnlessWide) {
  const auto r = small_result();
  const auto widest = [](const std::string &text) {
    std::size_t most = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      most = std::max(most, line.size());
    return most;
  };
  const auto table = render_table(r);
  EXPECT_LE(widest(table), kTableColumns) << table;
  const auto wide = render_table(r, true);
  EXPECT_GT(widest(wide), kTableColumns) << "the fixture has a line to cut";
  EXPECT_NE(table.find("drain: node02 node03\n"), std::string::npos) << table;
}

// A real record's figure rounded to its noise in the console and markdown text, and whole in
// the JSON beside its noise: the committed H200 run's host-to-device copies, whose efficiency at
// 1 MiB is 0.81047 with samples spread 0.99 % (u = 0.008: "0.810") and at 4 KiB 0.026535 with
// 6.1 % (u = 0.0016: "0.027"). Before, both printed four digits: "0.8105", "0.02653".
TEST(Output, RealRecordsFigureIsRoundedToItsNoise) {
  std::vector<std::string> dirs;
  for (const auto &dir : railgauge::testing::reference_run_dirs("h200-2026-11-26"))
    if (dir.find("/runs/offload/") != std::string::npos)
      dirs.push_back(dir);
  ASSERT_EQ(dirs.size(), 1u);
  const auto r = evaluate(rules(R"(
  - id: h2d-floor
    category: pcie
    severity: fail
    select: {key: offload.all_gpus_h2d, params: {engine: copy_engine}}
    metric: metrics.efficiency
    compare: ">="
    value: 0.875
)"),
                          analysis::load_runs(dirs));
  const auto table = render_table(r, true);
  EXPECT_NE(table.find("metrics.efficiency = 0.810, needs >= 0.875"), std::string::npos) << table;
  EXPECT_NE(table.find("metrics.efficiency = 0.027, needs >= 0.875"), std::string::npos) << table;
  const auto md = render_markdown(r);
  EXPECT_NE(md.find("metrics.efficiency = 0.810, needs >= 0.875"), std::string::npos) << md;
  const auto j = to_json(r);
  bool found = false;
  for (const auto &part : j["parts"])
    for (const auto &f : part["findings"])
      if (f["rule"] == "h2d-floor" && !f["missing"].get<bool>() &&
          f["params"]["size_bytes"] == 1048576) {
        found = true;
        EXPECT_NEAR(f["value"].get<double>(), 0.8104737952849681, 1e-15);
        // The p10..p90 half-width of its time samples over their median
        EXPECT_NEAR(f["noise_rel"].get<double>(), 0.010135403001673806, 1e-12);
      }
  EXPECT_TRUE(found) << j.dump(1);
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

// Every format fails what the JSON fails, part by part: a GPU that a burn phase never measured
// (no finding of its own), a GPU failed by missing values counted but not listed, two GPUs of one
// label (a board moved between two runs), and a reason in ANSI colours (a control character XML
// 1.0 does not allow).
// "classname name" of every JUnit case -> failure, error or pass; empty where the XML is not.
std::map<std::string, std::string> junit_outcomes(const std::string &junit) {
  std::map<std::string, std::string> outcome;
  pugi::xml_document doc;
  if (!doc.load_string(junit.c_str()))
    return outcome;
  for (auto suite : doc.child("testsuites").children("testsuite"))
    for (auto tc : suite.children("testcase"))
      outcome[std::string(tc.attribute("classname").value()) + " " + tc.attribute("name").value()] =
          tc.child("failure") ? "failure"
          : tc.child("error") ? "error"
                              : "pass";
  return outcome;
}

TEST(Output, EveryFormatFailsThePartsTheJsonFails) {
  CheckResult r;
  r.rules_name = "t";
  r.rule_categories = {
      {"burn-hbm-floor", "memory"}, {"burn-gemm-floor", "compute"}, {"absent", "health"}};
  PartResult node;
  node.key = {"h1", PartKind::node, ""};
  node.label = "h1";
  node.verdict = Level::fail;
  const auto finding = [](std::string rule, std::string category, std::string detail) {
    Finding f;
    f.rule_id = std::move(rule);
    f.category = std::move(category);
    f.detail = std::move(detail);
    return f;
  };
  node.findings.push_back(
      finding("burn-hbm-floor", "memory", "no record of 'memory.burn' on this node"));
  node.findings.back().missing = true;
  PartResult unmeasured;
  unmeasured.key = {"h1", PartKind::gpu, "0000:06:00.0"};
  unmeasured.label = "gpu0";
  unmeasured.verdict = Level::fail;
  unmeasured.not_measured = {"burn-hbm-floor"};
  PartResult moved = unmeasured;
  moved.key.id = "0000:07:00.0";
  moved.not_measured.clear();
  auto slow = finding("burn-gemm-floor", "compute", "\x1b[31mslow\x1b[0m");
  slow.what = "metrics.tflops";
  slow.value = 1;
  slow.bound = ">= 2";
  moved.findings.push_back(slow);
  PartResult counted;
  counted.key = {"h1", PartKind::gpu, "0000:08:00.0"};
  counted.label = "gpu1";
  counted.verdict = Level::fail;
  RuleTally tally;
  tally.unlisted_missing[static_cast<std::size_t>(Level::fail)] = 1;
  counted.rules.add("absent", tally);
  r.parts = {node, unmeasured, moved, counted};
  r.verdict = Level::fail;

  const auto junit = render_junit(r);
  EXPECT_EQ(junit.find('\x1b'), std::string::npos);
  auto outcome = junit_outcomes(junit);
  EXPECT_EQ(outcome["h1.gpu0@0000:06:00.0 burn-hbm-floor"], "error") << junit;
  EXPECT_EQ(outcome["h1.gpu0@0000:07:00.0 burn-gemm-floor"], "failure") << junit;
  EXPECT_EQ(outcome["h1.gpu1 absent"], "error") << junit;

  const auto prom = render_prometheus(r);
  EXPECT_NE(prom.find(R"(part="gpu0",id="0000:07:00.0",rule="burn-gemm-floor")"), std::string::npos)
      << prom;
  const auto table = render_table(r, true);
  EXPECT_NE(table.find("gpu1 (0000:08:00.0)"), std::string::npos) << table;
  EXPECT_NE(render_markdown(r).find("| h1 | gpu1 (0000:08:00.0) | FAIL |"), std::string::npos)
      << render_markdown(r);
  // The grid's column of the GPU never measured reads MISS on the phase's row.
  const auto grid = table.substr(0, table.find("host  part"));
  const auto row = grid.find("burn-hbm-floor");
  ASSERT_NE(row, std::string::npos) << table;
  const auto line = grid.substr(row, grid.find('\n', row) - row);
  EXPECT_NE(line.find("MISS"), line.rfind("MISS")) << line; // node's and the GPU's
}

TEST(Output, JunitJudgesAFindingByItsLevelMissingOrNot) {
  // An Xid log unread at warn was an <error>, red, while a warning violated (a million NVLink
  // errors) was a green case: the same exit status, 1, opposite colours.
  CheckResult r;
  r.rules_name = "t";
  r.rule_categories = {{"load-xid", "health"},
                       {"load-nvlink-errors", "nvlink"},
                       {"xid", "health"},
                       {"fp64-floor", "compute"}};
  PartResult gpu;
  gpu.key = {"h1", PartKind::gpu, "0000:06:00.0"};
  gpu.label = "gpu0";
  gpu.verdict = Level::fail;
  const auto finding = [](const char *rule, Level level, bool missing) {
    Finding f;
    f.rule_id = rule;
    f.category = "health";
    f.level = level;
    f.missing = missing;
    f.what = "metrics.x";
    return f;
  };
  gpu.findings = {finding("load-xid", Level::warn, true),
                  finding("load-nvlink-errors", Level::warn, false),
                  finding("xid", Level::fail, true)};
  // A warn rule the GPU was never measured on, on a GPU failed by another rule: its node's
  // finding gives the level (the GPU's verdict once made it red).
  gpu.not_measured = {"fp64-floor"};
  PartResult node;
  node.key = {"h1", PartKind::node, ""};
  node.label = "h1";
  node.verdict = Level::fail;
  node.findings = {finding("fp64-floor", Level::warn, true)};
  r.parts = {node, gpu};
  r.verdict = Level::fail;
  const auto junit = render_junit(r);
  auto outcome = junit_outcomes(junit);
  EXPECT_EQ(outcome["h1.gpu0 load-xid"], "pass") << junit;
  EXPECT_EQ(outcome["h1.gpu0 load-nvlink-errors"], "pass") << junit;
  EXPECT_EQ(outcome["h1.gpu0 xid"], "error") << junit;
  EXPECT_EQ(outcome["h1.gpu0 fp64-floor"], "pass") << junit;
  EXPECT_EQ(outcome["h1 fp64-floor"], "pass") << junit;
  EXPECT_NE(junit.find("WARN missing: "), std::string::npos) << junit;
}

// A process seen on a GPU in several phases is one line, the phases after it; a finding that
// reads otherwise (another pid, another value, another run) keeps a line of its own.
TEST(Output, FindingsThatReadTheSameOnAPartFoldAndOthersDoNot) {
  CheckResult r;
  r.rules_name = "fold";
  PartResult p;
  p.key = {"h1", PartKind::gpu, "0000:01:00.0"};
  p.label = "gpu0";
  p.verdict = Level::fail;
  const auto seen = [](const std::string &key, const nlohmann::json &params, double count,
                       const std::string &detail, const std::string &run) {
    Finding f;
    f.rule_id = "load-foreign-process";
    f.category = "health";
    f.what = "metrics.telemetry.foreign_processes.count";
    f.value = count;
    f.bound = "<= 0";
    f.detail = detail;
    f.key = key;
    f.params = params;
    f.run = run;
    return f;
  };
  p.findings = {seen("gemm.burn", {{"dtype", "bf16"}}, 1, "spin (pid 7)", "a"),
                seen("gemm.burn", {{"dtype", "fp64"}}, 1, "spin (pid 7)", "a"),
                seen("memory.burn", {}, 1, "spin (pid 8)", "a"),
                seen("offload.all_gpus_h2d", {{"placement", "far"}}, 1, "spin (pid 7)", "a"),
                seen("offload.all_gpus_h2d", {{"placement", "near"}}, 2, "spin (pid 7)", "a"),
                seen("gemm.burn", {{"dtype", "tf32"}}, 1, "spin (pid 7)", "b")};
  r.parts.push_back(p);
  const std::string text = render_table(r, true);
  EXPECT_NE(text.find("FAIL load-foreign-process [health]: 6 findings on 1 part"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    the same in 2 more records: gemm.burn fp64, offload.all_gpus_h2d far\n"),
            std::string::npos)
      << text;
  for (const char *own : {"spin (pid 8)", "= 2, needs <= 0", "[gemm.burn dtype=tf32"})
    EXPECT_NE(text.find(own), std::string::npos) << own << "\n" << text;
  // Four lines: the folded one, and the three that read otherwise.
  std::size_t lines = 0;
  for (auto at = text.find("\n  h1 "); at != std::string::npos; at = text.find("\n  h1 ", at + 1))
    ++lines;
  EXPECT_EQ(lines, 4u) << text;
}

TEST(Output, AMultiNodeGroupIsJudgedOnEachOfItsMachines) {
  // A ten-node nccl-tests log is one part, "a+b+...": the node table, the JSON nodes, the
  // Prometheus node verdicts and the per-node files listed the group as one node, the verdict
  // column pushed off the console line by ten joined names.
  CheckResult r;
  r.rules_name = "t";
  const auto node = [](std::string host, Level verdict) {
    PartResult p;
    p.key = {host, PartKind::node, ""};
    p.label = std::move(host);
    p.verdict = verdict;
    return p;
  };
  r.parts = {node("n1+n2+n3+n4", Level::warn), node("n2", Level::fail), node("n2+n5", Level::pass),
             node("n5", Level::pass)};
  std::sort(r.parts.begin(), r.parts.end(),
            [](const PartResult &a, const PartResult &b) { return a.key < b.key; });
  r.verdict = Level::fail;

  const auto j = to_json(r);
  std::map<std::string, std::string> verdicts;
  for (const auto &n : j["nodes"])
    verdicts[n["host"]] = n["verdict"];
  EXPECT_EQ(verdicts,
            (std::map<std::string, std::string>{
                {"n1", "warn"}, {"n2", "fail"}, {"n3", "warn"}, {"n4", "warn"}, {"n5", "pass"}}));
  EXPECT_EQ(j["nodes"][1]["groups"], (nlohmann::json{"n1+n2+n3+n4", "n2+n5"}));
  EXPECT_EQ(render_drain(r), "n2\n");

  const auto prom = render_prometheus(r);
  EXPECT_NE(prom.find(R"(railgauge_check_node_verdict{host="n3",rules="t"} 1)"), std::string::npos)
      << prom;
  EXPECT_EQ(prom.find(R"(railgauge_check_node_verdict{host="n1+)"), std::string::npos) << prom;
  // n3's own file: its verdict, and the series of the group that judged it; not n5's.
  const auto n3 = render_prometheus(r, {.only_host = "n3"});
  EXPECT_NE(n3.find(R"(railgauge_check_part_verdict{host="n1+n2+n3+n4",kind="node")"),
            std::string::npos)
      << n3;
  EXPECT_EQ(n3.find(R"(host="n2")"), std::string::npos) << n3;
  EXPECT_EQ(n3.find(R"(host="n5")"), std::string::npos) << n3;
  EXPECT_EQ(n3.find(R"(railgauge_check_node_verdict{host="n1)"), std::string::npos) << n3;

  const auto table = render_table(r, false);
  EXPECT_NE(table.find("\nn1 and 3 more nodes  node  WARN"), std::string::npos) << table;
  EXPECT_NE(table.find("\nn2+n5                node  PASS"), std::string::npos) << table;
  EXPECT_NE(table.find("\nnodes of n1 and 3 more nodes: n1 n2 n3 n4\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("FAIL: 5 nodes (1 pass, 3 warn, 1 fail)"), std::string::npos) << table;
}

} // namespace
} // namespace railgauge::check
