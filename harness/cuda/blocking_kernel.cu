#include "harness/cuda/blocking_kernel.h"

#include <cstdint>

namespace railgauge::gpu {
namespace {

// Nanoseconds from the GPU's global timer: unlike clock64() it does not depend on the SM clock,
// which changes with boost and throttling.
__device__ std::uint64_t global_timer_ns() {
  std::uint64_t t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_until_released(const volatile int *release, volatile int *timed_out,
                                    std::uint64_t timeout_ns) {
  const std::uint64_t start_ns = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start_ns > timeout_ns) {
      *timed_out = 1;
      __threadfence_system();
      return;
    }
    // Poll a few times per microsecond, not as fast as PCIe allows.
    __nanosleep(200);
  }
}

} // namespace

BlockingKernel::BlockingKernel() : flags_(sizeof(Flags)) {
  host_flags()->release = 1;
  host_flags()->timed_out = 0;
}

void BlockingKernel::block(cudaStream_t stream, double timeout_s) {
  host_flags()->release = 0;
  host_flags()->timed_out = 0;
  auto *device_flags = static_cast<Flags *>(flags_.device());
  spin_until_released<<<1, 1, 0, stream>>>(&device_flags->release, &device_flags->timed_out,
                                           static_cast<std::uint64_t>(timeout_s * 1e9));
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) {
    release();
    throw_on_status(launched, "spin_until_released<<<1, 1, 0, stream>>>", __FILE__, __LINE__);
  }
}

void BlockingKernel::release() noexcept {
  // Make the batch's enqueued state visible before the GPU can see the release.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  host_flags()->release = 1;
}

bool BlockingKernel::timed_out() const { return host_flags()->timed_out != 0; }

} // namespace railgauge::gpu
