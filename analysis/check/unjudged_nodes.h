#pragma once
// The built-in rule `nothing-judged` (evaluate.h) for one node: from what the node holds and how
// the profile's rules read it. Pure: `check` over run directories (evaluate_unjudged.cpp) and
// over the fleet history's database (analysis/history/history_fleet.h) decide with it.
#include <map>
#include <set>
#include <string>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "harness/record.h"

namespace railgauge::check {

// A collectives record that ran across hosts (group_hosts >= 2).
bool multi_node(const Record &r);

// Does the rule select the record (a record rule of its kind of run, key and params)?
bool selects(const Rule &rule, const Record &r, bool imported);

// What a node holds: its ok records by key, and of those that ran across hosts, per key, how
// many and whether a rule of the profile selects one (a rule may take only the large sizes).
struct HeldRecords {
  std::map<std::string, int> ok_by_key, multi_node_by_key;
  std::set<std::string> multi_node_keys_selected;

  // One ok record of a run (imported or not) judged by `rules`.
  void add(const RuleSet &rules, const Record &r, bool imported);
};

// How a node was judged, from its parts' tallies and findings before `nothing-judged`.
struct NodeReading {
  bool read = false; // a rule passed one of its values or found against one
  Level level = Level::pass;
  // Rules that selected its records and judged none, each with the first reason it gave.
  std::map<std::string, std::string> selected_unjudged;

  // `other_rules`: rules whose tallies and findings are not readings of the node's records (the
  // fleet history's rules judge a part against its past, not by the profile).
  void add(const PartResult &part, const std::set<std::string> &other_rules = {});
};

// The rules whose tallies and findings are no reading of a node's records: the inventory
// probes and the built-in rules that read run.json (a node whose burn-in records no rule of a
// fabric profile selects once passed on its inventory alone).
std::set<std::string> rules_not_reading_records(const RuleSet &rules);

// The detail of the node's `nothing-judged` finding, or "" when none is due: records that ran
// across hosts which no rule selects, or ok records of which no rule judged one (unless the node
// is at the rules' unjudged_nodes level already).
std::string nothing_judged_detail(const RuleSet &rules, const HeldRecords &held,
                                  const NodeReading &reading);

} // namespace railgauge::check
