#pragma once
// `report --history DB --host HOST`: a host's parts' figures over its runs, one chart per figure
// series (a record key, its params but the GPU index, and its figure), one line per slot, with
// the floor of the rules given (a rule with an absolute `>=` bound that selects the series) and
// the fleet's band (the 5th to 95th percentile of every part's values of the series in the
// database) beside them.
#include <string>

#include "analysis/check/rules.h"
#include "analysis/history/database.h"
#include "analysis/report/report_page.h"

namespace railgauge::history {

// At most this many charts a page; the rest are counted under the last one.
inline constexpr std::size_t kMaxHistoryCharts = 40;

// Throws InputError when the database holds no figure of `host`.
void history_section(report::Page &page, Database &db, const std::string &host,
                     const check::RuleSet *rules);

} // namespace railgauge::history
