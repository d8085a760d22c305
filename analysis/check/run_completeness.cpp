#include "analysis/check/run_completeness.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "records/per_gpu_parts.h"

namespace railgauge::check {
namespace {

std::string text_of(const nlohmann::json &m, const char *field) {
  return m.contains(field) && m[field].is_string() ? m[field].get<std::string>() : "";
}

} // namespace

std::vector<std::string> incompleteness(const analysis::LoadedRun &run) {
  const auto &m = run.manifest;
  std::vector<std::string> why;
  if (!m.is_object())
    return why;
  if (m.contains("status")) {
    const auto status = text_of(m, "status");
    if (status != "complete") {
      // Why it ended: a fault (failed) or the hardware --expect named missing (refused).
      auto failure = text_of(m, "failure");
      if (failure.empty())
        failure = text_of(m, "refused");
      why.push_back(fmt::format("run.json says status '{}'{}, not complete",
                                status.empty() ? m["status"].dump() : status,
                                failure.empty() ? "" : " (" + failure + ")"));
    }
  }
  // The records the run wrote: check reads each GPU of an every-GPU point as a record too.
  const auto written = static_cast<long long>(
      std::count_if(run.records.begin(), run.records.end(),
                    [](const Record &r) { return !records::is_per_gpu_part(r); }));
  if (m.contains("points_planned") && m["points_planned"].is_number_integer() &&
      m["points_planned"].get<long long>() > written)
    why.push_back(fmt::format("{} of {} planned points have a record", written,
                              m["points_planned"].get<long long>()));
  if (!m.contains("counts") || !m["counts"].is_object() || m["counts"].empty())
    return why;
  // run.json counts the last record of each point (a resumed point's retry replaces its error);
  // an import counts every record. Either agreeing is agreement.
  std::map<std::string, std::string> last; // point -> status of its last record
  std::map<std::string, long long> every, by_point;
  for (const auto &r : run.records) {
    if (records::is_per_gpu_part(r))
      continue;
    const auto status = std::string(to_string(r.status));
    last[r.key + " " + (r.axes.is_object() ? r.axes : r.params).dump()] = status;
    ++every[status];
  }
  for (const auto &[point, status] : last)
    ++by_point[status];
  std::map<std::string, long long> said;
  for (const auto &[status, n] : m["counts"].items())
    if (n.is_number_integer() && n.get<long long>() != 0)
      said[status] = n.get<long long>();
  if (said == every || said == by_point)
    return why;
  std::string differ;
  for (const auto &[status, n] : said)
    if (by_point[status] != n)
      differ += fmt::format("{}{} {} in run.json, {} read", differ.empty() ? "" : "; ", status, n,
                            by_point[status]);
  for (const auto &[status, n] : by_point)
    if (n != 0 && !said.count(status))
      differ += fmt::format("{}{} 0 in run.json, {} read", differ.empty() ? "" : "; ", status, n);
  why.push_back(fmt::format("run.json's counts disagree with the records read: {}", differ));
  return why;
}

} // namespace railgauge::check
