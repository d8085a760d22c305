#pragma once
// The one figure a curve rule (`curve:` in rules.h) judges of one curve: the value at its largest
// point, its peak, a ratio to its peak, or its worst drop. Pure: `check` over run directories
// (evaluate_fleet.cpp) and over the fleet history's database (analysis/history/history_fleet.h)
// take it alike; the figure is then judged against the rule's absolute bound.
#include <cstddef>
#include <span>
#include <string>

#include "analysis/check/rules.h"

namespace railgauge::check {

struct CurveFigure {
  // A shape (a ratio or a drop) of fewer points than min_points cannot be judged: a missing value
  // at info, `how` saying why.
  bool too_short = false;
  std::size_t at = 0; // the point the finding names
  double value = 0;
  std::string how;
};

// `xs` ascending (the rule's `over`), `ys` the metric at each; at least one point.
CurveFigure curve_figure(const CurveSpec &spec, std::span<const double> xs,
                         std::span<const double> ys);

} // namespace railgauge::check
