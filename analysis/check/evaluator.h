#pragma once
// The state of one `evaluate` call (evaluate.h): the judges of its rules over two helpers. The
// selection cache (selection_cache.h) gives a rule the records and inventory values it selects
// and the part each is about; the part ledger (part_ledger.h) keeps every finding, tally and
// missing value of a part and turns them into the CheckResult. The judges are split by what they
// judge: evaluate.cpp applies each rule, the inventory rules and the built-in ones,
// evaluate_records.cpp takes a record rule's values, evaluate_fleet.cpp judges them against a
// bound, their fleet, their siblings or their curve, evaluate_unjudged.cpp and
// evaluate_data_check.cpp are the built-in nothing-judged and data-check. Internal to
// analysis/check.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/check/gpus_not_measured.h"
#include "analysis/check/part_index.h"
#include "analysis/check/part_ledger.h"
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
  bool only_imported(const std::string &host) const;

  // Findings
  Finding base_of(const Rule &rule, const Source &s) const;
  static std::optional<double> noise_of(const Source &s);
  Finding missing(const Rule &rule, std::string what, std::string detail, Level level) const;
  void add_missing_of(const Rule &rule, const PartKey &key, const Source &s, std::string detail,
                      Level level);

  // Rules (evaluate.cpp)
  void apply(const Rule &rule);
  void record_rule(const Rule &rule);
  void record_values(const Rule &rule, const Record &r, const analysis::LoadedRun &loaded,
                     const PartKey &key, std::map<std::string, Curve> &curves);
  void no_record_on_nodes(const Rule &rule, const std::set<std::string> &hosts_with_match,
                          bool own_run_measured);
  const Record *imported_below_sizes(const Rule &rule, const std::string &host) const;
  std::string no_record_detail(const Rule &rule, const std::string &host) const;
  // failed_point_detail of the node's first failed point the rule would select, if any; with
  // `phase`, only one of that burn phase whose device is the GPU `gpu` or none
  // (failed_point_of_gpu).
  std::optional<std::string> failed_point_of(const Rule &rule, const std::string &host,
                                             const std::string *phase = nullptr,
                                             const std::string *gpu = nullptr) const;
  void no_record_on_gpus(const Rule &rule, const GpusByPhase &gpus_with_match);
  void inventory_rule(const Rule &rule);
  void record_status_rule();
  void unreadable_in_run(const analysis::LoadedRun &run, const PartKey &node);
  void run_complete_rule();
  void nothing_judged_rule();
  void data_check_rule();
  void pair_isolation_rule();       // evaluate_pair_isolation.cpp
  void charge_pair_ends();          // evaluate_pair_ends.cpp
  void one_machine_per_host_rule(); // evaluate_host_identity.cpp
  void profile_gpu_rule();          // evaluate_profile_gpu.cpp
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
  PartLedger ledger_;
  std::map<std::string, std::string> run_host_;
  std::map<std::string, std::vector<std::pair<std::string, const nlohmann::json *>>> inventories_;
  std::map<std::string, std::vector<Observation>> fleets_;
  std::set<std::string> own_hosts_, imported_hosts_;
  std::map<std::string, std::vector<const Record *>> imported_records_; // by host
  // An own run's records that failed or erred, by host: the reason a rule found no figure.
  std::map<std::string, std::vector<const Record *>> failed_records_;
  // Hosts with a run stopped from outside (a job's time limit, a rank lost on another node): a
  // rule that finds no record there warns, as the point may be one that never ran.
  std::set<std::string> stopped_hosts_;
};

} // namespace railgauge::check
