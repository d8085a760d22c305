#pragma once
// The common window of lanes that start together: the part of a batch during which every lane was
// still running. Plain C++, tested without a GPU.
//
// Lanes started together (GatedLanesTimer) rarely finish together. The lane that finishes last
// runs its tail alone, faster than it did beside the others, so its batch-average rate overstates
// what it achieves concurrently, and a sum of lane rates overstates the concurrent aggregate (a
// PCIe switch shared by GPUs looks less shared than it is). Each lane therefore marks its progress
// a few times per batch, and its concurrent rate is taken over the calls it completed before the
// first lane finished.
#include <cstdint>
#include <vector>

namespace railgauge::offload {

// One lane's progress mark: `calls` of the batch's calls were complete `end_s` after the lanes'
// common start.
struct CallMark {
  std::int64_t calls = 0;
  double end_s = 0;
};

// What a lane did inside the common window.
struct WindowedLane {
  std::int64_t calls = 0; // calls completed inside the window
  double seconds = 0;     // from the common start to the mark of the last of them
  // False when the lane had not completed a marked call by the time the first lane finished: its
  // figures are then those of its first mark, which includes time it ran alone.
  bool inside_window = true;
};

struct CommonWindow {
  std::vector<WindowedLane> lanes;
  // The window (when the first lane finished) over the batch (when the last one did): 1.0 means
  // the lanes ran side by side throughout.
  double overlap_fraction = 1.0;
};

// `marks[k]`: lane k's marks in increasing order of calls; its last mark is the whole batch. Throws
// std::invalid_argument on an empty lane, marks out of order or a negative time.
CommonWindow common_window(const std::vector<std::vector<CallMark>> &marks);

// Which calls of a batch of `batch` calls get a mark: every `stride` calls, at most `max_marks`
// marks in all, the last call always. Returns the 1-based call counts, increasing.
std::vector<std::int64_t> marked_calls(std::int64_t batch, std::int64_t max_marks);

// How many times each of two lanes repeats its work per call so that a call of one takes about
// as long as a call of the other, given the seconds of one repetition of each alone. The longer
// work runs once; the shorter as often as fits in it (at least once). Throws
// std::invalid_argument unless both times are positive and finite.
struct RepeatsPerCall {
  int first = 1;
  int second = 1;
};
RepeatsPerCall balance_repeats(double first_s, double second_s);

} // namespace railgauge::offload
