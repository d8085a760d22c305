#include "harness/rate_series.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "harness/metric_names.h"
#include "harness/stats.h"

namespace railgauge {

void RateSeries::add(double t_s, double rate) { points_.push_back({t_s, rate}); }

std::vector<double> RateSeries::settled(double settle_s) const {
  std::vector<double> after, all;
  for (const auto &p : points_) {
    all.push_back(p.rate);
    if (p.t_s >= settle_s)
      after.push_back(p.rate);
  }
  return after.empty() ? all : after;
}

std::optional<double> RateSeries::median(double settle_s) const {
  const auto v = settled(settle_s);
  if (v.empty())
    return std::nullopt;
  return railgauge::median(v);
}

std::optional<double> RateSeries::min(double settle_s) const {
  const auto v = settled(settle_s);
  if (v.empty())
    return std::nullopt;
  return *std::min_element(v.begin(), v.end());
}

nlohmann::json RateSeries::windows(double window_s, const char *name) const {
  std::map<long long, std::vector<double>> by_window;
  for (const auto &p : points_)
    by_window[static_cast<long long>(std::floor(p.t_s / window_s))].push_back(p.rate);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto &[w, rates] : by_window)
    rows.push_back(
        {{metric::kSeriesTS, static_cast<double>(w) * window_s}, {name, railgauge::median(rates)}});
  return rows;
}

} // namespace railgauge
