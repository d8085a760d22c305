#pragma once
// The state of one `evaluate` call (evaluate.h), split by what it judges: evaluate.cpp applies
// each rule and the built-in ones, reading the records and inventory values a rule selects
// through the selection cache (selection_cache.h); evaluate_records.cpp takes a record rule's
// values and evaluate_fleet.cpp judges them against a bound, their fleet, their siblings or
// their curve. Internal to analysis/check.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/check/missing_list.h"
#include "analysis/check/part_index.h"
#include "analysis/check/rules.h"
#include "analysis/check/selection_cache.h"
#include "analysis/run_set.h"

namespace railgauge::check {

class Evaluator {
public:
  // `gpu_parts[i]`: the records made from run i's per-GPU objects (records/per_gpu_parts.h),
  // judged as records of that run.
  Evaluator(const RuleSet &rules, const analysis::RunSet &runs,
            std::vector<std::vector<Record>> gpu_parts);
  CheckResult run();
  // The inventory rules alone, no built-in rule (evaluate_inventory_rules).
  CheckResult run_inventory_rules();

private:
  // Where a value came from: enough to write its finding, which is built only when there is
  // one to write (most values pass, and copying every record's params cost more than judging).
  struct Source {
    const Record *record = nullptr; // null for an inventory value
    const std::string *run = nullptr;
    std::string what;   // the concrete metric path or probe
    std::string detail; // how the value was taken (a ratio, a curve's figure)
    bool timed = false; // the value is a figure of the record's time samples (RuleValue::timed)
    // A curve's ratio: the record of the point it is divided by (its noise adds to the value's).
    const Record *divided_by = nullptr;
  };
  struct Observation {
    PartKey part;
    Source source;
    double value = 0;
  };
  struct CurvePoint {
    double x = 0, y = 0;
    Source source;
  };
  struct Curve {
    PartKey part;
    std::vector<CurvePoint> points;
  };

  // Indexing (evaluate.cpp)
  void index_hosts();
  PartResult &part(const PartKey &key);
  RuleTally &tally_of(const PartKey &key);
  void flush_tallies(const std::string &rule);
  void tally(const PartKey &key, const std::string &rule, bool passed);

  // Findings
  Finding base_of(const Rule &rule, const Source &s) const;
  static std::optional<double> noise_of(const Source &s);
  Finding missing(const Rule &rule, std::string what, std::string detail, Level level) const;
  void add_finding(const PartKey &key, Finding f);
  // A missing value: listed or counted (missing_list.h).
  void add_missing(const PartKey &key, Finding f, const nlohmann::json *params = nullptr);
  void add_missing_of(const Rule &rule, const PartKey &key, const Source &s, std::string detail,
                      Level level);
  void note_not_applicable(const Rule &rule, const PartKey &node, const std::string &detail);
  void note_not_covered(const Rule &rule, const std::string &host, const std::string &what);
  bool only_imported(const std::string &host) const;

  // Rules (evaluate.cpp)
  void apply(const Rule &rule);
  void record_rule(const Rule &rule);
  void record_values(const Rule &rule, const Record &r, const analysis::LoadedRun &loaded,
                     const PartKey &key, std::map<std::string, Curve> &curves);
  void no_record_on_nodes(const Rule &rule, const std::set<std::string> &hosts_with_match);
  void inventory_rule(const Rule &rule);
  void record_status_rule();
  void run_complete_rule();
  void nothing_judged_rule();
  void data_check_rule();
  void end_rule(const std::string &rule_id);
  CheckResult finish();

  // Judging (evaluate_fleet.cpp)
  void judge_absolute(const Rule &rule, const PartKey &key, const Source &s,
                      const nlohmann::json &value);
  void observe(const Rule &rule, const PartKey &key, Source s, const nlohmann::json &value,
               const std::string &group);
  void judge_fleets(const Rule &rule);
  void judge_fleet(const Rule &rule, std::vector<Observation> &obs);
  void judge_siblings(const Rule &rule, std::vector<Observation> &obs);
  void judge_curve(const Rule &rule, Curve &curve);

  const RuleSet &rules_;
  const analysis::RunSet &runs_;
  CheckResult result_;
  PartIndex index_;
  std::vector<std::vector<Record>> gpu_parts_;
  SelectionCache selection_; // reads gpu_parts_ and index_
  std::map<PartKey, PartResult> parts_;
  // Map nodes stay put: pointers to them are safe to keep while parts_ grows.
  std::unordered_map<PartKey, PartResult *, PartKeyHash> part_by_hash_;
  PartResult *last_part_ = nullptr;
  std::unordered_map<PartResult *, RuleTally> rule_tallies_; // of the rule being judged
  std::vector<std::string> hosts_; // natural order, once every part of a node is known
  std::optional<MissingList> missing_;
  Finding counted_; // reused for values that are only counted: their strings keep capacity
  std::map<std::string, std::string> run_host_;
  std::map<std::string, std::vector<std::pair<std::string, const nlohmann::json *>>> inventories_;
  std::map<std::string, std::vector<Observation>> fleets_;
  std::set<std::string> own_hosts_, imported_hosts_;
  std::set<std::pair<std::string, std::string>> not_covered_metric_;  // (rule, host)
  std::map<std::pair<std::string, std::string>, int> not_applicable_; // (rule, host) -> records
};

} // namespace railgauge::check
