#pragma once
// The one figure a curve rule (`curve:` in rules.h) judges of one curve: the value at its largest
// point, its peak, a ratio to its peak, or its worst drop. Pure: `check` over run directories
// (evaluate_fleet.cpp) and over the fleet history's database (analysis/history/history_fleet.h)
// take it alike; the figure is then judged against the rule's absolute bound.
#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/check/rules.h"

namespace railgauge::check {

struct CurveFigure {
  // A shape (a ratio or a drop) of fewer points than min_points cannot be judged: a missing value
  // at info, `how` saying why.
  bool too_short = false;
  std::size_t at = 0; // the point the finding names
  // A ratio's denominator (the peak, the point a drop falls from): the figure's noise is both
  // points' noise. None for a figure that is one point's value.
  std::optional<std::size_t> divided_by;
  double value = 0;
  std::string how;
};

// One record's point of a curve: its `over` parameter and the metric, both numbers. A row at size
// 0 has no bandwidth to judge and is left out; a point whose size or value is not a number is a
// value the rule could not read (`unreadable` says why), never one left out in silence.
struct CurveReading {
  enum class Kind { point, left_out, unreadable } kind = Kind::left_out;
  double x = 0;
  double y = 0;
  std::string unreadable;
};
CurveReading curve_point_of(const CurveSpec &spec, const nlohmann::json &params,
                            const nlohmann::json &value);

// `xs` ascending (the rule's `over`), `ys` the metric at each; at least one point.
CurveFigure curve_figure(const CurveSpec &spec, std::span<const double> xs,
                         std::span<const double> ys);

} // namespace railgauge::check
