#include "harness/cuda/gemm_load_kernels.h"

#include <cuda_bf16.h>

#include "harness/cuda/check.h"
#include "harness/cuda/gemm_load_values.h"

namespace railgauge::gpu {
namespace {

constexpr int kThreads = 256;

__global__ void gemm_load_input_kernel(__nv_bfloat16 *p, std::uint64_t count, std::uint32_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
       i < count; i += stride)
    p[i] = __float2bfloat16(static_cast<float>(gemm_load_input_value(i, seed)));
}

} // namespace

void fill_gemm_load_input(void *bf16, std::uint64_t count, std::uint32_t seed,
                          cudaStream_t stream) {
  // Grid-stride: enough blocks to fill any GPU, no more than there is work.
  const std::uint64_t blocks = (count + kThreads - 1) / kThreads;
  const auto grid = static_cast<unsigned>(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
  gemm_load_input_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16 *>(bf16), count,
                                                        seed);
  RAILGAUGE_CUDA_CALL(cudaGetLastError());
}

} // namespace railgauge::gpu
