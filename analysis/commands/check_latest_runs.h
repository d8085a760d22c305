#pragma once
// Which of a host's runs `check DIRS` judges (run_set.h's keep_latest_per_host), and what it says
// of them on stderr.
#include "analysis/run_set.h"

namespace railgauge::analysis {

// With --latest-per-host, drops the runs newer ones superseded; without it, notes each host with
// several runs of one suite.
void choose_latest_runs(RunSet &runs, bool latest_per_host);

} // namespace railgauge::analysis
