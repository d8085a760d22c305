#include "analysis/compare/compared_metric.h"

#include "analysis/check/json_path.h"
#include "analysis/compare/compare.h"

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
  return metric.ends_with("_s") || metric.find("time_s.") != std::string::npos ||
         metric.find("latency.") != std::string::npos;
}

std::string default_metric(const json &metrics) {
  for (const char *path : {"metrics.busbw_gbytes_per_s", "metrics.bandwidth_gbits_per_s",
                           "metrics.bandwidth_gbytes_per_s", "metrics.tflops",
                           "metrics.latency.p50_s", "metrics.time_s.median"})
    if (number_at(json{{"metrics", metrics}}, path))
      return path;
  return "";
}

} // namespace railgauge::compare
