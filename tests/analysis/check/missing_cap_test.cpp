// Missing values past the cap per rule (analysis/check/missing_list.h): listed up to the cap,
// counted beyond it, with counts and verdicts as exact as when every one was a finding.
#include <algorithm>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "analysis/check/check_output.h"
#include "analysis/check/evaluate.h"
#include "analysis/check/missing_list.h"
#include "analysis/check/rules.h"
#include "synthetic_fleet.h"

namespace railgauge::check {
namespace {

constexpr int kNodes = 40;

// Every GEMM record lacks the metric (one missing value per record, far past the cap); no node
// holds the key of the second rule (one missing value per node, under the cap).
RuleSet absent_rules() {
  return parse_rules(R"(schema: railgauge.rules/1
name: absent
rules:
  - id: absent-metric
    category: compute
    severity: warn
    select: {key: "gemm.*"}
    metric: metrics.absent_counter
    compare: "<="
    value: 0
  - id: absent-key
    category: compute
    severity: fail
    select: {key: "nosuch.*"}
    metric: metrics.tflops
    compare: ">="
    value: 1
)",
                     "absent.yaml");
}

long long gemm_records(const analysis::RunSet &fleet) {
  long long n = 0;
  for (const auto &run : fleet.runs)
    for (const auto &r : run.records)
      if (r.key.rfind("gemm.", 0) == 0) {
        EXPECT_EQ(r.status, Status::ok);
        ++n;
      }
  return n;
}

std::size_t listed(const CheckResult &r, const std::string &rule) {
  std::size_t n = 0;
  for (const auto &p : r.parts)
    n += std::count_if(p.findings.begin(), p.findings.end(),
                       [&](const Finding &f) { return f.missing && f.rule_id == rule; });
  return n;
}

TEST(MissingCap, ListedMissingValuesAreBoundedWhileCountsAreExact) {
  const auto fleet = testing::make_fleet({}, kNodes, 8);
  const long long expected = gemm_records(fleet);
  ASSERT_GT(expected, static_cast<long long>(2 * kMissingListedPerRule));
  const auto result = evaluate(absent_rules(), fleet);

  // Listed: the cap, the first parts in printed order; every node's absent key (under the cap).
  EXPECT_EQ(listed(result, "absent-metric"), kMissingListedPerRule);
  EXPECT_EQ(listed(result, "absent-key"), static_cast<std::size_t>(kNodes));
  const auto first = std::find_if(result.parts.begin(), result.parts.end(), [](const auto &p) {
    return std::any_of(p.findings.begin(), p.findings.end(),
                       [](const Finding &f) { return f.rule_id == "absent-metric"; });
  });
  ASSERT_NE(first, result.parts.end());
  EXPECT_EQ(first->key.host, "node01");

  // Counted: one group (family, level, reason), exact, on every node.
  ASSERT_EQ(result.unlisted_missing.size(), 1u);
  const auto &c = result.unlisted_missing.front();
  EXPECT_EQ(c.rule_id, "absent-metric");
  EXPECT_EQ(c.family, "gemm");
  EXPECT_EQ(c.level, Level::warn);
  EXPECT_EQ(c.detail, "the record has no such metric");
  EXPECT_EQ(c.count, expected - static_cast<long long>(kMissingListedPerRule));
  // The first nodes' values are all listed: the others are counted.
  const long long per_node = expected / kNodes;
  const long long counted_nodes = kNodes - static_cast<long long>(kMissingListedPerRule) / per_node;
  EXPECT_EQ(std::count(c.hosts.begin(), c.hosts.end(), true), counted_nodes);

  // A value counted, not listed, still weighs in its part's verdict: every GPU is at warn.
  for (const auto &p : result.parts) {
    if (p.key.kind == PartKind::gpu)
      EXPECT_EQ(p.verdict, Level::warn) << p.key.host << " " << p.label;
    if (p.key.kind == PartKind::node)
      EXPECT_EQ(result.node_verdict(p.key.host), Level::fail);
  }

  const auto j = to_json(result);
  EXPECT_EQ(j["summary"]["missing"].get<long long>(), expected + kNodes);
  EXPECT_EQ(j["summary"]["missing_unlisted"].get<long long>(), c.count);
  ASSERT_EQ(j["missing_unlisted"].size(), 1u);
  EXPECT_EQ(j["missing_unlisted"][0]["count"].get<long long>(), c.count);
  EXPECT_EQ(j["missing_unlisted"][0]["nodes"].get<long long>(), counted_nodes);

  // Prometheus counts per part add up to every missing value of the rule.
  const auto prom = render_prometheus(result);
  const std::regex series(
      R"(rule="absent-metric",category="compute",level="missing_warn"\} (\d+))");
  long long sum = 0;
  for (auto it = std::sregex_iterator(prom.begin(), prom.end(), series);
       it != std::sregex_iterator(); ++it)
    sum += std::stoll((*it)[1]);
  EXPECT_EQ(sum, expected);

  // JUnit: a GPU whose values are all counted still says so in its case, at the rule's level:
  // a warning, green with its text (as a listed one is), never a silent pass.
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(render_junit(result).c_str()));
  const auto last_gpu =
      doc.select_node("//testcase[@classname='node40.gpu7'][@name='absent-metric']/system-out");
  ASSERT_TRUE(last_gpu) << "node40 gpu7's missing values are not said";
  const std::string said = last_gpu.node().text().get();
  EXPECT_NE(said.find("WARN missing: "), std::string::npos) << said;
  EXPECT_NE(said.find("counted, not listed"), std::string::npos) << said;

  const auto table = render_table(result);
  EXPECT_NE(table.find(std::to_string(expected) + " findings of 1 rule on " +
                       std::to_string(kNodes) + " nodes"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find(std::to_string(c.count) + " of them counted, not listed"), std::string::npos)
      << table;
  EXPECT_NE(render_markdown(result).find("## Missing values counted, not listed"),
            std::string::npos);
}

TEST(MissingCap, WhatIsListedDoesNotDependOnLoadOrder) {
  auto fleet = testing::make_fleet({}, kNodes, 8);
  const auto a = evaluate(absent_rules(), fleet);
  std::reverse(fleet.runs.begin(), fleet.runs.end());
  for (auto &run : fleet.runs)
    std::reverse(run.records.begin(), run.records.end());
  const auto b = evaluate(absent_rules(), fleet);
  EXPECT_EQ(to_json(a).dump(1), to_json(b).dump(1));
  EXPECT_EQ(render_table(a), render_table(b));
  EXPECT_EQ(render_junit(a), render_junit(b));
}

} // namespace
} // namespace railgauge::check
