#pragma once
// The error macros for CUDA runtime calls (nvbench's cuda_call.cuh). Include only from
// sources compiled when RAILGAUGE_HAS_CUDA: it needs the toolkit's headers.
//
//   RAILGAUGE_CUDA_CALL(cudaMalloc(&p, n));           // throws railgauge::BackendError
//   RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaFree(p));        // destructors: prints, never throws
//
// The message carries what a person needs to act without a debugger: the error's name
// (cudaErrorMemoryAllocation), its text, the call as written, and file:line.
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

namespace railgauge::gpu {

// "cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (out of memory) at device.cpp:42"
std::string cuda_error_message(cudaError_t error, std::string_view call, std::string_view file,
                               int line);

// Throws BackendError with cuda_error_message() when `error` is not cudaSuccess.
void throw_on_cuda_error(cudaError_t error, std::string_view call, std::string_view file, int line);

// Prints cuda_error_message() to stderr when `error` is not cudaSuccess. For destructors and
// cleanup paths, where throwing would terminate the program or hide the first error.
void report_cuda_error(cudaError_t error, std::string_view call, std::string_view file,
                       int line) noexcept;

} // namespace railgauge::gpu

#define RAILGAUGE_CUDA_CALL(call)                                                                  \
  ::railgauge::gpu::throw_on_cuda_error((call), #call, __FILE__, __LINE__)

#define RAILGAUGE_CUDA_CALL_NOEXCEPT(call)                                                         \
  ::railgauge::gpu::report_cuda_error((call), #call, __FILE__, __LINE__)
