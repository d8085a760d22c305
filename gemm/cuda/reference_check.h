#pragma once
// The fp64 reference check of sampled GEMM output elements, as the cuBLASLt benchmarks run it
// (gemm.cublaslt*, gemm.burn, block.transformer_tp_gpu): the problem from how the operands are
// stored, and the errors of the sampled elements brought back to the host. Include only from
// sources compiled when RAILGAUGE_HAS_CUDA.
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemm/cuda/gemm_kernels.h"
#include "gemm/dtype.h"
#include "gemm/layout.h"
#include "gemm/transformer_shapes.h"

namespace railgauge::gemm {

// C = A·B of `shape` in `dtype`, the operands stored as `layout` stores them; scale: fp8's
// per-tensor scales (kFp8Scales), else 1 (a caller with an alpha sets it after).
ReferenceProblem reference_problem(const void *a, const void *b, const void *c, Dtype dtype,
                                   const GemmShape &shape, Layout layout);

// Each of `elements` (flat indices into batch × M × N)'s error over the bound, on the host, after
// the kernel ran on `stream` (waited for). At most 1 passes; NaN when the output was NaN or Inf.
std::vector<double> sampled_reference_errors(const ReferenceProblem &problem,
                                             const std::vector<std::int64_t> &elements,
                                             cudaStream_t stream);

} // namespace railgauge::gemm
