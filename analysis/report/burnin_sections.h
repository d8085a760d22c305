#pragma once
// The burn-in in the report: each phase that ran on every GPU at once, per GPU (a test x GPU
// grid, as DCGM prints its diagnostic), each phase's figure per GPU against its floor, and what
// each GPU did second by second (throughput, power, SM clock) while the phase ran.
#include "analysis/check/rules.h"
#include "analysis/report/report_page.h"
#include "analysis/run_set.h"

namespace railgauge::report {

// Nothing when no record holds per-GPU parts. `rules` (report --rules) draws the floors.
void burnin_section(Page &page, const analysis::RunSet &runs, const check::RuleSet *rules);

} // namespace railgauge::report
