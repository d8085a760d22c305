#include "collectives/nccl/nccl_buffer.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "collectives/nccl/nccl_session.h"
#include "harness/cuda/check.h"

namespace railgauge::collectives {

BufferAlloc parse_buffer_alloc(std::string_view text) {
  if (text == "cuda_malloc")
    return BufferAlloc::cuda_malloc;
  if (text == "nccl_mem_alloc")
    return BufferAlloc::nccl_mem_alloc;
  throw std::invalid_argument("buffers '" + std::string(text) +
                              "': give cuda_malloc or nccl_mem_alloc");
}

NcclBuffer::NcclBuffer(std::size_t bytes, BufferAlloc alloc) : bytes_(bytes), alloc_(alloc) {
  if (bytes == 0)
    return;
  if (alloc == BufferAlloc::nccl_mem_alloc)
    check_nccl(ncclMemAlloc(&memory_, bytes), "ncclMemAlloc");
  else
    RAILGAUGE_CUDA_CALL(cudaMalloc(&memory_, bytes));
}

NcclBuffer::~NcclBuffer() {
  if (memory_ == nullptr)
    return;
  // A destructor cannot throw: a failed free is printed, its memory left to the process's end.
  if (alloc_ == BufferAlloc::nccl_mem_alloc) {
    if (const ncclResult_t rc = ncclMemFree(memory_); rc != ncclSuccess)
      std::fprintf(stderr, "railgauge: ncclMemFree failed: %s\n", ncclGetErrorString(rc));
  } else {
    RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaFree(memory_));
  }
}

} // namespace railgauge::collectives
