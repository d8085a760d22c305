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
#include "analysis/check/selection_cache.h"
#include "analysis/import/perftest_import.h"
#include "analysis/run_set.h"
#include "cli/make_registry.h"
#include "harness/error.h"
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

std::string file_text(const std::filesystem::path &path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A real record, and whether another tool wrote it (an import: check reads only the figures it
// prints, and a metric it lacks is "not covered", never missing).
struct RealRecord {
  Record record;
  bool imported = false;
};

// The perftest logs the repository holds, imported: the Soft-RoCE fixtures and the H100 RoCE
// corpus (tests/fixtures/verdicts/real/README.md).
void add_imported_perftest(std::vector<RealRecord> &out) {
  for (const char *dir : {"/tests/fixtures/rdma/perftest", "/tests/fixtures/verdicts/real"})
    for (const auto &entry : std::filesystem::recursive_directory_iterator(kSource + dir)) {
      const auto name = entry.path().filename().string();
      if (!entry.is_regular_file() ||
          (name.rfind("ib_", 0) != 0 && name.find("_ib_") == std::string::npos))
        continue;
      std::vector<Record> imported;
      try {
        imported = importers::import_perftest(file_text(entry.path()), name);
      } catch (const InputError &) {
        continue; // a log the importer refuses (a latency server's, which prints no result)
      }
      for (auto &r : imported)
        if (r.status == Status::ok)
          out.push_back({std::move(r), true});
    }
}

// Every ok record of the committed reference runs (railgauge's own and the imported ones), the
// per-GPU parts that check makes of them, and the perftest logs imported.
std::vector<RealRecord> real_records() {
  std::vector<RealRecord> out;
  add_imported_perftest(out);
  for (const auto &entry :
       std::filesystem::recursive_directory_iterator(kSource + "/results/reference")) {
    if (entry.path().filename() != "records.jsonl")
      continue;
    for (auto &run : analysis::load_run_file(entry.path().string()).runs) {
      const bool imported = check::is_imported(run);
      for (auto &r : run.records) {
        // A burn-in point's GPUs, each judged as a record of its own (records/per_gpu_parts.h)
        for (auto &part : records::per_gpu_parts(r))
          if (part.status == Status::ok)
            out.push_back({std::move(part), imported});
        if (r.status == Status::ok)
          out.push_back({std::move(r), imported});
      }
    }
  }
  return out;
}

// How the real records of one key that a rule selects read one of its paths.
struct Reach {
  int own = 0, own_reached = 0;
  // Imports that hold the path's metric at all (perftest prints no telemetry), and reach it
  int imported = 0, imported_reached = 0;
  int imported_any = 0; // imports of the key, whatever they hold
};

std::map<std::string, Reach> reach_by_key(const check::Rule &rule, const std::string &path,
                                          const std::vector<RealRecord> &records) {
  std::map<std::string, Reach> out;
  for (const auto &[r, imported] : records) {
    if (!check::key_match(rule, r.key) || !check::params_match(rule.params, r.params))
      continue;
    if (rule.applies_to != check::AppliesTo::any &&
        (rule.applies_to == check::AppliesTo::imported) != imported)
      continue;
    const bool reached = !check::resolve_record_path(r, path).empty();
    auto &reach = out[r.key];
    if (!imported) {
      reach.own += 1;
      reach.own_reached += reached;
    } else {
      reach.imported_any += 1;
      if (r.metrics.contains(metric_of(path))) {
        reach.imported += 1;
        reach.imported_reached += reached;
      }
    }
  }
  return out;
}

// Where real records of a kind the rule selects exist, they reach the path: a path that no real
// record of its kind reaches judges nothing on a real node. Every kind of railgauge's own records
// must, and every kind of imported ones that holds the path's metric at all (another tool prints
// no telemetry: check says such a rule does not cover the import), unless the rule says a missing
// value is expected (`on_missing: info`, or `on_missing_relative_to: info`: a counter only some
// NICs have, a limit only newer runs record, a figure only bidirectional points carry). Such a path
// counts as shown where a record reaches it; where none does (Soft-RoCE counts no symbol errors,
// CNPs or PFC pauses), the schema's walk to its leaf (rule_paths_test.cpp) is what checks it, and
// it is printed below.
TEST(RulePathsByKind, EveryPathReachesARealRecordOfEachKindTheRuleSelects) {
  const auto records = real_records();
  ASSERT_GT(records.size(), 1000u);
  // Every metric some real record holds: a rule's metric that imports lack must still be one
  // (another tool's import lacks telemetry; a misspelt name is held by none).
  std::set<std::string> metrics_held;
  for (const auto &[r, imported] : records)
    for (const auto &[name, _] : r.metrics.items())
      metrics_held.insert(name);
  int checked = 0;
  std::set<std::string> kinds_seen, unchecked;
  for (const auto &[file, rule] : shipped_record_rules())
    for (const auto &path : metric_paths(rule)) {
      const auto where = file + " rule " + rule.id + " (" + rule.where + ") reads " + path;
      const auto fix = " it selects has: narrow the rule's key, or fix its path";
      // A rule at info without its relative_to (a limit older runs did not record) may find
      // neither path in those runs.
      const bool may_lack = rule.on_missing == check::Level::info ||
                            rule.on_missing_relative_to == check::Level::info;
      int own_reached = 0;
      const int before = checked;
      for (const auto &[key, reach] : reach_by_key(rule, path, records)) {
        own_reached += reach.own_reached;
        if (reach.own > 0 && !may_lack) {
          ++checked;
          kinds_seen.insert(key);
          EXPECT_GT(reach.own_reached, 0)
              << where << ", which no committed record of " << key << fix;
        }
        if (reach.imported > 0 && !may_lack) {
          ++checked;
          kinds_seen.insert(key);
          EXPECT_GT(reach.imported_reached, 0)
              << where << ", which no imported record of " << key << fix;
        } else if (reach.imported_any > 0 && !may_lack && metric_of(path) != "**") {
          ++checked;
          EXPECT_TRUE(metrics_held.contains(metric_of(path)))
              << where << ": no real record of any kind holds " << metric_of(path)
              << ": fix its path";
        }
      }
      if (may_lack && own_reached > 0)
        ++checked;
      if (checked == before)
        unchecked.insert(rule.id + " (" + rule.key_glob + ")");
    }
  // What no committed record tells: checked by the contracts and the schema alone.
  std::cout << unchecked.size() << " rules read what no committed record of theirs shows:";
  for (const auto &id : unchecked)
    std::cout << " " << id;
  std::cout << "\n";
  EXPECT_GT(checked, 50);
  EXPECT_GT(kinds_seen.size(), 10u);
}

} // namespace
} // namespace railgauge
