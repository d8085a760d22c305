#pragma once
#include "harness/registry.h"

namespace railgauge::gemm {
// Adds gemm.cublaslt, gemm.cublaslt_size and gemm.burn (waived point by point without CUDA).
void register_gemm_cuda(Registry &registry);
} // namespace railgauge::gemm
