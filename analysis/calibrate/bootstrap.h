#pragma once
// Confidence intervals of fitted coefficients by the percentile bootstrap: the points are drawn
// again with replacement, the coefficients refitted, and the interval is the middle 95 % of the
// refits. Resampling keeps each stratum's count (the points that share which regressors are
// non-zero: an op's column, a layout's α), so no refit loses a coefficient to a draw that left
// its points out. Seeded: the same points and seed give the same interval.
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/robust_fit.h"
#include "analysis/calibrate/step_table.h"

namespace railgauge::calibrate {

inline constexpr int kBootstrapResamples = 200;
inline constexpr double kIntervalLevel = 0.95;

struct Interval {
  double low = 0, high = 0;
  int resamples = 0; // refits the interval was read from
};

// One interval per coefficient of robust_linear_fit; nullopt for every coefficient when there
// are fewer than 3 points, or when fewer than 80 % of the refits could be solved.
std::vector<std::optional<Interval>> linear_fit_intervals(const std::vector<LinearSample> &samples,
                                                          std::uint64_t seed);

// One interval per row of a fitted step table, its thresholds kept: the efficiency of the row
// refitted (step_efficiency) on its points drawn again. nullopt for a row of fewer than 2
// points.
std::vector<std::optional<Interval>> step_row_intervals(const StepTable &table,
                                                        const std::vector<StepPoint> &points,
                                                        double max_efficiency, std::uint64_t seed);

// {"low", "high", "level", "resamples", "method"}, or null.
nlohmann::json to_json(const std::optional<Interval> &interval);

} // namespace railgauge::calibrate
