// OffloadBenchmark::run_all_gpus(): a copy on every GPU at once, each GPU's share of the host's
// links and what it saw meanwhile (CUDA builds only).
#include <memory>
#include <utility>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/byte_rates.h"
#include "harness/cuda/device.h"
#include "harness/cuda/resources.h"
#include "harness/device_fields.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"
#include "offload/all_gpus_figures.h"
#include "offload/link_reader.h"
#include "offload/offload_benchmark.h"
#include "offload/offload_transfer.h"
#include "offload/pcie_link.h"
#include "offload/placement.h"
#include "records/gpu_part.h"
#include "records/offload_record.h"

namespace railgauge::offload {
namespace {

// One GPU of a copy on every GPU at once: its buffers, transfer and data seed.
struct PerGpu {
  gpu::CudaDeviceInfo info;
  HostPlacement where;
  std::unique_ptr<HostRegion> host;
  std::unique_ptr<gpu::DeviceBuffer> dev;
  Transfer transfer;
  std::uint32_t seed;
};

// Each GPU's health counters, kernel log and processes before or after the copies, as the other
// burn phases keep them: an Xid or an ECC error while every GPU copies is judged like one under
// GEMM (gpu_telemetry.h).
std::vector<nlohmann::json> snapshots(const std::vector<PerGpu> &gpus) {
  std::vector<nlohmann::json> out;
  for (const auto &g : gpus)
    out.push_back(sample_gpu_telemetry(g.info.uuid));
  return out;
}

// Every GPU's buffers on its placement's node, and its transfer of the point's direction.
std::vector<PerGpu> set_up_gpus(const RunContext &ctx, const Point &point, OffloadPath one,
                                std::size_t bytes, int gpus) {
  std::vector<PerGpu> per_gpu;
  for (int d = 0; d < gpus; ++d) {
    PerGpu g;
    g.info = gpu::cuda_device_info(d);
    g.where = placement_of(ctx, point, g.info, static_cast<unsigned>(d));
    const gpu::DeviceGuard guard(d);
    g.host = std::make_unique<HostRegion>(ctx.topology().get(), g.where.numa_node, bytes, true);
    g.dev = std::make_unique<gpu::DeviceBuffer>(bytes);
    g.transfer = Transfer{one, g.host.get(), g.dev->get(), bytes, {}};
    g.seed = seed_for(bytes, d, 0);
    per_gpu.push_back(std::move(g));
  }
  return per_gpu;
}

// One lane per GPU, on its placement's PU. The lanes point into `per_gpu`, which must not move.
std::vector<Lane> lanes_of(const std::vector<PerGpu> &per_gpu) {
  std::vector<Lane> lanes;
  for (std::size_t d = 0; d < per_gpu.size(); ++d) {
    const Transfer *t = &per_gpu[d].transfer;
    lanes.push_back({static_cast<int>(d), per_gpu[d].where.pu, [t](cudaStream_t s) { (*t)(s); }});
  }
  return lanes;
}

// Each GPU's telemetry around the copies.
struct Telemetry {
  std::vector<nlohmann::json> before, during, after;
};

// What each GPU measured, as the record's per-GPU list assembles it (all_gpus_figures.h).
std::vector<AllGpusCopy> gpu_copies(const std::vector<PerGpu> &per_gpu,
                                    const GatedLanesTimer &timer, const Measurement &measurement,
                                    std::size_t bytes, const LinkReader &links,
                                    const Telemetry &telemetry) {
  std::vector<AllGpusCopy> out;
  for (std::size_t d = 0; d < per_gpu.size(); ++d) {
    const auto &g = per_gpu[d];
    AllGpusCopy c;
    c.bandwidth_gbytes_per_s = gbytes_per_s(bytes, lane_median_s(timer, d, measurement));
    c.placement = placement_fields(g.where);
    c.placement_check = placement_check_fields(g.where.numa_node, {g.host->buffer().page_nodes()});
    c.link = link_fields(links, g.info.pci_bus_id, telemetry.during[d], c.bandwidth_gbytes_per_s);
    c.part.gpu = static_cast<int>(d);
    c.part.uuid = g.info.uuid;
    c.part.pci = g.info.pci_bus_id;
    c.part.telemetry = telemetry_pair(telemetry.before[d], telemetry.during[d], telemetry.after[d]);
    out.push_back(std::move(c));
  }
  return out;
}

// The data check of every GPU's destination, after the copies.
void check_all_gpus(const std::vector<PerGpu> &per_gpu, const GatedLanesTimer &timer,
                    std::size_t bytes, const OffloadBenchmark::BeforeVerify &hook,
                    Outcome &outcome) {
  std::vector<std::string> problems;
  std::uint64_t wrong_total = 0;
  for (std::size_t d = 0; d < per_gpu.size(); ++d) {
    const gpu::DeviceGuard guard(static_cast<int>(d));
    const auto &g = per_gpu[d];
    const std::uint64_t wrong = count_wrong_words(g.transfer, g.seed, timer.stream(d), hook);
    wrong_total += wrong;
    if (wrong > 0)
      problems.push_back(wrong_words_problem(fmt::format("GPU {}", d), wrong, bytes));
  }
  outcome.metrics[record::kWrongWords] = wrong_total;
  outcome.conclude_data_check(problems);
}

} // namespace

Outcome OffloadBenchmark::run_all_gpus(RunContext &ctx, const Point &point) {
  const int gpus = gpu::cuda_device_count();
  const auto bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  const OffloadPath one = path_ == OffloadPath::all_gpus_h2d ? OffloadPath::h2d : OffloadPath::d2h;

  const std::vector<PerGpu> per_gpu = set_up_gpus(ctx, point, one, bytes, gpus);
  GatedLanesTimer timer(ctx.topology().get(), lanes_of(per_gpu));
  for (int d = 0; d < gpus; ++d) {
    const gpu::DeviceGuard guard(d);
    const auto &g = per_gpu[static_cast<std::size_t>(d)];
    prepare_transfer(g.transfer, g.seed, timer.stream(static_cast<std::size_t>(d)));
  }
  Telemetry telemetry;
  telemetry.before = snapshots(per_gpu);
  std::vector<std::unique_ptr<GpuMonitor>> monitors;
  for (const auto &g : per_gpu)
    monitors.push_back(std::make_unique<GpuMonitor>(g.info.uuid, kMonitorPeriod, nvml_library_));
  const Measurement measurement = ctx.measure(timer, timer.every_lane_once());
  for (auto &m : monitors)
    telemetry.during.push_back(m->stop());
  telemetry.after = snapshots(per_gpu);
  const LinkReader links(nvml_snapshot(), nvml_library_, sysfs_root_);

  Outcome outcome;
  const std::uint64_t bytes_per_call = offload_bytes_per_call(path_, bytes, gpus);
  outcome.metrics = measurement.bandwidth_metrics(bytes_per_call);
  outcome.metrics.update(
      contention_metrics(timed_batches(timer.contention_fractions(), measurement)));
  write_all_gpus_figures(
      gpu_copies(per_gpu, timer, measurement, bytes, links, telemetry),
      gbytes_per_s_of(static_cast<double>(bytes_per_call), measurement.time_s.median),
      outcome.metrics);
  outcome.metrics[record::kVerified] = false;
  std::vector<unsigned> pus;
  for (const auto &g : per_gpu)
    pus.push_back(g.where.pu);
  outcome.device = {{device::kCpus, fmt::format("{}", fmt::join(pus, ","))}};
  outcome.derived_params.update({{record::kGpus, gpus}, {record::kEngine, "copy_engine"}});
  if (ctx.verify())
    check_all_gpus(per_gpu, timer, bytes, before_verify_, outcome);
  return outcome;
}

} // namespace railgauge::offload
