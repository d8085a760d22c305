// Every path a shipped rule reads, followed through the record schema to its leaf: a rule whose
// path names a field no record has (a typo, a field renamed in the writer) reads "missing" on
// every node and judges nothing, however healthy or broken the node is. Checking the first
// segment only let `metrics.telemetry.<anything>` pass because `telemetry` exists.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/rules.h"
#include "railgauge/config.h"

namespace railgauge {
namespace {

using nlohmann::json;

const std::string kSource = RAILGAUGE_SOURCE_DIR;

json record_schema() {
  std::ifstream in(kSource + "/results/schema/record.schema.json");
  return json::parse(in);
}

std::vector<std::string> segments_of(const std::string &path) {
  std::vector<std::string> out;
  std::stringstream in(path);
  for (std::string s; std::getline(in, s, '.');)
    out.push_back(s);
  return out;
}

// Whether the schema node reaches the path from segment `at` on. `*` is any one child (a
// property, an additional or pattern property, an array's items), `**` any number of levels,
// zero included (analysis/check/json_path.h). Depth bounds the walk: `**` through a schema that
// refers to itself (per_gpu's items are a telemetry again) would not end.
class SchemaWalk {
public:
  explicit SchemaWalk(json schema) : root_(std::move(schema)) {}

  bool reaches(const std::string &path) const { return reaches(root_, segments_of(path), 0, 0); }

private:
  const json &resolved(const json &node) const {
    const json *n = &node;
    while (n->is_object() && n->contains("$ref")) {
      const auto ref = n->at("$ref").get<std::string>(); // "#/$defs/NAME"
      n = &root_.at("$defs").at(ref.substr(ref.rfind('/') + 1));
    }
    return *n;
  }

  // The children a segment names: the property, or a pattern or additional property; every
  // child for `*`.
  std::vector<const json *> children(const json &node, const std::string &segment) const {
    std::vector<const json *> out;
    const bool any = segment == "*";
    if (const auto p = node.find("properties"); p != node.end())
      for (const auto &[name, child] : p->items())
        if (any || name == segment)
          out.push_back(&child);
    if (const auto p = node.find("patternProperties"); p != node.end())
      for (const auto &[pattern, child] : p->items())
        if (any || std::regex_search(segment, std::regex(pattern)))
          out.push_back(&child);
    if (out.empty() || any)
      for (const char *open : {"additionalProperties", "items"})
        if (const auto p = node.find(open); p != node.end() && p->is_object())
          out.push_back(&*p);
    return out;
  }

  bool reaches(const json &raw, const std::vector<std::string> &path, std::size_t at,
               int depth) const {
    if (depth > 24)
      return false;
    const json &node = resolved(raw);
    if (at == path.size())
      return true;
    if (!node.is_object())
      return false;
    for (const char *each : {"anyOf", "oneOf", "allOf"})
      if (const auto p = node.find(each); p != node.end())
        for (const auto &branch : *p)
          if (reaches(branch, path, at, depth + 1))
            return true;
    if (path[at] == "**") {
      if (reaches(node, path, at + 1, depth + 1)) // zero levels
        return true;
      for (const json *child : children(node, "*"))
        if (reaches(*child, path, at, depth + 1))
          return true;
      return false;
    }
    for (const json *child : children(node, path[at]))
      if (reaches(*child, path, at + 1, depth + 1))
        return true;
    return false;
  }

  json root_;
};

TEST(RulePaths, TheWalkFollowsPropertiesReferencesAndWildcardsToTheLeaf) {
  const SchemaWalk walk(record_schema());
  EXPECT_TRUE(walk.reaches("metrics.telemetry.during.reason_fraction.hw_slowdown"));
  EXPECT_TRUE(walk.reaches("metrics.telemetry.**.health_delta.xid_events"));
  EXPECT_TRUE(walk.reaches("metrics.port_counter_deltas.*.link_downed"));
  EXPECT_TRUE(walk.reaches("metrics.time_s.median"));
  // A leaf no record has, under a field that exists: the first-segment check passed these.
  EXPECT_FALSE(walk.reaches("metrics.telemetry.during.reason_fraction_typo.hw_slowdown"));
  EXPECT_FALSE(walk.reaches("metrics.telemetry.health_delta.xid_event"));
  EXPECT_FALSE(walk.reaches("metrics.telemetry.**.health_delta.no_such_counter"));
  EXPECT_FALSE(walk.reaches("metrics.no_such_metric"));
}

TEST(RulePaths, EveryPathAShippedRuleReadsIsInTheRecordSchemaToItsLeaf) {
  const SchemaWalk walk(record_schema());
  int paths = 0;
  for (const auto &file : std::filesystem::directory_iterator(kSource + "/results/rules")) {
    const auto rules = check::load_rules_file(file.path().string());
    for (const auto &rule : rules.rules) {
      if (rule.from_inventory())
        continue; // an inventory probe's path is into the inventory, not a record
      for (const auto &path :
           {rule.metric, rule.relative_to, rule.detail ? rule.detail->path : std::string()}) {
        if (path.empty())
          continue;
        ++paths;
        EXPECT_TRUE(walk.reaches(path))
            << file.path().filename().string() << " rule " << rule.id << " reads " << path
            << ", which results/schema/record.schema.json does not reach: fix the rule's path, "
               "or give the schema the field the record has";
      }
    }
  }
  EXPECT_GT(paths, 100);
}

TEST(RulePaths, EverySchemaMetricHasAType) {
  // A metric without a type validates whatever a writer puts there: a number written as a
  // string would pass the schema and read "missing" in every rule.
  const auto schema = record_schema();
  int metrics = 0;
  for (const auto &[name, field] : schema.at("properties").at("metrics").at("properties").items()) {
    ++metrics;
    EXPECT_TRUE(field.contains("type") || field.contains("$ref") || field.contains("anyOf") ||
                field.contains("oneOf") || field.contains("enum") || field.contains("const"))
        << "metrics." << name << " has no type in results/schema/record.schema.json";
  }
  EXPECT_GT(metrics, 200);
}

} // namespace
} // namespace railgauge
