#pragma once
// Which points of a key the family and key summaries count where a point that ran on every GPU
// at once (offload.all_gpus_h2d) is compared both as its node's total and as each GPU's part:
// each measurement once, never the total and its parts both (on one GPU they are the same
// figure, counted twice).
#include <set>
#include <string>

#include "analysis/compare/noise.h"
#include "analysis/compare/point_matching.h"

namespace railgauge::compare {

struct CountedPoints {
  // Keys whose GPUs are counted, their node totals listed only.
  std::set<std::string> by_parts;
  // Keys whose node totals are counted, their GPUs listed only: each total is one GPU's, and
  // the GPU's figure is one value without a spread (an offload object holds no repetitions)
  // where the total was timed with repetitions, the verdict with noise to judge by.
  std::set<std::string> by_totals;
  bool counted(const PointComparison &p) const;
};

// From the points compared in two inputs or more: a candidate whose records hold no per-GPU
// objects compared its totals alone, and they count.
CountedPoints counted_points(const Points &points, const ParamsOf &params_of, const Sides &sides);

} // namespace railgauge::compare
