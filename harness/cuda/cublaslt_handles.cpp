#include "harness/cuda/cublaslt_handles.h"

#include <fmt/format.h>

namespace railgauge::gpu {

LtHandle::LtHandle() {
  cublasLtHandle_t h = nullptr;
  RAILGAUGE_CUBLAS_CALL(cublasLtCreate(&h));
  handle_ = UniqueCudaHandle<cublasLtHandle_t, LtHandleTraits>(h);
}

std::string cublaslt_version() {
  const std::size_t v = cublasLtGetVersion();
  return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
}

} // namespace railgauge::gpu
