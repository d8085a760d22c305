#pragma once
// A point whose samples scatter more than its suite allows: its median is not a figure to judge a
// node by. The stopping rule's max_rel_noise is a target that a point's time budget may end before
// reaching; noise_bound (MeasureSpec) is the limit past which the run says so and exits 1.
#include <optional>
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge {

// stdev/mean of the per-call time samples of an ok record (metrics.time_s), the figure the run's
// summary shows as noise; nullopt for a record without them.
std::optional<double> relative_noise(const Record &record);

struct NoisyPoint {
  std::string key;
  std::string point; // the point's label (harness/axis.h, Point::label)
  double noise = 0;  // stdev/mean
  double bound = 0;  // the noise_bound it exceeds
};

// The record as a NoisyPoint when it is ok and its noise exceeds `bound` (0: no bound).
std::optional<NoisyPoint> noisier_than_bound(const Record &record, double bound,
                                             std::string point_label);

// What a run with noisy points says on stderr: how many, the worst, and what to do.
std::string noisy_points_line(const std::vector<NoisyPoint> &noisy);

} // namespace railgauge
