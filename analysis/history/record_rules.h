#pragma once
// The record rules of a profile judged over the database's newest runs (history_fleet.h), in two
// passes: the records streamed once, each value a rule reads kept as a few numbers
// (history_fleet.cpp); then each rule's fleets, curves and missing values judged into the result
// (history_fleet_judge.cpp).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/check/evaluate.h"
#include "analysis/check/fleet_judgement.h"
#include "analysis/check/gpus_not_measured.h"
#include "analysis/check/missing_list.h"
#include "analysis/check/pair_ends.h"
#include "analysis/check/part_index.h"
#include "analysis/check/rule_values.h"
#include "analysis/check/unjudged_nodes.h"
#include "analysis/history/history_builtins.h"
#include "analysis/history/history_fleet.h"
#include "analysis/history/history_rules.h"
#include "analysis/history/newest_runs.h"

namespace railgauge::history {

// One value a rule read, as indices: its fleet, part, record key, concrete path, row and run.
struct Reading {
  std::uint32_t group = 0, part = 0, key = 0, what = 0;
  std::int64_t record = 0, run = 0;
  double value = 0;
};

// One point of a curve rule's curve: the curve (run, part, key, params less `over`, path) and
// where the point came from, as indices; its `over` and value.
struct CurvePoint {
  std::uint32_t curve = 0, part = 0, key = 0, what = 0;
  std::int64_t record = 0, run = 0;
  double x = 0, y = 0;
};

// Strings kept once each and named by their index: a fleet's million values share a few.
class Names {
public:
  std::uint32_t id(const std::string &name) {
    const auto [it, added] = ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
    if (added)
      names_.push_back(name);
    return it->second;
  }
  const std::string &operator[](std::uint32_t id) const { return names_[id]; }

private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

// One rule's state: its values until they are judged, its missing values, its tallies.
struct RuleState {
  const check::Rule *rule = nullptr;
  std::vector<Reading> readings;
  std::vector<CurvePoint> curve_points;
  std::optional<check::MissingList> missing;
  std::unordered_map<std::uint32_t, check::RuleTally> tallies; // by part
  std::set<std::string> hosts_with_match, not_applicable, not_covered;
  check::GpusByPhase gpus_with_match; // the GPUs a point run on every GPU at once has a part of
  check::GpuWindows windows;          // the GPUs a node's records held a telemetry window of
  // An import's host that holds the rule's key at other sizes only, with that key
  // (check::selects_but_for_size): missing there, not "not covered".
  std::map<std::string, std::string> other_sizes_only;
  // An own host's burn points of the rule that failed before they measured a GPU, each with the
  // missing value's detail that says so (check::selects_point_of_gpu_parts); the node's missing
  // value names the first, a GPU's the first of its phase and device (check::failed_point_of_gpu).
  struct FailedPoint {
    std::string key;
    nlohmann::json params, device;
    std::string detail;
  };
  std::map<std::string, std::vector<FailedPoint>> failed_point;
};

class RecordRules {
public:
  RecordRules(Database &db, const check::RuleSet &rules, NewestRuns newest)
      : db_(db), ruleset_(rules), newest_(std::move(newest)) {
    for (const auto &rule : rules.rules)
      if (streamed_record_rule(rule))
        rules_.emplace_back().rule = &rule;
  }

  // Pass 1: the rows of the newest runs streamed, each value the rules read kept as numbers, a
  // value against an absolute bound judged at once, every record's status judged.
  RecordRulesOutcome read(const check::CheckResult &result);

  // Pass 2: each fleet judged; everything into `result`.
  void judge(check::CheckResult &result);

private:
  static nlohmann::json parsed(const Value &text);

  // The inventory rules over the newest runs' stored inventories (history_inventory.h), their
  // counted missing values in the rules' order as over directories. Returns the hosts whose
  // inventory the database does not hold.
  std::set<std::string> inventory_rules(HistoryJudgement &judged, check::CheckResult &result);

  void read_runs();

  // One record row, as `check` over directories takes a record: its status (Evaluator's
  // record_status_rule), what it holds (nothing_judged_rule), and as each rule selecting it
  // (record_rule and record_values).
  void take(const Row &row);

  // An ok record whose data check was off (the built-in data-check). Only a row whose text says
  // so is parsed: the stored metrics are compact JSON.
  // The data check of an ok record: `unparsed`, its metrics as stored, where take() did not
  // parse them into r.metrics (null where it did).
  void unverified(const Record &r, const Value *unparsed, bool imported);
  void with_parsed_metrics(const Record &r, bool must_show, bool imported);

  // The values of the rule's metric in one ok record.
  void values(RuleState &state, const Record &r, Reading at, bool imported);

  // A point of the rule's curve, kept until every point of the curve is read. A size-0 row has no
  // bandwidth to judge.
  void curve_point(RuleState &state, const Record &r, const Reading &at,
                   const check::RuleValue &rv);

  // Each curve's figure (curve_figure.h) against the rule's bound, as `check` over directories
  // judges it.
  void judge_curves(RuleState &state);

  // A value against the rule's absolute bound (a record's, as it is read, or a curve's figure):
  // its part's tally, and a violation unless it passed, whose finding is written by
  // write_violations once the records are read: its params are read back from the database,
  // which a query inside the records' stream would end (PostgreSQL's single-row mode: every
  // record after the first violation went unjudged). `what` replaces the value's own path.
  void judge_absolute(RuleState &state, const Reading &at, const nlohmann::json &value,
                      std::string detail, std::optional<std::string> what = std::nullopt);
  void write_violations();

  // record-status: a record failed or in error fails its part; every record is counted.
  void record_status(const Record &r, const StoredRun &run);

  // A selected value that cannot be judged: a failed tally and a missing value, at the rule's
  // on_missing unless `level` says otherwise.
  void missing_value(RuleState &state, const Reading &at, const std::string &what,
                     std::string detail, const nlohmann::json &params,
                     std::optional<check::Level> level = std::nullopt);

  // A node's finding at info: the rule does not apply to a record, or an import cannot hold it.
  void note(const check::Rule &rule, const std::string &host, const std::string &what,
            std::string detail, bool not_covered);

  // A node of the newest runs on which the rule selected no record at all.
  void no_record_on_nodes(RuleState &state);
  void no_record_on_gpus(RuleState &state);

  std::uint32_t part_id(const check::PartKey &part);
  // Each violation of a pair point's measuring end restated on its server end (pair_ends.h).
  void charge_pair_ends(std::vector<std::pair<check::PartKey, check::Finding>> &findings) const;
  // The built-in pair-isolation of an ok NIC pair matrix's record (check/pair_isolation.h).
  void pair_isolation(Record r, const Value &metrics, const StoredRun &run);

  // The finding of a value, its params read back by its row.
  check::Finding base_of(const check::Rule &rule, const Reading &v, bool with_params);
  // A rule's detail (rules.h, DetailSpec) of the stored record `record`.
  std::string stored_detail(const check::DetailSpec &spec, std::int64_t record);

  // Each fleet of the rule judged as `check` over directories judges it.
  void judge_rule(RuleState &state);

  void judge_fleet(RuleState &state, std::span<const Reading> group);

  // `scope: node`: each part at the median of its values, against its siblings.
  void judge_siblings(RuleState &state, std::span<const Reading> group);

  // A verdict: the part's tally, and a finding or a missing value unless it passed. A missing
  // value only counted (missing_list.h) never reads its params back.
  void report(RuleState &state, const Reading &v, const check::FleetVerdict &verdict);

  Database &db_;
  const check::RuleSet &ruleset_;
  std::vector<RuleState> rules_;
  RecordRulesOutcome out_;
  NewestRuns newest_;
  std::map<std::int64_t, StoredRun> runs_;
  std::vector<std::string> hosts_; // natural order: of the result and the newest runs
  std::set<std::string> own_hosts_, imported_hosts_;
  // Own hosts with a newest run stopped from outside (StoredRun::stopped_from_outside): a rule
  // that finds no record there warns, as over directories.
  std::set<std::string> stopped_hosts_;
  check::PartIndex index_;
  std::unordered_map<std::string, std::vector<std::size_t>> rules_by_key_;
  Names groups_, keys_, whats_, part_names_, curves_;
  std::vector<check::PartKey> parts_;
  // Findings to add, of every rule: notes, violations and failed records.
  std::vector<std::pair<check::PartKey, check::Finding>> notes_;
  struct Violation { // judge_absolute's, written by write_violations
    const check::Rule *rule = nullptr;
    Reading at;
    nlohmann::json value;
    std::string detail;
    std::optional<std::string> what;
  };
  std::vector<Violation> violations_;
  std::unordered_map<std::uint32_t, check::RuleTally> status_tallies_;    // by part
  std::unordered_map<std::uint32_t, check::RuleTally> isolation_tallies_; // pair-isolation
  check::PairEnds pair_ends_; // the server ends of pair points, charged their pair's violations
  std::map<std::string, check::HeldRecords> held_; // by host: nothing-judged
  // By host: the ok records that show no data check that passed, the first one's key and why
  // (data-check).
  std::map<std::string, check::UnverifiedRecords> unverified_;
  // By host: the GPU names its stored inventories and its records state (profile-gpu).
  std::map<std::string, std::set<std::string>> nvml_gpu_names_, record_gpu_names_;
};

} // namespace railgauge::history
