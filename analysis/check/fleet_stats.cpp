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

std::vector<SiblingStats> sibling_stats(const std::vector<std::vector<double>> &values_by_part) {
  std::vector<double> medians;
  medians.reserve(values_by_part.size());
  for (const auto &values : values_by_part)
    medians.push_back(railgauge::median(values));
  std::vector<SiblingStats> out;
  out.reserve(medians.size());
  for (std::size_t i = 0; i < medians.size(); ++i) {
    SiblingStats s;
    s.own = medians[i];
    s.own_values = static_cast<int>(values_by_part[i].size());
    std::vector<double> others;
    for (std::size_t j = 0; j < medians.size(); ++j)
      if (j != i)
        others.push_back(medians[j]);
    if (!others.empty())
      s.siblings = fleet_stats(others);
    out.push_back(s);
  }
  return out;
}

} // namespace railgauge::check
