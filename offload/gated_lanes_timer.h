#pragma once
// A Timer (harness/measure.h) for work that runs on several streams at once: both directions of
// one GPU, every GPU of the node, or a copy beside a GEMM. Include only from sources compiled
// when RAILGAUGE_HAS_CUDA.
//
// Each lane is one stream on one GPU with its own blocking kernel (harness/cuda/
// blocking_kernel.h) and its own pair of events. For a batch, one thread per lane (pinned to the
// lane's PU, if it has one) holds its stream, records its start event, enqueues `batch` calls of
// the lane's work and its stop event; when every lane has enqueued (a latch), the gates are
// released back to back, so the lanes start together (the skew is the gates' polling, well under
// a microsecond, plus a PCIe read of the release flag). The batch's time is the slowest lane's.
//
// Lanes rarely finish together, and a lane that runs its tail alone runs it faster. With more
// than one lane, each lane enqueues untimed padding calls after its stop event, as many as the
// last batch's imbalance calls for (harness/lane_contention.h), so that every lane's timed calls
// run beside the others' work throughout; contention_fractions() says whether they did.
//
//   GatedLanesTimer timer(topology, {{gpu, pu, [&](cudaStream_t s) { copy(s); }}, ...});
//   const Measurement m = ctx.measure(timer, timer.every_lane_once());
//   timer.lane_samples_s(0);  // lane 0's seconds per call, one per batch
//
// The Operation the measurement core passes to time_batch_s() is used only for its warm-up calls
// (every_lane_once() runs each lane's work once); the timed batch enqueues each lane's own work
// from the lane's thread.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>
#include <hwloc.h>

#include "harness/lane_contention.h"
#include "harness/measure.h"

namespace railgauge::offload {

struct Lane {
  int device = 0;
  std::optional<unsigned> pu;                    // PU (OS index) the lane's thread is pinned to
  std::function<void(cudaStream_t)> enqueue_one; // one call of the lane's work, asynchronous
  int launches_per_call = 1; // kernels and copies one call enqueues (they queue behind the gate)
};

class GatedLanesTimer final : public Timer {
public:
  GatedLanesTimer(hwloc_topology_t topology, std::vector<Lane> lanes, double spin_timeout_s = 10.0);
  ~GatedLanesTimer() override;
  GatedLanesTimer(const GatedLanesTimer &) = delete;
  GatedLanesTimer &operator=(const GatedLanesTimer &) = delete;

  std::string_view name() const override { return "cuda_event_lanes"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override;
  // Every lane's work once, ungated, waited for (Timer::prime).
  void prime(const Operation &op) override;
  // Each lane's stream holds at most 256 launches behind its blocking kernel: the batch's and,
  // with several lanes, as many again of padding.
  std::int64_t max_batch() const override;

  // Runs every lane's work once, each on its stream, from the calling thread: the warm-up.
  Operation every_lane_once();
  cudaStream_t stream(std::size_t lane) const;
  std::size_t lanes() const { return lanes_.size(); }
  // Seconds per call of lane `lane`, one per batch timed since the timer was made (the sizing
  // call and warm-up batches included: take the last Measurement::samples_s.size()).
  const std::vector<double> &lane_samples_s(std::size_t lane) const;
  // Per batch, the same way: the worst lane's share of its timed span during which every other
  // lane still ran (contention_fraction; 1.0 with one lane).
  const std::vector<double> &contention_fractions() const { return contention_fractions_; }

private:
  struct State;
  hwloc_topology_t topology_;
  std::vector<Lane> lanes_;
  double spin_timeout_s_;
  std::vector<std::unique_ptr<State>> states_;
  std::vector<double> contention_fractions_;
  std::vector<LaneSpan> last_spans_; // the last batch's, for the next batch's padding
};

} // namespace railgauge::offload
