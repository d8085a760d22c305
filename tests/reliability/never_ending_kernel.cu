#include "tests/reliability/never_ending_kernel.h"

namespace railgauge::testing {
namespace {

// Spins until *stop is set, which nothing does: the GPU kernel that never finishes.
__global__ void spin_forever(const volatile int *stop) {
  while (*stop == 0)
    __nanosleep(1000);
}

} // namespace

void launch_never_ending_kernel(cudaStream_t stream, const int *stop_on_device) {
  spin_forever<<<1, 1, 0, stream>>>(stop_on_device);
}

} // namespace railgauge::testing
