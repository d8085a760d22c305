#pragma once
// Every form a check result takes. All are pure functions of the result, which is sorted, so
// the same inputs give byte-identical outputs (no timestamps: the runs carry their own).
//
//   table       console: one row per node and per part with a finding, then each finding
//   markdown    the same as tables, for a ticket or a pull request
//   json        railgauge.check/1: everything, for scripts and for `railgauge report --check`
//   junit       JUnit XML for CI systems: a testsuite per category, a testcase per part and rule
//   prometheus  node_exporter textfile: verdict per node and part, one series per violation
//   drain       the hosts that failed, one per line (feed to scontrol / kubectl cordon)
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"

namespace railgauge::check {

inline constexpr const char *kCheckSchema = "railgauge.check/1";

// Each line at most kTableColumns wide (cut with "...") unless `wide`.
inline constexpr std::size_t kTableColumns = 120;
// Above this many nodes the table lists the nodes that did not pass, and counts the others.
inline constexpr std::size_t kNodesListedWhole = 50;
std::string render_table(const CheckResult &result, bool wide = false);
std::string render_markdown(const CheckResult &result);
nlohmann::json to_json(const CheckResult &result);
std::string render_junit(const CheckResult &result);
// What a Prometheus textfile says beside the verdicts: when the check ran and which runs it
// judged per node, so that an alert on a stale file or on a retest can tell them apart; and, for
// one file per node, the node it is for.
struct PrometheusContext {
  std::optional<std::int64_t> unix_time_s;
  std::map<std::string, std::set<std::string>> run_ids_by_host;
  std::optional<std::string> only_host; // this machine's series and its groups' only
};
std::string render_prometheus(const CheckResult &result, const PrometheusContext &context = {});
std::string render_drain(const CheckResult &result);

} // namespace railgauge::check
