#include "harness/cuda/every_gpu_check.h"

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::gpu {

std::optional<std::string> every_gpu_problem(const std::vector<int> &gpus, int visible,
                                             const DeviceProblem &problem) {
  for (int d : gpus) {
    if (d >= visible)
      return fmt::format("gpu={} does not exist here: {} CUDA device(s) visible", d, visible);
    CudaDeviceInfo info;
    try {
      info = cuda_device_info(d);
    } catch (const BackendError &e) {
      return fmt::format("CUDA device {} cannot be queried: {}", d, e.what());
    }
    if (auto why = problem(d, info))
      return why;
  }
  return std::nullopt;
}

std::optional<std::string> gpu_not_visible(std::int64_t gpu, int visible) {
  if (gpu >= 0 && gpu < visible)
    return std::nullopt;
  return fmt::format("gpu={} does not exist here: {} CUDA device(s) visible (0..{}); "
                     "CUDA_VISIBLE_DEVICES renumbers them",
                     gpu, visible, visible - 1);
}

std::optional<std::string> vector_size_problem(std::int64_t size_bytes) {
  constexpr std::int64_t kVectorBytes = 16;
  if (size_bytes > 0 && size_bytes % kVectorBytes == 0)
    return std::nullopt;
  return fmt::format("size_bytes={} is not a positive multiple of {} (16-byte vector accesses)",
                     size_bytes, kVectorBytes);
}

} // namespace railgauge::gpu
