#pragma once
// A point whose samples scatter more than its suite allows: its median is not a figure to judge a
// node by. The stopping rule's max_rel_noise is a target that a point's time budget may end before
// reaching; noise_bound (MeasureSpec) is the limit past which the run says so and exits 1.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge {

// The relative noise of a record's timed figures: the half-width of its per-call time samples'
// p10..p90 over their median (metrics.time_s), the spread around the median every rate of the
// record is derived from. A few slow calls (a busy machine's preemptions) move stdev/mean far and
// the median little: on an idle 2-core VM three host points' stdev/mean was 67 to 78 % where
// this was 9 to 15 %. Without quantiles (older records), 1.2816 x stdev/mean, the same half-width
// for a normal spread. What run (noise_bound), check (a finding's digits) and compare (a difference
// within noise) call noise. nullopt where neither is there.
std::optional<double> relative_noise(const nlohmann::json &metrics);
std::optional<double> relative_noise(const Record &record);

// A normal spread's p10..p90 half-width in standard deviations: what puts a spread given as a
// stdev (or a coefficient of variation) on relative_noise's scale.
inline constexpr double kP10P90HalfWidthSigmas = 1.2816;

struct NoisyPoint {
  std::string key;
  std::string point; // the point's label (harness/axis.h, Point::label)
  double noise = 0;  // relative_noise
  double bound = 0;  // the noise_bound it exceeds
};

// The record as a NoisyPoint when it is ok and its noise exceeds `bound` (0: no bound).
std::optional<NoisyPoint> noisier_than_bound(const Record &record, double bound,
                                             std::string point_label);

// What a run with noisy points says on stderr: how many, the worst, and what to do. `contention`:
// how busy other work kept the machine meanwhile (harness/cpu_contention.h, CpuContention::text),
// said before the advice where there was any.
std::string noisy_points_line(const std::vector<NoisyPoint> &noisy,
                              const std::string &contention = "");

} // namespace railgauge
