#pragma once
// The metric a rule's path reads: its segment after `metrics.`, for tests that check rule paths
// against the record contracts.
#include <string>

namespace railgauge::testing {

// "metrics.latency.p99_s" -> "latency"; "metrics.port_counter_deltas.*.link_downed" ->
// "port_counter_deltas"; "" for a path outside metrics (params.*).
inline std::string metric_of(const std::string &path) {
  const std::string prefix = "metrics.";
  if (path.rfind(prefix, 0) != 0)
    return "";
  const auto rest = path.substr(prefix.size());
  return rest.substr(0, rest.find('.'));
}

} // namespace railgauge::testing
