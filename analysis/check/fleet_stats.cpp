#include "analysis/check/fleet_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/check/rules.h"

namespace railgauge::check {
namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

FleetStats fleet_stats(std::span<const double> values) {
  if (values.empty())
    throw std::invalid_argument("fleet_stats of no values");
  FleetStats s;
  s.n = static_cast<int>(values.size());
  s.median = median_of({values.begin(), values.end()});
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values)
    dev.push_back(std::fabs(v - s.median));
  s.mad = median_of(std::move(dev));
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
  if (bound.mads)
    loosen(higher_is_better ? stats.median - *bound.mads * stats.mad
                            : stats.median + *bound.mads * stats.mad);
  if (bound.fraction)
    loosen(*bound.fraction * stats.median);
  return t.value_or(stats.median);
}

} // namespace railgauge::check
