#include "offload/common_window.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace railgauge::offload {

CommonWindow common_window(const std::vector<std::vector<CallMark>> &marks) {
  double window_end_s = std::numeric_limits<double>::infinity();
  double batch_end_s = 0;
  for (std::size_t k = 0; k < marks.size(); ++k) {
    const auto &lane = marks[k];
    if (lane.empty())
      throw std::invalid_argument("common_window: lane " + std::to_string(k) + " has no marks");
    for (std::size_t i = 0; i < lane.size(); ++i) {
      const bool ordered =
          i == 0 || (lane[i].calls > lane[i - 1].calls && lane[i].end_s >= lane[i - 1].end_s);
      if (!ordered || lane[i].calls <= 0 || !(lane[i].end_s >= 0))
        throw std::invalid_argument("common_window: lane " + std::to_string(k) + " mark " +
                                    std::to_string(i) + " is out of order or negative");
    }
    window_end_s = std::min(window_end_s, lane.back().end_s);
    batch_end_s = std::max(batch_end_s, lane.back().end_s);
  }
  CommonWindow window;
  if (marks.empty())
    return window;
  window.overlap_fraction = batch_end_s > 0 ? window_end_s / batch_end_s : 1.0;
  for (const auto &lane : marks) {
    // The last mark at or before the window's end; the lane that set the end has its whole batch.
    auto inside = std::find_if(lane.rbegin(), lane.rend(),
                               [&](const CallMark &m) { return m.end_s <= window_end_s; });
    if (inside == lane.rend())
      window.lanes.push_back({lane.front().calls, lane.front().end_s, false});
    else
      window.lanes.push_back({inside->calls, inside->end_s, true});
  }
  return window;
}

std::vector<std::int64_t> marked_calls(std::int64_t batch, std::int64_t max_marks) {
  if (batch <= 0 || max_marks <= 0)
    throw std::invalid_argument("marked_calls: batch and max_marks must be positive");
  const std::int64_t stride = (batch + max_marks - 1) / max_marks;
  std::vector<std::int64_t> calls;
  for (std::int64_t c = stride; c < batch; c += stride)
    calls.push_back(c);
  calls.push_back(batch);
  return calls;
}

RepeatsPerCall balance_repeats(double first_s, double second_s) {
  if (!(first_s > 0 && second_s > 0 && std::isfinite(first_s) && std::isfinite(second_s)))
    throw std::invalid_argument("balance_repeats: the times must be positive and finite");
  // Capped so that a call stays a call: a microsecond copy beside a second-long GEMM would
  // otherwise repeat a million times.
  constexpr double kMaxRepeats = 1024;
  const auto repeats = [&](double ratio) {
    return static_cast<int>(std::clamp(std::round(ratio), 1.0, kMaxRepeats));
  };
  if (first_s >= second_s)
    return {1, repeats(first_s / second_s)};
  return {repeats(second_s / first_s), 1};
}

} // namespace railgauge::offload
