#include "analysis/check/fleet_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/check/rules.h"
#include "harness/stats.h"

namespace railgauge::check {

FleetStats fleet_stats(std::span<const double> values) {
  if (values.empty())
    throw std::invalid_argument("fleet_stats of no values");
  FleetStats s;
  s.n = static_cast<int>(values.size());
  s.median = railgauge::median(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values)
    dev.push_back(std::fabs(v - s.median));
  s.mad = railgauge::median(dev);
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

double fleet_threshold(const FleetBound &bound, Op op, const FleetStats &stats) {
  const bool higher_is_better = op == Op::ge || op == Op::gt;
  std::optional<double> t;
  const auto loosen = [&](double candidate) {
    if (!t)
      t = candidate;
    else
      t = higher_is_better ? std::min(*t, candidate) : std::max(*t, candidate);
  };
  const double reference = reference_value(bound, op, stats);
  if (bound.mads)
    loosen(higher_is_better ? reference - *bound.mads * stats.mad
                            : reference + *bound.mads * stats.mad);
  if (bound.fraction)
    loosen(*bound.fraction * reference);
  return t.value_or(reference);
}

double reference_value(const FleetBound &bound, Op op, const FleetStats &stats) {
  if (!bound.against_best)
    return stats.median;
  return op == Op::ge || op == Op::gt ? stats.max : stats.min;
}

} // namespace railgauge::check
