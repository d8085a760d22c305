#pragma once
// A profile's inventory rules over the fleet history. Each run of railgauge's own is stored with
// its run.json's inventory as written (schema version 5), and check's own evaluator
// (check::evaluate_inventory_rules) judges the inventories of the newest runs as `check DIRS`
// judges those runs' run.json: the same probes, values, fleets, findings and missing values, so
// a node with 7 of 8 GPUs, or a GPU whose row remapping failed, fails both ways. A newest run
// stored before the database kept inventories cannot be judged: its host is named for
// name_rules_not_judged (history_builtins.h), never passed.
#include <set>
#include <string>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "analysis/history/database.h"
#include "analysis/history/history_rules.h"

namespace railgauge::history {

struct InventoryJudgement {
  HistoryJudgement judged; // the rules' findings and tallies, by part
  // Missing values counted, not listed; each one's hosts indexed as the `hosts` given.
  std::vector<check::MissingCount> unlisted_missing;
  // Hosts of a newest run of railgauge's own stored before the database kept inventories.
  std::set<std::string> unknown;
};

// `hosts`: every host of the result the judgement goes into, in natural order (a superset of
// the newest runs' hosts). `newest_ids`: the newest runs (NewestRuns::ids, newest_runs.h).
InventoryJudgement judge_inventory_rules(Database &db, const check::RuleSet &rules,
                                         const std::vector<std::string> &hosts,
                                         const std::string &newest_ids);

} // namespace railgauge::history
