#pragma once
// What the CUDA runs of the offload points share (offload_run.cpp, offload_all_gpus.cpp,
// offload_with_gemm.cpp): host memory on a NUMA node, one transfer and its data check, a
// point's placement, and the per-lane timings of a GatedLanesTimer.
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/host_buffer.h"
#include "harness/run_context.h"
#include "offload/gated_lanes_timer.h"
#include "offload/offload_benchmark.h"
#include "offload/offload_kernels.h"
#include "offload/placement.h"

namespace railgauge::offload {

// How often the GPU's clocks, power and PCIe link are sampled while a point runs.
inline constexpr std::chrono::milliseconds kMonitorPeriod{50};

// Host memory bound to one NUMA node (HostBuffer), page-locked and mapped into every
// device's address space when pinned (cudaHostRegister), unregistered before it is freed.
class HostRegion {
public:
  HostRegion(hwloc_topology_t topology, unsigned numa_node, std::size_t bytes, bool pinned)
      : buffer_(topology, numa_node, bytes) {
    if (!pinned)
      return;
    RAILGAUGE_CUDA_CALL(cudaHostRegister(buffer_.doubles(), bytes,
                                         cudaHostRegisterPortable | cudaHostRegisterMapped));
    registered_ = true;
    RAILGAUGE_CUDA_CALL(cudaHostGetDevicePointer(&device_pointer_, buffer_.doubles(), 0));
  }
  ~HostRegion() {
    if (registered_)
      RAILGAUGE_CUDA_CALL_NOEXCEPT(cudaHostUnregister(buffer_.doubles()));
  }
  HostRegion(const HostRegion &) = delete;
  HostRegion &operator=(const HostRegion &) = delete;

  void *data() const { return buffer_.doubles(); }
  const HostBuffer &buffer() const { return buffer_; }
  void *device_pointer() const { return device_pointer_; } // mapped pinned memory only
  std::size_t bytes() const { return buffer_.size_bytes(); }

private:
  HostBuffer buffer_;
  bool registered_ = false;
  void *device_pointer_ = nullptr;
};

// A seed per point and buffer, so that data left over from an earlier point cannot pass.
std::uint32_t seed_for(std::size_t bytes, int device, int buffer);

// The batches `m`'s samples came from: the last m.samples_s.size() of a per-batch series of a
// GatedLanesTimer, which also saw the batch-sizing call and any warm-up batches before them.
std::span<const double> timed_batches(const std::vector<double> &series, const Measurement &m);

// Lane `lane`'s median seconds per call over the timed batches.
double lane_median_s(const GatedLanesTimer &timer, std::size_t lane, const Measurement &m);

double gbytes_per_s(std::uint64_t bytes, double seconds);

HostPlacement placement_of(const RunContext &ctx, const Point &point,
                           const gpu::CudaDeviceInfo &info, unsigned nth_thread);

// The point's placement, and where its host buffers' pages really are (placement_check).
void add_placement(Outcome &outcome, const gpu::CudaDeviceInfo &info, const HostPlacement &p,
                   std::initializer_list<const HostRegion *> regions);

// Enqueues one transfer of the point's path (h2d, d2h or a zero-copy kernel) on `stream`.
struct Transfer {
  OffloadPath path;
  const HostRegion *host;
  void *device;
  std::size_t bytes;
  KernelGrid grid;

  void operator()(cudaStream_t stream) const;
  bool to_device() const {
    return path == OffloadPath::h2d || path == OffloadPath::zero_copy_read ||
           path == OffloadPath::all_gpus_h2d;
  }
};

// Seeds the source with the pattern and zeroes the destination; synchronises `stream`.
void prepare_transfer(const Transfer &t, std::uint32_t seed, cudaStream_t stream);

// The destination's wrong words, after the hook has had its chance to corrupt it.
std::uint64_t count_wrong_words(const Transfer &t, std::uint32_t seed, cudaStream_t stream,
                                const OffloadBenchmark::BeforeVerify &hook);

std::string wrong_words_problem(std::string_view what, std::uint64_t wrong, std::size_t bytes);

} // namespace railgauge::offload
