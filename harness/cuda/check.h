#pragma once
// The error macros for CUDA runtime calls (nvbench's cuda_call.cuh), and the checks behind them
// that every CUDA library's status type shares (cuBLAS's in cublaslt_handles.h). Include only
// from sources compiled when RAILGAUGE_HAS_CUDA: it needs the toolkit's headers.
//
//   RAILGAUGE_CUDA_CALL(cudaMalloc(&p, n));           // throws railgauge::BackendError
//   RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaFree(p));        // destructors: prints, never throws
//
// The message carries what a person needs to act without a debugger: the error's name
// (cudaErrorMemoryAllocation), its text, the call as written, and file:line.
#include <cstdio>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "harness/error.h"

namespace railgauge::gpu {

// What the checks below need of a library's status type: its success value, and its status's
// name and text. Specialised beside each library's macros.
template <class Status> struct StatusTraits;

template <> struct StatusTraits<cudaError_t> {
  static constexpr cudaError_t kSuccess = cudaSuccess;
  static const char *name(cudaError_t error) { return cudaGetErrorName(error); }
  static const char *text(cudaError_t error) { return cudaGetErrorString(error); }
};

// "cudaMalloc(&p, n) failed: cudaErrorMemoryAllocation (out of memory) at device.cpp:42": the
// file without its directories, which say nothing the file name does not.
std::string failed_call_message(std::string_view call, const char *name, const char *text,
                                std::string_view file, int line);

template <class Status>
std::string status_message(Status status, std::string_view call, std::string_view file, int line) {
  return failed_call_message(call, StatusTraits<Status>::name(status),
                             StatusTraits<Status>::text(status), file, line);
}

// Throws BackendError with status_message() unless `status` is the library's success.
template <class Status>
void throw_on_status(Status status, std::string_view call, std::string_view file, int line) {
  if (status != StatusTraits<Status>::kSuccess)
    throw BackendError(status_message(status, call, file, line));
}

// Prints status_message() to stderr unless `status` is the library's success. For destructors
// and cleanup paths, where throwing would terminate the program or hide the first error.
template <class Status>
void report_status(Status status, std::string_view call, std::string_view file, int line) noexcept {
  if (status == StatusTraits<Status>::kSuccess)
    return;
  try {
    std::fprintf(stderr, "railgauge: %s\n", status_message(status, call, file, line).c_str());
  } catch (...) {
    // Formatting can only fail for want of memory; a destructor must not throw regardless.
    std::fprintf(stderr, "railgauge: call failed: %s\n", StatusTraits<Status>::name(status));
  }
}

} // namespace railgauge::gpu

#define RAILGAUGE_CUDA_CALL(call)                                                                  \
  ::railgauge::gpu::throw_on_status((call), #call, __FILE__, __LINE__)

#define RAILGAUGE_CUDA_CALL_NOEXCEPT(call)                                                         \
  ::railgauge::gpu::report_status((call), #call, __FILE__, __LINE__)
