#pragma once
// The report of a comparison (railgauge compare --json): the per-family summary and the ratio
// against size per key.
#include "analysis/compare/compare.h"
#include "analysis/report/report_page.h"

namespace railgauge::report {

void comparison_section(Page &page, const compare::Comparison &c);

} // namespace railgauge::report
