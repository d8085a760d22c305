#pragma once
// Which of a host's runs `check DIRS` judges (run_set.h's keep_latest_per_host), and what it says
// of them on stderr.
#include <string>
#include <vector>

#include "analysis/run_set.h"

namespace railgauge::analysis {

// With --latest-per-host, drops the runs newer ones superseded (a run whole as check's
// run-complete judges it) and returns a line for each older run still judged beside them, for
// the verdict's problems; without it, notes each host with several runs of one suite.
std::vector<std::string> choose_latest_runs(RunSet &runs, bool latest_per_host);

} // namespace railgauge::analysis
