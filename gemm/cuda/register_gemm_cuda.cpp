#include "gemm/cuda/register_gemm_cuda.h"

#include "gemm/cuda/burn.h"
#include "gemm/cuda/cublaslt.h"

namespace railgauge::gemm {

void register_gemm_cuda(Registry &registry) {
  registry.add(make_cublaslt());
  registry.add(make_cublaslt_size());
  registry.add(make_burn());
}

} // namespace railgauge::gemm
