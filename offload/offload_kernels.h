#pragma once
// The offload family's kernels (offload_kernels.cu). Include only from sources compiled when
// RAILGAUGE_HAS_CUDA.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace railgauge::offload {

struct KernelGrid {
  int blocks = 1;
  int threads_per_block = 256;
};

// Enough blocks to keep every SM's load slots busy (SMs x resident blocks per SM, from the
// occupancy API), no more than it takes to give each thread one vector. A PCIe read takes
// microseconds, so only many loads in flight fill the link: the kernel issues 4 per thread.
KernelGrid zero_copy_grid(int sm_count, std::size_t bytes);

// dst[i] = src[i] over `bytes` (a multiple of 16) in 16-byte vectors, grid-stride; either side
// may be a mapped host pointer (cudaHostGetDevicePointer). Enqueued on `stream`.
void launch_zero_copy(const void *src, void *dst, std::size_t bytes, const KernelGrid &grid,
                      cudaStream_t stream);

// Writes pattern_word(i, seed) to every 32-bit word of device (or mapped host) memory.
void seed_pattern_on_device(void *dst, std::size_t bytes, std::uint32_t seed, cudaStream_t stream);

// Words of `data` (device memory) that differ from pattern_word(i, seed). Synchronises `stream`.
std::uint64_t count_wrong_on_device(const void *data, std::size_t bytes, std::uint32_t seed,
                                    cudaStream_t stream);

} // namespace railgauge::offload
