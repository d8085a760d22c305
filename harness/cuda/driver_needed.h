#pragma once
// What a machine whose NVIDIA driver is too old for this build needs, in words: plain C++, so
// the waiver's text is tested without a GPU or driver.
#include <string>

namespace railgauge::gpu {

// The oldest driver branch that runs a CUDA runtime of `runtime_version` (CUDA's encoding,
// 1000·major + 10·minor: 13000 is 13.0) under CUDA's minor-version compatibility: R580 for 13.x,
// R525 for 12.x, R450 for 11.x; 0 for a version this table does not know.
int minimum_driver_branch(int runtime_version);

// Why CUDA cannot start (cudaErrorInsufficientDriver) and what to do: `driver_version` is
// cudaDriverGetVersion's (0 when no driver is loaded), `runtime_version` the build's runtime.
std::string insufficient_driver_reason(int driver_version, int runtime_version);

} // namespace railgauge::gpu
