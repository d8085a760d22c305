// run_hbm_burn() for CUDA builds: one thread per GPU (see hbm_burn.h for the method).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <cuda_runtime_api.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/resources.h"
#include "harness/every_gpu.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/metric_names.h"
#include "harness/rate_series.h"
#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/hbm_kernels.h"
#include "memory/stream_kernel.h"

namespace railgauge::memory {
namespace {

// Each timed batch lasts about this long: enough copies that the events' resolution and the gate
// do not matter, short enough for a series point per second and for the wall-time check.
constexpr double kBatchTargetS = 0.05;

void burn_gpu(const HbmBurnOptions &o, HbmBurnGpuResult &r) {
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(r.gpu);
  const gpu::DeviceGuard guard(r.gpu);
  r.name = info.name;
  r.uuid = info.uuid;
  r.pci = info.pci_bus_id;

  gpu::DeviceBuffer source(o.array_bytes), destination(o.array_bytes);
  HbmArrays arrays;
  arrays.elements = o.array_bytes / sizeof(double);
  arrays.a = source.as<double>();
  arrays.c = destination.as<double>();
  r.elements = arrays.elements;
  const HbmGrid grid = hbm_grid(HbmKernel::copy, info.sm_count, arrays.elements);
  gpu::DeviceBuffer partials(static_cast<std::size_t>(grid.blocks) * sizeof(double));

  gpu::CudaEventTimer timer(r.gpu);
  const cudaStream_t stream = timer.stream();
  seed_hbm_arrays(HbmKernel::copy, arrays, stream);
  const Operation copy = [&] {
    launch_hbm_kernel(HbmKernel::copy, arrays, partials.as<double>(), grid, stream);
  };
  timer.prime(copy);
  const double one_call_s = timer.time_batch_s(copy, 1);
  const std::int64_t batch = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(std::ceil(kBatchTargetS / std::max(one_call_s, 1e-9))), 1,
      timer.max_batch());
  const double bytes_per_call =
      static_cast<double>(bytes_moved_per_call(StreamKernel::copy, o.array_bytes));

  RateSeries gbytes_per_s;
  GpuTelemetryWindow telemetry(info.uuid);
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (elapsed_s() < o.duration_s) {
    const double batch_s = timer.time_batch_s(copy, batch);
    r.calls += batch;
    gbytes_per_s.add(elapsed_s(), bytes_per_call * static_cast<double>(batch) / batch_s / 1e9);
  }
  r.elapsed_s = elapsed_s();
  r.settle_s = kSettleFraction * o.duration_s;
  // The telemetry of the window the figure is taken over: the phase before (the GEMM burn) still
  // shows in the first seconds' power and clock.
  r.telemetry = telemetry.finish(r.settle_s);
  r.bandwidth_gbytes_per_s = gbytes_per_s.median(r.settle_s).value_or(0.0);
  r.bandwidth_min_gbytes_per_s = gbytes_per_s.min(r.settle_s).value_or(0.0);
  r.series = gbytes_per_s.windows(kSeriesWindow_s, metric::kBandwidthGbytesPerS);
  r.wrong_elements = count_wrong_hbm(HbmKernel::copy, arrays, stream);
}

} // namespace

std::vector<HbmBurnGpuResult> run_hbm_burn(const HbmBurnOptions &o) {
  return run_on_every_gpu<HbmBurnGpuResult>(o.gpus, [&o](int gpu, HbmBurnGpuResult &r) {
    r.gpu = gpu;
    burn_gpu(o, r);
  });
}

} // namespace railgauge::memory
