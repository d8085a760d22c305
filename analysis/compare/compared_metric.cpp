#include "analysis/compare/compared_metric.h"

#include <cctype>

#include "analysis/check/json_path.h"
#include "analysis/compare/compare.h"
#include "records/one_rank_collective.h"

namespace railgauge::compare {

using json = nlohmann::json;

std::optional<double> number_at(const json &doc, const std::string &path) {
  const auto found = check::resolve_path(doc, path);
  if (found.size() != 1 || !found[0].value.is_number())
    return std::nullopt;
  return found[0].value.get<double>();
}

bool lower_is_better(const std::string &metric) {
  if (metric.ends_with("_per_s"))
    return false;
  // Heat, faults, slowdowns and shares of time throttled: a GPU 1 C hotter read "better", and so
  // did twice a GEMM's numerical error (worst_error_over_bound) and an all_reduce 30 % slower
  // beside a GEMM (collective_slowdown).
  std::string lower;
  for (char c : metric)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char *worse_when_higher :
       {"temperature", "wrong_", "error", "xid", "replay", "ecc_", "remapped", "retired",
        "violation", "slowdown", "loaded_over_idle", "time_ratio", "retrans", "out_of_sequence",
        "dropped", "reason_fraction"})
    if (lower.find(worse_when_higher) != std::string::npos)
      return true;
  return metric.ends_with("_s") || metric.find("time_s.") != std::string::npos ||
         metric.find("latency.") != std::string::npos;
}

std::string default_metric(const json &metrics) {
  // One rank's collective moves nothing over a bus (bus_factor 2(n-1)/n is 0): its bus bandwidth
  // is 0 in every run, a ratio of nothing, and the figure that changes is the algorithm's.
  const json doc = {{"metrics", metrics}};
  // An import of nccl-tests states no factor (every one-GPU all_reduce read "baseline is zero"):
  // records/one_rank_collective.h reads it off the two bandwidths.
  if (records::one_rank_collective(metrics) && number_at(doc, "metrics.algbw_gbytes_per_s"))
    return "metrics.algbw_gbytes_per_s";
  // A loaded-latency probe (rdma.latency_under_load) measures a latency under its load: the
  // bandwidth it holds is the load's, and compared alone it said nothing of the probe.
  if (metrics.is_object() && metrics.contains("latency_idle") &&
      number_at(doc, "metrics.latency.p50_s"))
    return "metrics.latency.p50_s";
  // A bidirectional perftest run (-b) holds its both-ways sum only: it once compared nothing.
  // A fabric load's receiver holds its aggregate only, and nvbandwidth's latency testcases a
  // latency_s: both were points with no figure, left out of the comparison.
  for (const char *path : {"metrics.busbw_gbytes_per_s", "metrics.bandwidth_gbits_per_s",
                           "metrics.bidirectional_gbits_per_s", "metrics.aggregate_gbits_per_s",
                           "metrics.bandwidth_gbytes_per_s", "metrics.tflops",
                           "metrics.latency.p50_s", "metrics.latency_s", "metrics.time_s.median"})
    if (number_at(doc, path))
      return path;
  return "";
}

} // namespace railgauge::compare
