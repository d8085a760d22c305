#pragma once
// The device side of GemmLoad (gemm_load.h). Include only from sources compiled when
// RAILGAUGE_HAS_CUDA.
#include <cstdint>

#include <cuda_runtime_api.h>

namespace railgauge::gpu {

// `count` bf16 values gemm_load_input_value(i, seed) at `bf16`, enqueued on `stream`.
void fill_gemm_load_input(void *bf16, std::uint64_t count, std::uint32_t seed, cudaStream_t stream);

} // namespace railgauge::gpu
