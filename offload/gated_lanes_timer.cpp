#include "offload/gated_lanes_timer.h"

#include <algorithm>
#include <exception>
#include <latch>
#include <thread>

#include <fmt/format.h>

#include "harness/cuda/blocking_kernel.h"
#include "harness/cuda/check.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"
#include "harness/pinned_workers.h"

namespace railgauge::offload {
namespace {

// Launches one lane's stream holds behind its blocking kernel (see blocking_kernel.h on the
// launch queue): timed calls and padding together.
constexpr std::int64_t kMaxQueuedLaunches = 256;

} // namespace

struct GatedLanesTimer::State {
  gpu::Stream stream;
  gpu::Event start, stop, padded_end;
  gpu::BlockingKernel gate;
  std::vector<double> samples_s;
  std::exception_ptr error;
};

GatedLanesTimer::GatedLanesTimer(hwloc_topology_t topology, std::vector<Lane> lanes,
                                 double spin_timeout_s)
    : topology_(topology), lanes_(std::move(lanes)), spin_timeout_s_(spin_timeout_s) {
  for (const Lane &lane : lanes_) {
    // Streams, events and the gate's mapping belong to the device current at creation.
    const gpu::DeviceGuard guard(lane.device);
    states_.push_back(std::make_unique<State>());
  }
}

GatedLanesTimer::~GatedLanesTimer() = default;

cudaStream_t GatedLanesTimer::stream(std::size_t lane) const {
  return states_.at(lane)->stream.get();
}

std::int64_t GatedLanesTimer::max_batch() const {
  int launches = 1;
  for (const Lane &lane : lanes_)
    launches = std::max(launches, lane.launches_per_call);
  const std::int64_t calls = kMaxQueuedLaunches / launches / (lanes_.size() > 1 ? 2 : 1);
  return std::max<std::int64_t>(calls, 1);
}

const std::vector<double> &GatedLanesTimer::lane_samples_s(std::size_t lane) const {
  return states_.at(lane)->samples_s;
}

Operation GatedLanesTimer::every_lane_once() {
  return [this] {
    for (std::size_t k = 0; k < lanes_.size(); ++k) {
      const gpu::DeviceGuard guard(lanes_[k].device);
      lanes_[k].enqueue_one(states_[k]->stream.get());
    }
  };
}

void GatedLanesTimer::prime(const Operation &) {
  every_lane_once()();
  for (std::size_t k = 0; k < lanes_.size(); ++k) {
    const gpu::DeviceGuard guard(lanes_[k].device);
    RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(states_[k]->stream.get()));
  }
}

double GatedLanesTimer::time_batch_s(const Operation &, std::int64_t batch) {
  const std::size_t n = lanes_.size();
  std::latch enqueued(static_cast<std::ptrdiff_t>(n));
  // One lane needs no padding: nothing else runs beside it.
  const std::int64_t padding = n > 1 ? padding_calls(batch, last_spans_, max_batch()) : 0;
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (auto &state : states_)
    state->error = nullptr;
  for (std::size_t k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      State &s = *states_[k];
      const Lane &lane = lanes_[k];
      bool counted = false;
      try {
        std::optional<PinnedWorkers::CallerBinding> bound;
        if (lane.pu)
          bound.emplace(topology_, *lane.pu);
        RAILGAUGE_CUDA_CALL(cudaSetDevice(lane.device));
        s.gate.block(s.stream.get(), spin_timeout_s_);
        RAILGAUGE_CUDA_CALL(cudaEventRecord(s.start.get(), s.stream.get()));
        for (std::int64_t i = 0; i < batch; ++i)
          lane.enqueue_one(s.stream.get());
        RAILGAUGE_CUDA_CALL(cudaEventRecord(s.stop.get(), s.stream.get()));
        for (std::int64_t i = 0; i < padding; ++i)
          lane.enqueue_one(s.stream.get());
        RAILGAUGE_CUDA_CALL(cudaEventRecord(s.padded_end.get(), s.stream.get()));
        enqueued.count_down();
        counted = true;
        // Returns once the coordinator has released every gate and this lane's work is done.
        RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(s.stream.get()));
      } catch (...) {
        s.error = std::current_exception();
        if (!counted)
          enqueued.count_down();
      }
    });
  }
  enqueued.wait();
  // Back to back, so the lanes start within the gates' polling interval of one another. A lane
  // that failed before blocking has nothing to release; release() is harmless then.
  for (auto &state : states_)
    state->gate.release();
  for (auto &t : threads)
    t.join();

  for (std::size_t k = 0; k < n; ++k) {
    State &s = *states_[k];
    if (s.error) {
      // The other lanes have finished (joined); rethrow the first failure.
      for (auto &other : states_)
        RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaStreamSynchronize(other->stream.get()));
      std::rethrow_exception(s.error);
    }
    if (s.gate.timed_out())
      throw BackendError(fmt::format(
          "the blocking kernel of lane {} (CUDA device {}) gave up after {} s before it was "
          "released: enqueuing {} call(s) on every lane took too long, so the events would have "
          "timed the launches; lower min_sample_s",
          k, lanes_[k].device, spin_timeout_s_, batch));
  }
  const auto seconds = [](cudaEvent_t from, cudaEvent_t to) {
    float elapsed_ms = 0;
    RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&elapsed_ms, from, to));
    return static_cast<double>(elapsed_ms) * 1e-3;
  };
  std::vector<LaneSpan> spans;
  double slowest_s = 0;
  for (std::size_t k = 0; k < n; ++k) {
    State &s = *states_[k];
    const gpu::DeviceGuard guard(lanes_[k].device);
    spans.push_back(
        {seconds(s.start.get(), s.stop.get()), seconds(s.start.get(), s.padded_end.get())});
    s.samples_s.push_back(spans.back().stop_s / static_cast<double>(batch));
    slowest_s = std::max(slowest_s, spans.back().stop_s);
  }
  contention_fractions_.push_back(contention_fraction(spans));
  last_spans_ = std::move(spans);
  return slowest_s;
}

} // namespace railgauge::offload
