#pragma once
// The NCCL benchmarks' seeded inputs and data check on the GPUs themselves: every buffer is
// filled and checked by a kernel on its GPU's stream, every GPU's kernels are enqueued before
// any is waited for, and only each check's counters travel back. Host memory never holds a copy
// of a buffer, so a 16 GiB point costs what the GPUs' memory takes to write and read it once.
#include <cstddef>
#include <memory>
#include <vector>

#include <cuda_runtime_api.h>

#include "collectives/data_regions.h"
#include "collectives/dtype.h"
#include "harness/cuda/resources.h"

namespace railgauge::collectives {

// Enqueues, on `stream` of `device`: `bytes` of 0xff over `output` (NaN in the float types, -1
// in int32: an element the collective never writes is wrong), then `region` of rank `rank`'s
// seeded input into `input` (nothing when `region` is nullopt). In place, `input` is `output`.
void seed_on_device(int device, cudaStream_t stream, DType type, RedOp op, std::uint64_t seed,
                    int rank, int world, const std::optional<InputRegion> &region, void *input,
                    void *output, std::size_t output_bytes);

// The checks of one point: enqueue each buffer's, wait for every stream (the session's
// watchdog), then read the results.
class DeviceDataCheck {
public:
  // Enqueues the check of `region` of `buffer` on `stream` of `device`; returns its index in
  // results().
  std::size_t enqueue(int device, cudaStream_t stream, const void *buffer,
                      const OutputRegion &region);
  // Once the streams have been waited for: one result per enqueue, in order. Where elements are
  // wrong, the lowest one's value is read back (one element) to say what it held.
  std::vector<CheckResult> results() const;

private:
  struct Pending {
    int device = 0;
    const std::byte *region = nullptr;
    ExpectedOutput expect;
    std::unique_ptr<gpu::DeviceBuffer> counts;   // DeviceCheckCounts on the device
    std::unique_ptr<gpu::MappedHostBuffer> back; // its copy, page-locked
  };
  std::vector<Pending> pending_;
};

} // namespace railgauge::collectives
