#pragma once
// The built-in rules of `check` (analysis/check/evaluate.h) over the fleet history's newest runs
// (history_fleet.h), from what the database keeps: run-complete from a run's stored status,
// nothing-judged from the records each node holds, and the rules the database cannot answer
// named in the result.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "analysis/check/unjudged_nodes.h"

namespace railgauge::history {

// One newest run as the database holds it.
struct StoredRun {
  std::string host, dir, status;
  bool imported = false;
};

// run-complete's findings, by node: a run whose stored run.json status is not `complete`. A run
// written by hand states none; an import is whole by construction.
std::vector<std::pair<check::PartKey, check::Finding>>
incomplete_runs(const check::RuleSet &rules, const std::map<std::int64_t, StoredRun> &runs);

// nothing-judged's findings into `result`, from the records each node holds (by host) and the
// parts as judged by then. A part judged against its own past only is not a node the profile
// read; a history finding still raises the node to its level.
void add_nothing_judged(const check::RuleSet &rules,
                        const std::map<std::string, check::HeldRecords> &held,
                        check::CheckResult &result);

// The rules the database cannot answer for railgauge's own runs, into result.not_judged: the
// inventory probes (run.json's inventory) and, in part, run-complete.
void name_rules_not_judged(const check::RuleSet &rules, check::CheckResult &result);

} // namespace railgauge::history
