// run_cublaslt() for builds without CUDA: supported() already waives every point with
// cuda_unavailable_reason(), so this is reached only by a direct call.
#include "gemm/cuda/cublaslt.h"
#include "harness/cuda/device.h"

namespace railgauge::gemm {

Outcome run_cublaslt(RunContext &, const GemmPlan &, const CublasLtOptions &,
                     const std::vector<Layout> &, const LtBeforeVerify &) {
  return Outcome::waived(gpu::cuda_unavailable_reason().value_or("built without CUDA"));
}

} // namespace railgauge::gemm
