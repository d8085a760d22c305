// Every path a shipped rule reads, checked against the kinds of record the rule selects, not the
// schema as a whole: `metrics.gbits_per_s` exists in the schema, so a rule on `memory.*` that
// reads it passes rule_paths_test.cpp and reads "missing" on every node, because no memory record
// has it. Two checks: by the contracts (each family's field table, records/*_record.h) for every
// registered key a rule selects, and by the committed reference runs, real records of each kind.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/json_path.h"
#include "analysis/check/rules.h"
#include "cli/make_registry.h"
#include "harness/metric_names.h"
#include "harness/record.h"
#include "railgauge/config.h"
#include "records/block_record.h"
#include "records/collective_record.h"
#include "records/gemm_record.h"
#include "records/memory_record.h"
#include "records/metric_field.h"
#include "records/offload_record.h"
#include "records/per_gpu_parts.h"
#include "records/rdma_record.h"
#include "tests/support/rule_metric.h"

namespace railgauge {
namespace {

using testing::metric_of;

const std::string kSource = RAILGAUGE_SOURCE_DIR;

// The metrics each family's records may carry: its field table, and the core's (time, bytes,
// telemetry, bookkeeping), which every record of the runner has.
std::map<std::string, std::set<std::string>> family_metrics() {
  std::set<std::string> core(std::begin(metric::kCoreMetrics), std::end(metric::kCoreMetrics));
  core.insert(std::begin(metric::kCoreBookkeeping), std::end(metric::kCoreBookkeeping));
  std::map<std::string, std::set<std::string>> out;
  const auto add = [&](const char *family, const auto &table) {
    out[family] = core;
    for (const MetricField &f : table)
      out[family].insert(f.name);
  };
  add(gemm::record::kFamily, gemm::record::kMetrics);
  add(memory::record::kFamily, memory::record::kMetrics);
  add(offload::record::kFamily, offload::record::kMetrics);
  add(rdma::record::kFamily, rdma::record::kMetrics);
  add(collectives::record::kFamily, collectives::record::kMetrics);
  add(block::record::kFamily, block::record::kMetrics);
  return out;
}

struct ShippedRule {
  std::string file;
  check::Rule rule;
};

std::vector<ShippedRule> shipped_record_rules() {
  std::vector<ShippedRule> out;
  for (const auto &file : std::filesystem::directory_iterator(kSource + "/results/rules"))
    for (auto &rule : check::load_rules_file(file.path().string()).rules)
      if (!rule.from_inventory())
        out.push_back({file.path().filename().string(), std::move(rule)});
  return out;
}

// The paths of a rule that name a metric: what it judges, what divides it, what its finding
// shows. A `**` path may reach its leaf through any metric, so it names none.
std::vector<std::string> metric_paths(const check::Rule &rule) {
  std::vector<std::string> out;
  for (const auto &path :
       {rule.metric, rule.relative_to, rule.detail ? rule.detail->path : std::string()})
    if (!metric_of(path).empty() && metric_of(path) != "**")
      out.push_back(path);
  return out;
}

std::string family_of(const std::string &key) { return key.substr(0, key.find('.')); }

TEST(RulePathsByKind, EveryRegisteredKindARuleSelectsNamesTheMetricItReads) {
  const auto tables = family_metrics();
  const auto registry = make_registry();
  int checked = 0;
  for (const auto &[file, rule] : shipped_record_rules())
    for (const auto &path : metric_paths(rule))
      for (const Benchmark *b : registry.all()) {
        const std::string key(b->key());
        if (!check::key_match(rule, key) || !tables.count(family_of(key)))
          continue;
        ++checked;
        EXPECT_TRUE(tables.at(family_of(key)).count(metric_of(path)))
            << file << " rule " << rule.id << " (" << rule.where << ") selects " << key
            << " and reads " << path << ", which the " << family_of(key)
            << " contract does not name: narrow the rule's key, or fix its path";
      }
  EXPECT_GT(checked, 100);
}

// Every ok record of the committed reference runs (railgauge's own and the imported ones), and
// the per-GPU parts that check makes of them.
std::vector<Record> reference_records() {
  std::vector<Record> out;
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(kSource + "/results/reference")) {
    if (entry.path().filename() != "records.jsonl")
      continue;
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) {
        auto r = Record::from_json(nlohmann::json::parse(line));
        // A burn-in point's GPUs, each judged as a record of its own (records/per_gpu_parts.h)
        for (auto &part : records::per_gpu_parts(r))
          if (part.status == Status::ok)
            out.push_back(std::move(part));
        if (r.status == Status::ok)
          out.push_back(std::move(r));
      }
  }
  return out;
}

// Where real records of a key the rule selects exist, at least one of them reaches the path: a
// path that no real record of its kind reaches judges nothing on a real node. (A path may be
// absent from some records: a counter only some NICs have, a figure of some sizes only.)
TEST(RulePathsByKind, EveryPathReachesARealRecordOfEachKindTheRuleSelects) {
  const auto records = reference_records();
  ASSERT_GT(records.size(), 1000u);
  std::map<std::string, std::vector<const Record *>> by_key;
  for (const auto &r : records)
    by_key[r.key].push_back(&r);
  int checked = 0;
  std::set<std::string> kinds_seen, unchecked;
  for (const auto &[file, rule] : shipped_record_rules())
    for (const auto &path : metric_paths(rule)) {
      const int before = checked;
      for (const auto &[key, of_key] : by_key) {
        if (!check::key_match(rule, key))
          continue;
        bool selected = false, reached = false;
        for (const Record *r : of_key) {
          if (!check::params_match(rule.params, r->params))
            continue;
          selected = true;
          if (!check::resolve_record_path(*r, path).empty()) {
            reached = true;
            break;
          }
        }
        if (!selected)
          continue;
        ++checked;
        kinds_seen.insert(key);
        EXPECT_TRUE(reached) << file << " rule " << rule.id << " (" << rule.where << ") reads "
                             << path << ", which no committed record of " << key
                             << " it selects has: narrow the rule's key, or fix its path";
      }
      if (checked == before)
        unchecked.insert(rule.id + " (" + rule.key_glob + ")");
    }
  // What no committed run has yet: checked by the contracts alone, above.
  std::cout << unchecked.size() << " rules select no committed record:";
  for (const auto &id : unchecked)
    std::cout << " " << id;
  std::cout << "\n";
  EXPECT_GT(checked, 50);
  EXPECT_GT(kinds_seen.size(), 10u);
}

} // namespace
} // namespace railgauge
