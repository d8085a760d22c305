#pragma once
// What GemmLoad (gemm_load.h) allocates and computes, in plain C++17 so that code built without
// the CUDA toolkit (supported()'s memory check, host tests) and nvcc's seed kernel share it.
#include <algorithm>
#include <cstdint>

#include "harness/host_device.h"

namespace railgauge::gpu {

inline constexpr std::uint64_t kGemmLoadWorkspaceBytes = std::uint64_t{32} << 20;

// GPU memory one GemmLoad of M = N = K = mnk holds: A and B (bf16), D (fp32), the workspace.
constexpr std::uint64_t gemm_load_device_bytes(std::int64_t mnk) {
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(mnk, 0));
  return 2 * n * n * 2 + n * n * 4 + kGemmLoadWorkspaceBytes;
}

// A GEMM input element: -1, 0 or 1, so that every product and every sum of K of them is an exact
// integer in fp32 (|sum| <= K < 2^24) and the result is checked with ==. The index is hashed
// (Fibonacci hashing, mixed with the seed) so that neighbouring elements differ.
RAILGAUGE_HOST_DEVICE inline int gemm_load_input_value(std::uint64_t index, std::uint32_t seed) {
  const auto low = static_cast<std::uint32_t>(index);
  const auto high = static_cast<std::uint32_t>(index >> 32);
  const std::uint32_t word = (low + 1u) * 0x9E3779B1u ^ seed ^ (high * 0x85EBCA6Bu);
  return static_cast<int>(word % 3u) - 1;
}

} // namespace railgauge::gpu
