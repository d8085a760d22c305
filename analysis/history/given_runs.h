#pragma once
// `check --history DB RUN...` judges the runs given by the profile and stores them; the
// history's own rules (history-step, history-drift, history-repeat-offender) judge each host's
// newest run of each suite in the database. A run given that is not its host's newest there (an
// old run checked again, a retest stored before it was judged) read as if its verdict were the
// node's: the history's findings were of a later run, and a node whose newest run fails passed
// beside them unsaid.
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/history/history_rules.h"
#include "analysis/history/newest_runs.h"

namespace railgauge::history {

// A line for each run given that is not its host's newest of its suite in `db` (as `dating`
// orders them): which run is, and what judges it.
std::vector<std::string> runs_not_newest(Database &db, const NewestRuns &dating,
                                         const std::vector<JudgedRun> &given);

} // namespace railgauge::history
