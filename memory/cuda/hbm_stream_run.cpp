// HbmStreamBenchmark::run() for CUDA builds (hbm_stream_run_stub.cpp without CUDA).
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/resources.h"
#include "harness/device_fields.h"
#include "harness/inventory/gpu_settle.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/run_context.h"
#include "memory/cuda/hbm_kernels.h"
#include "memory/cuda/hbm_stream.h"
#include "records/memory_point.h"
#include "records/memory_record.h"

namespace railgauge::memory {

Outcome HbmStreamBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const int device = static_cast<int>(point.integer(record::kGpu));
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(device);
  const gpu::DeviceGuard guard(device);

  const auto array_bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  std::vector<gpu::DeviceBuffer> buffers;
  for (int i = 0; i < arrays_used(kernel_); ++i)
    buffers.emplace_back(array_bytes);
  HbmArrays arrays;
  arrays.elements = array_bytes / sizeof(double);
  arrays.a = buffers[0].as<double>();
  if (kernel_ == HbmKernel::copy || kernel_ == HbmKernel::library_copy)
    arrays.c = buffers[1].as<double>();
  if (kernel_ == HbmKernel::triad) {
    arrays.b = buffers[1].as<double>();
    arrays.c = buffers[2].as<double>();
  }
  const HbmGrid grid = hbm_grid(kernel_, info.sm_count, arrays.elements);
  gpu::DeviceBuffer partials(static_cast<std::size_t>(grid.blocks) * sizeof(double));

  gpu::CudaEventTimer timer(device);
  cudaStream_t stream = timer.stream();
  seed_hbm_arrays(kernel_, arrays, stream);
  GpuSettleProbe settle(info.uuid);
  GpuTelemetryWindow telemetry(info.uuid);
  const Measurement measurement = ctx.measure(
      timer, [&] { launch_hbm_kernel(kernel_, arrays, partials.as<double>(), grid, stream); },
      &settle);

  Outcome outcome;
  outcome.metrics = measurement.bandwidth_metrics(bytes_moved_per_call(kernel_, array_bytes));
  outcome.device = {{device::kGpu, info.uuid}, {device::kPci, info.pci_bus_id}};
  record::MemoryPoint written;
  written.telemetry = telemetry.finish();
  written.total_bytes = static_cast<std::int64_t>(array_bytes * buffers.size());
  written.gpu_name = info.name;
  written.sm_count = info.sm_count;
  written.l2_bytes = static_cast<std::int64_t>(info.l2_bytes);
  if (kernel_ != HbmKernel::library_copy) {
    written.grid_blocks = grid.blocks;
    written.block_threads = grid.threads_per_block;
  }
  written.write(outcome);
  if (!ctx.verify())
    return outcome;

  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  if (before_verify_)
    before_verify_(arrays);
  std::vector<std::string> problems;
  const std::uint64_t wrong = count_wrong_hbm(kernel_, arrays, stream);
  written.wrong_elements = static_cast<std::int64_t>(wrong);
  written.write(outcome); // again, with what the check found
  if (wrong > 0)
    problems.push_back(fmt::format("{} of {} elements hold wrong values", wrong, arrays.elements));
  if (kernel_ == HbmKernel::read) {
    // The partial sums of the last call, one per block, must add up to the closed form.
    std::vector<double> sums(static_cast<std::size_t>(grid.blocks));
    RAILGAUGE_CUDA_CALL(
        cudaMemcpy(sums.data(), partials.get(), partials.bytes(), cudaMemcpyDeviceToHost));
    double sum = 0;
    for (double s : sums)
      sum += s;
    const double expected = expected_hbm_read_sum(arrays.elements);
    if (sum != expected)
      problems.push_back(fmt::format("the read kernel summed {} instead of {}", sum, expected));
  }
  outcome.conclude_data_check(problems);
  return outcome;
}

} // namespace railgauge::memory
