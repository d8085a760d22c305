#include "offload/offload_kernels.h"

#include <algorithm>

#include "harness/cuda/check.h"
#include "harness/cuda/count_wrong.cuh"
#include "harness/cuda/grid_stride.cuh"
#include "harness/cuda/resources.h"
#include "offload/pattern.h"

namespace railgauge::offload {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kUnroll = 4; // independent 16-byte loads in flight per thread before any store

using gpu::first_index;
using gpu::grid_stride;

__global__ void zero_copy_kernel(const uint4 *__restrict__ src, uint4 *__restrict__ dst,
                                 std::size_t vectors) {
  gpu::unrolled_copy<kUnroll>(src, dst, vectors);
}

__global__ void seed_pattern_kernel(std::uint32_t *dst, std::size_t words, std::uint32_t seed) {
  for (std::size_t i = first_index(); i < words; i += grid_stride())
    dst[i] = pattern_word(i, seed);
}

// The word seed_pattern_kernel wrote at an index.
struct PatternWord {
  std::uint32_t seed;
  __device__ std::uint32_t operator()(std::size_t i) const { return pattern_word(i, seed); }
};

} // namespace

KernelGrid zero_copy_grid(int sm_count, std::size_t bytes) {
  int per_sm = 0;
  RAILGAUGE_CUDA_CALL(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, zero_copy_kernel,
                                                                    kThreadsPerBlock, 0));
  const std::size_t full = static_cast<std::size_t>(std::max(sm_count, 1)) *
                           static_cast<std::size_t>(std::max(per_sm, 1));
  const std::size_t needed = (bytes / 16 + kThreadsPerBlock - 1) / kThreadsPerBlock;
  KernelGrid grid;
  grid.threads_per_block = kThreadsPerBlock;
  grid.blocks = static_cast<int>(std::clamp<std::size_t>(needed, 1, full));
  return grid;
}

void launch_zero_copy(const void *src, void *dst, std::size_t bytes, const KernelGrid &grid,
                      cudaStream_t stream) {
  zero_copy_kernel<<<grid.blocks, grid.threads_per_block, 0, stream>>>(
      static_cast<const uint4 *>(src), static_cast<uint4 *>(dst), bytes / 16);
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

void seed_pattern_on_device(void *dst, std::size_t bytes, std::uint32_t seed, cudaStream_t stream) {
  const std::size_t words = bytes / 4;
  seed_pattern_kernel<<<gpu::helper_blocks(words), gpu::kHelperThreadsPerBlock, 0, stream>>>(
      static_cast<std::uint32_t *>(dst), words, seed);
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

std::uint64_t count_wrong_on_device(const void *data, std::size_t bytes, std::uint32_t seed,
                                    cudaStream_t stream) {
  return gpu::count_wrong(static_cast<const std::uint32_t *>(data), bytes / 4, PatternWord{seed},
                          stream);
}

} // namespace railgauge::offload
