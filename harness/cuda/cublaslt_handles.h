#pragma once
// cuBLASLt's handles as RAII owners (superbenchmark's cublaslt_utils.h keeps them in
// unique_ptrs with deleters) and the error macros for cuBLAS status codes: what the GEMM
// benchmarks (gemm/cuda/lt_matmul.h) and the GEMM load beside other work (gemm_load.h) share.
// Include only from sources compiled when RAILGAUGE_HAS_CUDA.
#include <string>
#include <string_view>

#include <cublasLt.h>

#include "harness/cuda/check.h"
#include "harness/cuda/resources.h"

namespace railgauge::gpu {

// cuBLAS's status for the checks in check.h: "cublasLtMatmul(...) failed:
// CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported) at lt_matmul.cpp:42"
template <> struct StatusTraits<cublasStatus_t> {
  static constexpr cublasStatus_t kSuccess = CUBLAS_STATUS_SUCCESS;
  static const char *name(cublasStatus_t status) { return cublasLtGetStatusName(status); }
  static const char *text(cublasStatus_t status) { return cublasLtGetStatusString(status); }
};

} // namespace railgauge::gpu

#define RAILGAUGE_CUBLAS_CALL(call)                                                                \
  ::railgauge::gpu::throw_on_status((call), #call, __FILE__, __LINE__)
#define RAILGAUGE_CUBLAS_CALL_NOEXCEPT(call)                                                       \
  ::railgauge::gpu::report_status((call), #call, __FILE__, __LINE__)

namespace railgauge::gpu {

struct LtHandleTraits {
  static void destroy(cublasLtHandle_t h) noexcept {
    RAILGAUGE_CUBLAS_CALL_NOEXCEPT(cublasLtDestroy(h));
  }
};
struct LtMatmulDescTraits {
  static void destroy(cublasLtMatmulDesc_t d) noexcept {
    RAILGAUGE_CUBLAS_CALL_NOEXCEPT(cublasLtMatmulDescDestroy(d));
  }
};
struct LtLayoutTraits {
  static void destroy(cublasLtMatrixLayout_t l) noexcept {
    RAILGAUGE_CUBLAS_CALL_NOEXCEPT(cublasLtMatrixLayoutDestroy(l));
  }
};
struct LtPreferenceTraits {
  static void destroy(cublasLtMatmulPreference_t p) noexcept {
    RAILGAUGE_CUBLAS_CALL_NOEXCEPT(cublasLtMatmulPreferenceDestroy(p));
  }
};

// A cuBLASLt handle on the current device.
class LtHandle {
public:
  LtHandle();
  cublasLtHandle_t get() const { return handle_.get(); }

private:
  gpu::UniqueCudaHandle<cublasLtHandle_t, LtHandleTraits> handle_;
};

// "12.9.1.4"-style version of the cuBLASLt library loaded at run time.
std::string cublaslt_version();

} // namespace railgauge::gpu
