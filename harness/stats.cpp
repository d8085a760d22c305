#include "harness/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "harness/metric_names.h"
#include "harness/record_fields.h"

namespace railgauge {

double percentile_of_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty())
    throw std::invalid_argument("percentile of an empty sample set");
  const double rank = std::clamp(p, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median(std::span<const double> samples) {
  if (samples.empty())
    return 0;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  return percentile_of_sorted(sorted, 0.5);
}

Summary summarize(std::span<const double> samples) {
  if (samples.empty())
    throw std::invalid_argument("summary of an empty sample set");
  std::vector<double> sorted(samples.begin(), samples.end());
  for (double v : sorted)
    if (!std::isfinite(v))
      throw std::invalid_argument("summary of a sample set holding a non-finite value");
  std::sort(sorted.begin(), sorted.end());

  Summary s;
  s.n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  if (s.n > 1) {
    double sq = 0;
    for (double v : sorted)
      sq += (v - s.mean) * (v - s.mean);
    s.stdev = std::sqrt(sq / static_cast<double>(s.n - 1));
  }
  s.median = percentile_of_sorted(sorted, 0.5);
  s.p10 = percentile_of_sorted(sorted, 0.10);
  s.p90 = percentile_of_sorted(sorted, 0.90);
  s.p99 = percentile_of_sorted(sorted, 0.99);
  return s;
}

double scaled_mad(std::span<const double> samples) {
  if (samples.empty())
    throw std::invalid_argument("MAD of an empty sample set");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const double med = percentile_of_sorted(sorted, 0.5);
  std::vector<double> dev;
  dev.reserve(sorted.size());
  for (double v : sorted)
    dev.push_back(std::abs(v - med));
  std::sort(dev.begin(), dev.end());
  return 1.4826 * percentile_of_sorted(dev, 0.5);
}

nlohmann::json to_json(const Summary &s) {
  namespace f = metric::summary;
  return {{f::kN, s.n},       {f::kMin, s.min},     {f::kMax, s.max},
          {f::kMean, s.mean}, {f::kStdev, s.stdev}, {f::kMedian, s.median},
          {f::kP10, s.p10},   {f::kP90, s.p90},     {f::kP99, s.p99}};
}

std::optional<Summary> summary_from_json(const nlohmann::json *j) {
  namespace s = metric::summary;
  namespace f = record_fields;
  if (!j)
    return std::nullopt;
  const auto n = f::integer(*j, s::kN);
  if (n && *n < 0)
    return std::nullopt;
  Summary out;
  out.n = static_cast<std::size_t>(n.value_or(0));
  for (const auto &[name, figure] :
       {std::pair{s::kMin, &out.min}, std::pair{s::kMax, &out.max}, std::pair{s::kMean, &out.mean},
        std::pair{s::kStdev, &out.stdev}, std::pair{s::kMedian, &out.median},
        std::pair{s::kP10, &out.p10}, std::pair{s::kP90, &out.p90}, std::pair{s::kP99, &out.p99}}) {
    const auto value = f::number(*j, name);
    if (!value)
      return std::nullopt;
    *figure = *value;
  }
  return n ? std::optional(out) : std::nullopt;
}

} // namespace railgauge
