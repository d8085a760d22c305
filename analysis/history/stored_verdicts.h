#pragma once
// The verdicts an earlier `check --rules PROFILE --history DB` stored of the newest runs, for a
// `check --history DB` without --rules: that check judges the history rules and the built-in
// record-status and run-complete alone, and a node its profile had failed (a co-tenant's slow
// GEMM, a GPU gone from its newest run) read PASS while the database held its FAIL.

#include <vector>

#include "analysis/history/database.h"
#include "analysis/history/history_rules.h"

namespace railgauge::history {

inline constexpr const char *kStoredVerdictRule = "history-stored-verdict";

// One finding per warn or fail a check stored of each run (verdicts table, history_check.cpp),
// on its host's node, and a tally per host: a run no check judged passes this rule, and
// history-repeat-offender says where such runs are counted.
HistoryJudgement stored_verdicts(Database &db, const std::vector<JudgedRun> &newest);

} // namespace railgauge::history
