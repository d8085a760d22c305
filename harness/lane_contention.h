#pragma once
// Keeping lanes that start together in contention until the last of them is done. Plain C++,
// tested without a GPU.
//
// Lanes started together (offload's GatedLanesTimer, a collective beside a GEMM) rarely finish
// together. A lane left running alone runs its tail faster than it ran beside the others, so its
// rate would overstate what it achieves concurrently, and a sum of lane rates would overstate
// the concurrent aggregate (a PCIe switch shared by GPUs would look less shared than it is). So
// every lane enqueues a few untimed padding calls after its stop event, as nvbandwidth keeps an
// interfering copy running while it measures: a lane's timed calls are in contention throughout
// when every other lane's padding ends after them. How many padding calls is learnt from the
// previous batch's imbalance (padding_calls), or fixed by the caller.
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

// One lane's batch, in seconds after the lanes' common start: its timed calls ended at
// `stop_s`, its padding at `padded_end_s`.
struct LaneSpan {
  double stop_s = 0;
  double padded_end_s = 0;
};

// The worst lane's share of its timed span during which every other lane was still running
// (timed or padding): 1.0 means every lane was measured in contention throughout. One lane:
// 1.0. Throws std::invalid_argument on a negative time or a padding that ends before its stop.
double contention_fraction(const std::vector<LaneSpan> &lanes);

// What a record carries of the contention fractions of its timed batches or windows:
// {"lanes_contention_fraction": median, "lanes_contention_fraction_min": lowest}, both null when
// there are none.
nlohmann::json contention_metrics(std::span<const double> fractions);

// Padding calls for the next batch of `batch` calls, from the last batch's spans (empty: none
// yet, then as many as the batch): the slowest lane's lead over the fastest, in calls of the
// next batch, with half again as margin and one more, at most `max_calls` and at least 1.
std::int64_t padding_calls(std::int64_t batch, const std::vector<LaneSpan> &last,
                           std::int64_t max_calls);

} // namespace railgauge
