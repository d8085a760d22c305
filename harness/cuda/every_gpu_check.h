#pragma once
// The device check of a point that runs on every local GPU at once (harness/every_gpu.h:
// gemm.burn, memory.burn), before it runs, and of a point's one named GPU and the size its
// kernels move. Free of CUDA types, so it is compiled in every build (without CUDA no device is
// visible and none can be queried).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/cuda/device.h"
#include "harness/error.h"

namespace railgauge::gpu {

// What one device lacks for the point (memory, compute capability), or nullopt.
using DeviceProblem =
    std::function<std::optional<std::string>(int device, const CudaDeviceInfo &info)>;

// Why the point cannot run on `gpus` (CUDA ordinals), or nullopt: the first that is not among
// the `visible` devices, cannot be queried, or has a `problem`.
std::optional<std::string> every_gpu_problem(const std::vector<int> &gpus, int visible,
                                             const DeviceProblem &problem);

// Why a point that runs on every local GPU cannot run here, or nullopt: CUDA is unusable, `read`
// (its options for the visible device count) throws InputError on an axis, or `check` (given
// the options and the count) finds a problem: what gemm.burn, memory.burn and memory.pattern
// check first.
template <typename Read, typename Check>
std::optional<std::string> every_gpu_point_problem(const Read &read, const Check &check) {
  if (auto why = cuda_unavailable_reason())
    return why;
  const int visible = cuda_device_count();
  std::optional<decltype(read(visible))> options;
  try {
    options.emplace(read(visible));
  } catch (const InputError &e) {
    return e.problem();
  }
  return check(*options, visible);
}

// Why `gpu` (a CUDA ordinal) is none of the `visible` devices, or nullopt; the reason gives
// their range, since CUDA_VISIBLE_DEVICES renumbers them.
std::optional<std::string> gpu_not_visible(std::int64_t gpu, int visible);

// Why kernels that access memory 16 bytes at a time (HBM stream, offload copies) cannot move
// `size_bytes`, or nullopt: a positive multiple of 16 is needed.
std::optional<std::string> vector_size_problem(std::int64_t size_bytes);

} // namespace railgauge::gpu
