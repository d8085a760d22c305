#pragma once
// `check --rules R --history DB` with no run directories: besides each part against its own past
// (history_rules.h), the profile's record rules (fleet-relative and absolute bounds over records;
// not inventory probes, not curves) and the built-in record-status, nothing-judged and (from
// the run's stored status) run-complete, judged over the newest run of each host and suite the
// database holds, as `check --rules R DIRS` judges them over those runs' directories: the same
// findings, values and thresholds. The rules it cannot apply are named in the result
// (CheckResult::not_judged).
//
// The records are streamed once (Database::for_each), never held: only each value the rules
// read is kept, as a few numbers (its fleet, part, record row, value), so memory grows with the
// values judged, not with the records' JSON. A finding's params are read back by its row.
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "analysis/history/database.h"
#include "analysis/history/history_rules.h"

namespace railgauge::history {

// The rules of `rules` judged here: reading records, no curve.
bool streamed_record_rule(const check::Rule &rule);

struct RecordRulesOutcome {
  long long runs = 0;            // the newest runs judged
  long long records = 0;         // records streamed
  long long values = 0;          // values judged
  std::vector<JudgedRun> newest; // the newest runs judged, one per host and run id
};

// Adds the rules' findings, missing values and tallies to `result`, after the history's own
// judgement (add_history): every host of the database is in `result` by then.
// `newest`: the runs as judge_history dated them (newest_runs.h), read once for both.
RecordRulesOutcome judge_record_rules(Database &db, const check::RuleSet &rules,
                                      check::CheckResult &result, NewestRuns newest);

} // namespace railgauge::history
