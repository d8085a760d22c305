#pragma once
// The data check the memory and offload kernels share: how many elements of a GPU array differ
// from what was written, counted on the GPU so that only the count crosses PCIe. Include only
// from .cu sources.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "harness/cuda/check.h"
#include "harness/cuda/grid_stride.cuh"
#include "harness/cuda/resources.h"

namespace railgauge::gpu {

// The launch of the helper kernels (seed, check), whose speed does not matter.
constexpr int kHelperThreadsPerBlock = 256;
inline int helper_blocks(std::size_t n) {
  return static_cast<int>(
      std::clamp<std::size_t>((n + kHelperThreadsPerBlock - 1) / kHelperThreadsPerBlock, 1, 4096));
}

// Each thread counts its own mismatches and adds once, so a clean array costs no atomics.
template <typename T, typename Expected>
__global__ void count_wrong_kernel(const T *data, std::size_t n, Expected expected,
                                   unsigned long long *wrong) {
  unsigned long long mine = 0;
  for (std::size_t i = first_index(); i < n; i += grid_stride())
    mine += data[i] != expected(i) ? 1 : 0;
  if (mine > 0)
    atomicAdd(wrong, mine);
}

// How many of data[0, n) differ from expected(i), a device-callable functor; enqueued on
// `stream`, which it then waits for.
template <typename T, typename Expected>
std::uint64_t count_wrong(const T *data, std::size_t n, Expected expected, cudaStream_t stream) {
  DeviceBuffer wrong(sizeof(unsigned long long));
  RAILGAUGE_CUDA_CALL(cudaMemsetAsync(wrong.get(), 0, wrong.bytes(), stream));
  count_wrong_kernel<<<helper_blocks(n), kHelperThreadsPerBlock, 0, stream>>>(
      data, n, expected, wrong.as<unsigned long long>());
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
  unsigned long long count = 0;
  RAILGAUGE_CUDA_CALL(
      cudaMemcpyAsync(&count, wrong.get(), sizeof count, cudaMemcpyDeviceToHost, stream));
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  return count;
}

} // namespace railgauge::gpu
