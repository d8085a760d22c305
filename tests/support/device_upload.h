#pragma once
// A test's host-to-device copy that is complete when it returns. Include only from GPU tests.
//
// Why: cudaMemcpy from pageable memory returns once the data is staged, and runs on the legacy
// default stream, which a cudaStreamNonBlocking stream (every benchmark's and NCCL's) is not
// ordered after. A test that corrupts or seeds device data this way and then lets a benchmark
// read it on its own stream could read the old bytes.
#include <cstddef>

#include <cuda_runtime_api.h>

namespace railgauge::testing {

inline cudaError_t upload_and_wait(void *device_dst, const void *host_src, std::size_t bytes) {
  if (const cudaError_t e = cudaMemcpy(device_dst, host_src, bytes, cudaMemcpyHostToDevice);
      e != cudaSuccess)
    return e;
  return cudaDeviceSynchronize();
}

} // namespace railgauge::testing
