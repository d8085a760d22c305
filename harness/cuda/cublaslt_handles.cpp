#include "harness/cuda/cublaslt_handles.h"

#include <cstdio>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::gpu {

std::string cublas_error_message(cublasStatus_t status, std::string_view call,
                                 std::string_view file, int line) {
  const auto slash = file.rfind('/');
  return fmt::format("{} failed: {} ({}) at {}:{}", call, cublasLtGetStatusName(status),
                     cublasLtGetStatusString(status),
                     slash == std::string_view::npos ? file : file.substr(slash + 1), line);
}

void throw_on_cublas_error(cublasStatus_t status, std::string_view call, std::string_view file,
                           int line) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw BackendError(cublas_error_message(status, call, file, line));
}

void report_cublas_error(cublasStatus_t status, std::string_view call, std::string_view file,
                         int line) noexcept {
  if (status != CUBLAS_STATUS_SUCCESS)
    std::fprintf(stderr, "railgauge: %s\n", cublas_error_message(status, call, file, line).c_str());
}

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
