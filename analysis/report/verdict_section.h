#pragma once
// The report's verdict table, from the JSON that `railgauge check --json` writes.
#include <nlohmann/json.hpp>

#include "analysis/report/report_page.h"

namespace railgauge::report {

// `check` has passed check_result_for_report (report.h).
void verdict_section(Page &page, const nlohmann::json &check);

} // namespace railgauge::report
