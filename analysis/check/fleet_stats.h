#pragma once
// Robust statistics of one metric over the parts of a fleet: median and MAD (median absolute
// deviation from the median, unscaled). A single slow GPU moves neither, so the bound built from
// them still catches it; mean and standard deviation would be dragged toward the outlier.
#include <optional>
#include <span>
#include <vector>

namespace railgauge::check {

struct FleetStats {
  int n = 0;
  double median = 0;
  double mad = 0;
  double min = 0, max = 0;
};

// Throws std::invalid_argument for an empty span.
FleetStats fleet_stats(std::span<const double> values);

struct FleetBound;
enum class Op;

// The threshold a value is compared with: for >=/> the looser (lower) of median - mads*MAD and
// fraction*median, for <=/< the looser (higher) of median + mads*MAD and fraction*median.
double fleet_threshold(const FleetBound &bound, Op op, const FleetStats &stats);

// What the bound is taken from: the median, or with `reference: best` the best value (the
// highest for >=/>, the lowest for <=/<).
double reference_value(const FleetBound &bound, Op op, const FleetStats &stats);

} // namespace railgauge::check
