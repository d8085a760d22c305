#include "analysis/history/trend.h"

#include <algorithm>
#include <cmath>

#include "harness/stats.h"

namespace railgauge::history {

double robust_sigma(std::vector<double> values) {
  const double m = median(values);
  for (auto &v : values)
    v = std::fabs(v - m);
  return 1.4826 * median(std::move(values));
}

Trend robust_trend(const std::vector<double> &values) {
  Trend t;
  t.n = static_cast<int>(values.size());
  if (t.n < 3)
    return t;
  std::vector<double> slopes;
  int falling = 0;
  for (int i = 0; i < t.n; ++i)
    for (int j = i + 1; j < t.n; ++j) {
      slopes.push_back((values[j] - values[i]) / (j - i));
      falling += values[j] < values[i];
    }
  t.level = median(values);
  t.slope_per_run = median(slopes);
  // The line through the median point: intercept = median(v_i - slope * i).
  std::vector<double> offsets;
  for (int i = 0; i < t.n; ++i)
    offsets.push_back(values[i] - t.slope_per_run * i);
  const double intercept = median(offsets);
  std::vector<double> residuals;
  for (int i = 0; i < t.n; ++i)
    residuals.push_back(values[i] - (intercept + t.slope_per_run * i));
  if (t.level != 0) {
    t.change_fraction = t.slope_per_run * (t.n - 1) / t.level;
    t.noise_fraction = robust_sigma(residuals) / std::fabs(t.level);
  }
  t.falling_pairs = static_cast<double>(falling) / static_cast<double>(slopes.size());
  return t;
}

} // namespace railgauge::history
