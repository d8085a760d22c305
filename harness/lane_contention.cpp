#include "harness/lane_contention.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/metric_names.h"
#include "harness/stats.h"

namespace railgauge {

double contention_fraction(const std::vector<LaneSpan> &lanes) {
  for (std::size_t k = 0; k < lanes.size(); ++k)
    if (!(lanes[k].stop_s >= 0) || !(lanes[k].padded_end_s >= lanes[k].stop_s))
      throw std::invalid_argument("contention_fraction: lane " + std::to_string(k) +
                                  " has a negative time or ends its padding before its stop");
  double worst = 1.0;
  for (std::size_t k = 0; k < lanes.size(); ++k) {
    if (lanes[k].stop_s <= 0)
      continue;
    double others_end_s = lanes[k].stop_s;
    for (std::size_t j = 0; j < lanes.size(); ++j)
      if (j != k)
        others_end_s = std::min(others_end_s, lanes[j].padded_end_s);
    worst = std::min(worst, others_end_s / lanes[k].stop_s);
  }
  return worst;
}

nlohmann::json contention_metrics(std::span<const double> fractions) {
  if (fractions.empty())
    return {{metric::kLanesContentionFraction, nullptr},
            {metric::kLanesContentionFractionMin, nullptr}};
  const Summary s = summarize(fractions);
  return {{metric::kLanesContentionFraction, s.median},
          {metric::kLanesContentionFractionMin, s.min}};
}

std::int64_t padding_calls(std::int64_t batch, const std::vector<LaneSpan> &last,
                           std::int64_t max_calls) {
  if (batch < 1 || max_calls < 1)
    throw std::invalid_argument("padding_calls: batch and max_calls must be positive");
  if (last.size() < 2)
    return std::min(batch, max_calls);
  double fastest_s = last.front().stop_s, slowest_s = last.front().stop_s;
  for (const LaneSpan &lane : last) {
    fastest_s = std::min(fastest_s, lane.stop_s);
    slowest_s = std::max(slowest_s, lane.stop_s);
  }
  if (!(fastest_s > 0))
    return std::min(batch, max_calls);
  const double lead_calls = (slowest_s / fastest_s - 1.0) * static_cast<double>(batch);
  const double wanted = std::ceil(1.5 * lead_calls) + 1.0;
  return static_cast<std::int64_t>(std::clamp(wanted, 1.0, static_cast<double>(max_calls)));
}

} // namespace railgauge
