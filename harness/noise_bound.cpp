#include "harness/noise_bound.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/metric_names.h"

namespace railgauge {

std::optional<double> relative_noise(const nlohmann::json &metrics) {
  const auto time = metrics.find(metric::kTimeS);
  if (time == metrics.end() || !time->is_object())
    return std::nullopt;
  const auto number = [&](const char *name) -> std::optional<double> {
    const auto it = time->find(name);
    return it != time->end() && it->is_number() ? std::optional(it->get<double>()) : std::nullopt;
  };
  namespace s = metric::summary;
  // One sample has no spread: its p10 and p90 are itself, which read as no noise at all (an RDMA
  // latency point, one batch of 2,000 round trips, was compared at +-0.0 %). The record's other
  // figures (its round trips' percentiles) say it instead.
  if (const auto n = number(s::kN); n && *n < 2)
    return std::nullopt;
  const auto p10 = number(s::kP10), p90 = number(s::kP90), median = number(s::kMedian);
  if (p10 && p90 && median && *median > 0)
    return (*p90 - *p10) / (2 * *median);
  const auto stdev = number(s::kStdev), mean = number(s::kMean);
  if (stdev && mean && *mean > 0)
    return kP10P90HalfWidthSigmas * *stdev / *mean;
  return std::nullopt;
}

std::optional<double> relative_noise(const Record &record) {
  return relative_noise(record.metrics);
}

std::optional<NoisyPoint> noisier_than_bound(const Record &record, double bound,
                                             std::string point_label) {
  if (!(bound > 0) || record.status != Status::ok)
    return std::nullopt;
  const auto noise = relative_noise(record);
  if (!noise || *noise <= bound)
    return std::nullopt;
  return NoisyPoint{record.key, std::move(point_label), *noise, bound};
}

std::string noisy_points_line(const std::vector<NoisyPoint> &noisy, const std::string &contention) {
  if (noisy.empty())
    return "";
  const auto worst =
      std::max_element(noisy.begin(), noisy.end(),
                       [](const NoisyPoint &a, const NoisyPoint &b) { return a.noise < b.noise; });
  return fmt::format(
      "railgauge: {} point(s) noisier than their noise_bound (the worst: {} {} at {:.0f}%, bound "
      "{:.0f}%): their figures are not to be judged, so the run exits 1; {}measure on an idle "
      "machine, give the points a longer time_budget_s, or raise noise_bound in the suite",
      noisy.size(), worst->key, worst->point, 100 * worst->noise, 100 * worst->bound,
      contention.empty() ? "" : contention + ": ");
}

} // namespace railgauge
