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

// One part among its siblings: the other parts of its node that measured the same point. A part
// with several values of one point (the cells of its row of an nvbandwidth GPU x GPU matrix, or
// one figure from several runs) is taken at their median, so one slow peer in its row does not
// make it slow; it is then judged against the others only (a slow GPU does not pull down the
// median it is judged by, which matters when half of a node's GPUs are slow).
struct SiblingStats {
  double own = 0;      // the median of the part's own values
  int own_values = 0;  // how many values that median is of
  FleetStats siblings; // of the other parts' medians; n == 0 when the part has no sibling
};

// `values_by_part[i]` holds part i's values (none empty); the result is in the same order.
std::vector<SiblingStats> sibling_stats(const std::vector<std::vector<double>> &values_by_part);

} // namespace railgauge::check
