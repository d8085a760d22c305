// OffloadBenchmark::run() for CUDA builds (offload_run_stub.cpp without CUDA): one GPU's copy
// in one direction or both; every GPU at once is offload_all_gpus.cpp, a copy beside a GEMM
// offload_with_gemm.cpp.
#include <optional>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/cuda/check.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/resources.h"
#include "harness/device_fields.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/nvml_query.h"
#include "harness/pinned_workers.h"
#include "offload/link_reader.h"
#include "offload/offload_benchmark.h"
#include "offload/offload_transfer.h"
#include "offload/pcie_link.h"
#include "records/offload_rates.h"
#include "records/offload_record.h"

namespace railgauge::offload {

Outcome OffloadBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  switch (path_) {
  case OffloadPath::bidir:
    return run_bidir(ctx, point);
  case OffloadPath::all_gpus_h2d:
  case OffloadPath::all_gpus_d2h:
    return run_all_gpus(ctx, point);
  case OffloadPath::with_gemm:
    return run_with_gemm(ctx, point);
  default:
    return run_copy(ctx, point);
  }
}

Outcome OffloadBenchmark::run_copy(RunContext &ctx, const Point &point) {
  const int device = static_cast<int>(point.integer(record::kGpu));
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(device);
  const HostPlacement where = placement_of(ctx, point, info, 0);
  const auto bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  const bool pinned =
      !point.has(record::kHostMemory) || point.text(record::kHostMemory) == "pinned";
  const bool zero_copy =
      path_ == OffloadPath::zero_copy_read || path_ == OffloadPath::zero_copy_write;

  // The thread that seeds, enqueues (and, for pageable memory, copies through the driver's
  // staging buffers) runs on the placement's node.
  const PinnedWorkers::CallerBinding bound(ctx.topology().get(), where.pu);
  const gpu::DeviceGuard guard(device);
  HostRegion host(ctx.topology().get(), where.numa_node, bytes, pinned);
  gpu::DeviceBuffer dev(bytes);
  const Transfer transfer{path_, &host, dev.get(), bytes, zero_copy_grid(info.sm_count, bytes)};
  const std::uint32_t seed = seed_for(bytes, device, 0);

  std::optional<gpu::CudaEventTimer> event_timer;
  std::optional<gpu::Stream> host_timed_stream;
  HostTimer host_timer;
  Timer *timer = nullptr;
  cudaStream_t stream = nullptr;
  Operation op;
  if (pinned) {
    event_timer.emplace(device);
    timer = &*event_timer;
    stream = event_timer->stream();
    op = [&] { transfer(stream); };
  } else {
    host_timed_stream.emplace();
    timer = &host_timer;
    stream = host_timed_stream->get();
    op = [&] {
      transfer(stream);
      RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
    };
  }
  prepare_transfer(transfer, seed, stream);
  GpuMonitor monitor(info.uuid, kMonitorPeriod, nvml_library_);
  const Measurement measurement = ctx.measure(*timer, op);
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  const nlohmann::json during = monitor.stop();
  const LinkReader links(nvml_snapshot(), nvml_library_, sysfs_root_);

  Outcome outcome;
  const std::uint64_t bytes_per_call = offload_bytes_per_call(path_, bytes);
  outcome.metrics = measurement.bandwidth_metrics(bytes_per_call);
  outcome.metrics.update(link_metrics(links, info.pci_bus_id, during,
                                      gbytes_per_s(bytes_per_call, measurement.time_s.median)));
  outcome.metrics[record::kVerified] = false;
  add_placement(outcome, info, where, {&host});
  outcome.derived_params.update({{record::kEngine, zero_copy ? "sm" : "copy_engine"}});
  if (zero_copy)
    outcome.derived_params.update({{record::kGridBlocks, transfer.grid.blocks},
                                   {record::kBlockThreads, transfer.grid.threads_per_block}});
  if (!ctx.verify())
    return outcome;
  const std::uint64_t wrong = count_wrong_words(transfer, seed, stream, before_verify_);
  outcome.metrics[record::kWrongWords] = wrong;
  std::vector<std::string> problems;
  if (wrong > 0)
    problems.push_back(
        wrong_words_problem(transfer.to_device() ? "device buffer" : "host buffer", wrong, bytes));
  outcome.conclude_data_check(problems);
  return outcome;
}

const nlohmann::json &OffloadBenchmark::nvml_snapshot() {
  if (!nvml_snapshot_)
    nvml_snapshot_ = query_nvml(nvml_library_);
  return *nvml_snapshot_;
}

Outcome OffloadBenchmark::run_bidir(RunContext &ctx, const Point &point) {
  const int device = static_cast<int>(point.integer(record::kGpu));
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(device);
  const HostPlacement where = placement_of(ctx, point, info, 0);
  const HostPlacement second = placement_of(ctx, point, info, 1);
  const auto bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  const PinnedWorkers::CallerBinding bound(ctx.topology().get(), where.pu);
  const gpu::DeviceGuard guard(device);

  HostRegion host_in(ctx.topology().get(), where.numa_node, bytes, true);
  HostRegion host_out(ctx.topology().get(), where.numa_node, bytes, true);
  gpu::DeviceBuffer dev_in(bytes), dev_out(bytes);
  const Transfer h2d{OffloadPath::h2d, &host_in, dev_in.get(), bytes, {}};
  const Transfer d2h{OffloadPath::d2h, &host_out, dev_out.get(), bytes, {}};
  const std::uint32_t seed_h2d = seed_for(bytes, device, 0), seed_d2h = seed_for(bytes, device, 1);

  GatedLanesTimer timer(ctx.topology().get(),
                        {{device, where.pu, [&](cudaStream_t s) { h2d(s); }},
                         {device, second.pu, [&](cudaStream_t s) { d2h(s); }}});
  prepare_transfer(h2d, seed_h2d, timer.stream(0));
  prepare_transfer(d2h, seed_d2h, timer.stream(1));
  GpuMonitor monitor(info.uuid, kMonitorPeriod, nvml_library_);
  const Measurement measurement = ctx.measure(timer, timer.every_lane_once());
  const nlohmann::json during = monitor.stop();
  const LinkReader links(nvml_snapshot(), nvml_library_, sysfs_root_);

  const double h2d_bw = gbytes_per_s(bytes, lane_median_s(timer, 0, measurement));
  const double d2h_bw = gbytes_per_s(bytes, lane_median_s(timer, 1, measurement));
  Outcome outcome;
  outcome.metrics = measurement.bandwidth_metrics(offload_bytes_per_call(path_, bytes));
  const auto link = link_fields(links, info.pci_bus_id, during, h2d_bw + d2h_bw, 2);
  outcome.metrics.update(link_metrics(link, during));
  // Each direction was timed while the other still ran (the timer's padding): their sum is the
  // concurrent aggregate. bandwidth_gbytes_per_s is all bytes over the slower direction's time.
  record::BidirectionalRates::of(h2d_bw, d2h_bw,
                                 link.rates ? link.rates->expected_gbytes_per_s : std::nullopt)
      .write(outcome.metrics);
  outcome.metrics.update(
      contention_metrics(timed_batches(timer.contention_fractions(), measurement)));
  outcome.metrics[record::kVerified] = false;
  add_placement(outcome, info, where, {&host_in, &host_out});
  outcome.device[device::kCpus] = fmt::format("{},{}", where.pu, second.pu);
  outcome.derived_params.update({{record::kEngine, "copy_engine"}, {record::kStreams, 2}});
  if (!ctx.verify())
    return outcome;
  std::vector<std::string> problems;
  const std::uint64_t wrong_in = count_wrong_words(h2d, seed_h2d, timer.stream(0), before_verify_);
  const std::uint64_t wrong_out = count_wrong_words(d2h, seed_d2h, timer.stream(1), before_verify_);
  outcome.metrics[record::kWrongWords] = wrong_in + wrong_out;
  if (wrong_in > 0)
    problems.push_back(wrong_words_problem("h2d destination (device)", wrong_in, bytes));
  if (wrong_out > 0)
    problems.push_back(wrong_words_problem("d2h destination (host)", wrong_out, bytes));
  outcome.conclude_data_check(problems);
  return outcome;
}

} // namespace railgauge::offload
