#include "harness/cuda/stream_gates.h"

#include <stdexcept>

#include <fmt/format.h>

namespace railgauge::gpu {

StreamGates::StreamGates(std::vector<int> devices)
    : devices_(std::move(devices)), counted_(devices_.size(), true) {
  // The flags are portable mapped host memory: any device can read them; each gate is still
  // made with its device current, as a spin kernel launched there polls it.
  for (int d : devices_) {
    DeviceGuard guard(d);
    gates_.push_back(std::make_unique<BlockingKernel>());
  }
}

StreamGates::Held StreamGates::hold(const std::vector<cudaStream_t> &streams, double timeout_s) {
  if (streams.size() != gates_.size())
    throw std::logic_error(
        fmt::format("StreamGates: {} streams given for {} devices", streams.size(), gates_.size()));
  count_timeouts(); // block() clears the flags of the previous hold
  Held held(*this); // from the first block on: a throw below releases those already held
  for (std::size_t i = 0; i < gates_.size(); ++i) {
    DeviceGuard guard(devices_[i]);
    gates_[i]->block(streams[i], timeout_s);
    counted_[i] = false;
  }
  return held;
}

int StreamGates::timed_out() {
  count_timeouts();
  return timed_out_;
}

void StreamGates::count_timeouts() {
  for (std::size_t i = 0; i < gates_.size(); ++i)
    if (!counted_[i] && gates_[i]->timed_out()) {
      ++timed_out_;
      counted_[i] = true;
    }
}

void StreamGates::release() noexcept {
  for (auto &g : gates_)
    g->release();
}

} // namespace railgauge::gpu
