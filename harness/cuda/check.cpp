#include "harness/cuda/check.h"

#include <cstdio>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::gpu {

std::string cuda_error_message(cudaError_t error, std::string_view call, std::string_view file,
                               int line) {
  return fmt::format("{} failed: {} ({}) at {}:{}", call, cudaGetErrorName(error),
                     cudaGetErrorString(error), file, line);
}

void throw_on_cuda_error(cudaError_t error, std::string_view call, std::string_view file,
                         int line) {
  if (error != cudaSuccess)
    throw BackendError(cuda_error_message(error, call, file, line));
}

void report_cuda_error(cudaError_t error, std::string_view call, std::string_view file,
                       int line) noexcept {
  if (error == cudaSuccess)
    return;
  try {
    std::fprintf(stderr, "railgauge: %s\n", cuda_error_message(error, call, file, line).c_str());
  } catch (...) {
    // Formatting can only fail for want of memory; a destructor must not throw regardless.
    std::fprintf(stderr, "railgauge: CUDA call failed: %s\n", cudaGetErrorName(error));
  }
}

} // namespace railgauge::gpu
