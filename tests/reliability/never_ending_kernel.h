#pragma once
// A kernel that never finishes, for the watchdog's GPU test.
#include <cuda_runtime_api.h>

namespace railgauge::testing {

// Launches one thread that spins until *stop_on_device (device memory, zeroed by the caller)
// becomes non-zero.
void launch_never_ending_kernel(cudaStream_t stream, const int *stop_on_device);

} // namespace railgauge::testing
