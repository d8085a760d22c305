#include "harness/cuda/driver_needed.h"

#include <fmt/format.h>

namespace railgauge::gpu {
namespace {
std::string cuda_version_text(int version) {
  return fmt::format("{}.{}", version / 1000, version % 1000 / 10);
}
} // namespace

int minimum_driver_branch(int runtime_version) {
  // NVIDIA's CUDA Toolkit release notes, "CUDA Toolkit and Minimum Required Driver Version for
  // CUDA Minor Version Compatibility".
  switch (runtime_version / 1000) {
  case 13:
    return 580;
  case 12:
    return 525;
  case 11:
    return 450;
  default:
    return 0;
  }
}

std::string insufficient_driver_reason(int driver_version, int runtime_version) {
  const int branch = minimum_driver_branch(runtime_version);
  const std::string needed =
      branch > 0 ? fmt::format("driver R{} or newer", branch) : "a driver that supports it";
  const std::string runtime = cuda_version_text(runtime_version);
  if (driver_version <= 0)
    return fmt::format("no NVIDIA driver is loaded (libcuda.so.1 not found or not initialised): "
                       "this build's CUDA {} runtime needs {}",
                       runtime, needed);
  std::string reason =
      fmt::format("the NVIDIA driver supports CUDA {}, older than this build's CUDA {} runtime: "
                  "install {}",
                  cuda_version_text(driver_version), runtime, needed);
  if (driver_version / 1000 < runtime_version / 1000 && driver_version / 1000 >= 11)
    reason += fmt::format(", or build railgauge with a CUDA {}.x toolkit (nvcc {}.x first on "
                          "PATH, then scripts/build.sh), which this driver runs",
                          driver_version / 1000, driver_version / 1000);
  return reason;
}

} // namespace railgauge::gpu
