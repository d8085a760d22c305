#include "harness/cuda/event_timer.h"

#include <fmt/format.h>

#include "harness/cuda/blocking_kernel.h"
#include "harness/cuda/check.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"

namespace railgauge::gpu {

struct CudaEventTimer::State {
  Stream stream;
  Event start, stop;
  BlockingKernel gate;
};

CudaEventTimer::CudaEventTimer(int device, double spin_timeout_s)
    : device_(device), spin_timeout_s_(spin_timeout_s) {
  // Streams and events belong to the device that is current when they are created.
  const DeviceGuard guard(device);
  state_ = std::make_unique<State>();
}

CudaEventTimer::~CudaEventTimer() = default;

StreamHandle CudaEventTimer::stream() const { return state_->stream.get(); }

void CudaEventTimer::prime(const Operation &op) {
  RAILGAUGE_CUDA_CALL(cudaSetDevice(device_));
  op();
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(state_->stream.get()));
}

double CudaEventTimer::time_batch_s(const Operation &op, std::int64_t batch) {
  RAILGAUGE_CUDA_CALL(cudaSetDevice(device_));
  State &s = *state_;
  s.gate.block(s.stream.get(), spin_timeout_s_);
  try {
    RAILGAUGE_CUDA_CALL(cudaEventRecord(s.start.get(), s.stream.get()));
    for (std::int64_t i = 0; i < batch; ++i)
      op();
    RAILGAUGE_CUDA_CALL(cudaEventRecord(s.stop.get(), s.stream.get()));
  } catch (...) {
    // Never leave the stream held: the next batch, or the destructor, would wait on it.
    s.gate.release();
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaStreamSynchronize(s.stream.get()));
    throw;
  }
  s.gate.release();
  // Errors of the batch's kernels surface here, at the synchronisation.
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(s.stream.get()));
  if (s.gate.timed_out())
    throw BackendError(fmt::format(
        "the blocking kernel on CUDA device {} gave up after {} s before the host released it: "
        "enqueuing the batch of {} operation(s) took too long (or filled the stream's launch "
        "queue), so the events would have timed the launches, not the GPU work; lower "
        "min_sample_s or raise the timer's spin timeout",
        device_, spin_timeout_s_, batch));
  float elapsed_ms = 0;
  RAILGAUGE_CUDA_CALL(cudaEventElapsedTime(&elapsed_ms, s.start.get(), s.stop.get()));
  return static_cast<double>(elapsed_ms) * 1e-3;
}

} // namespace railgauge::gpu
