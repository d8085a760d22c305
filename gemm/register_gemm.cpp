#include "gemm/register_gemm.h"

#include "gemm/cpu_blas.h"
#include "gemm/cuda/register_gemm_cuda.h"

namespace railgauge {

void register_gemm(Registry &registry) {
  registry.add(gemm::make_cpu_blas());
  registry.add(gemm::make_cpu_blas_size());
  gemm::register_gemm_cuda(registry);
}

} // namespace railgauge
