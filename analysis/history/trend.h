#pragma once
// The statistics of a part's history, robust to the odd bad run: a Theil-Sen line through the
// last values (the median of the slopes of every pair), the noise about it (1.4826 x the median
// absolute residual, a standard deviation for normal noise), and how many of the pairs agree
// on the slope's sign (Kendall's tau as a share: 1 when every later value is lower).
#include <vector>

namespace railgauge::history {

struct Trend {
  int n = 0;
  double level = 0;           // the median of the values
  double slope_per_run = 0;   // Theil-Sen, in the values' unit per run
  double change_fraction = 0; // slope x (n - 1) / level: the fitted change over the window
  double noise_fraction = 0;  // residual noise / level
  double falling_pairs = 0;   // share of pairs (i < j) with v[j] < v[i]
};

// Values in run order, oldest first; n < 3 gives a Trend with n set and nothing else.
Trend robust_trend(const std::vector<double> &values);

// 1.4826 x the median absolute deviation from the median: a standard deviation, robust.
double robust_sigma(std::vector<double> values);

} // namespace railgauge::history
