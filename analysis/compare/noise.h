#pragma once
// An input's value of a point and its noise: the median of its records, the larger of the
// repetitions' spread and the spread over the records (compare.h); and the value read off the
// input's curve at a size it did not measure.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/compare/compare.h"
#include "analysis/compare/point_matching.h"

namespace railgauge::compare {

// A record's noise of `metric` (a path: metrics.tflops): the spread of its own seconds for a
// telemetry figure (metrics.telemetry.during.temperature_c.median; none without them), else
// relative_noise (compare.h). The TFLOP/s spread once stood for a temperature's: 56 to 57 C
// read "better" against +-0.9 %.
std::optional<double> metric_noise(const nlohmann::json &metrics, const std::string &metric);

// An input's value of a point: the median of its records, and its noise (compare.h).
std::optional<Side> side_of(const Slot &slot);

// Each point's side per input (side_of its slots), computed once.
using Sides = std::map<PointId, std::vector<std::optional<Side>>>;

// Per curve and input, the sizes that input measured, ascending, with its side there.
using Curves = std::map<std::string, std::vector<std::vector<std::pair<double, Side>>>>;

Curves curves_of(const Sides &sides, const ParamsOf &params_of);

// The value of a measured curve at a size strictly between two of its sizes; none outside them
// (a curve is never extrapolated).
std::optional<Side> interpolate(const std::vector<std::pair<double, Side>> &sizes, double size);

} // namespace railgauge::compare
