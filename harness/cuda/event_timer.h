#pragma once
// The CUDA-event Timer of the measurement core (harness/measure.h; nvbench's and nvbandwidth's
// method): a batch of GPU operations is timed on the GPU, between two events, with the stream
// held by a blocking kernel while the batch is enqueued, so the host's launch cost is excluded
// (see blocking_kernel.h for why and for the caveats).
//
//   CudaEventTimer timer(gpu);
//   ctx.measure(timer, [&] { my_kernel<<<grid, block, 0, timer.stream()>>>(...); });
//
// Operations must enqueue their work on stream() and must not synchronise it (that would wait
// for the blocked stream: the spin kernel's timeout then breaks the deadlock and the batch is
// reported as an error). The host time of the batch is not what this timer returns.
//
// Free of CUDA headers so that it is declared in every build; without CUDA (cuda_stub.cpp) the
// constructor throws BackendError.
#include <cstdint>
#include <memory>
#include <string_view>

#include "harness/measure.h"

struct CUstream_st; // what cudaStream_t points to (driver_types.h)

namespace railgauge::gpu {

using StreamHandle = CUstream_st *; // the same type as cudaStream_t

class CudaEventTimer final : public Timer {
public:
  // Creates a stream and two events on `device`. A batch whose enqueue keeps the stream blocked
  // longer than `spin_timeout_s` is an error (BackendError), never a hang.
  explicit CudaEventTimer(int device, double spin_timeout_s = 10.0);
  ~CudaEventTimer() override;
  CudaEventTimer(const CudaEventTimer &) = delete;
  CudaEventTimer &operator=(const CudaEventTimer &) = delete;

  std::string_view name() const override { return "cuda_event"; }
  // Makes the timer's device current, then: block the stream, record start, call `op` `batch`
  // times, record stop, release, synchronise; returns the seconds between the two events.
  double time_batch_s(const Operation &op, std::int64_t batch) override;
  // Runs `op` once on the timer's device, ungated, and waits for the stream (Timer::prime).
  void prime(const Operation &op) override;
  // Well under the ~1000 pending launches a stream holds behind the blocking kernel: a longer
  // batch would stall the enqueue until the spin timeout.
  std::int64_t max_batch() const override { return 256; }

  StreamHandle stream() const;
  int device() const { return device_; }

private:
  struct State;
  int device_ = 0;
  [[maybe_unused]] double spin_timeout_s_ = 10.0; // read by event_timer.cpp; the stub keeps it
  std::unique_ptr<State> state_;
};

} // namespace railgauge::gpu
