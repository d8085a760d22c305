// OffloadBenchmark::run() for CUDA builds (offload_run_stub.cpp without CUDA).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/balance_repeats.h"
#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/gemm_load.h"
#include "harness/cuda/resources.h"
#include "harness/device_fields.h"
#include "harness/host_buffer.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"
#include "harness/inventory/nvml_query.h"
#include "harness/pinned_workers.h"
#include "harness/run_context.h"
#include "harness/stats.h"
#include "offload/gated_lanes_timer.h"
#include "offload/link_reader.h"
#include "offload/offload_benchmark.h"
#include "offload/offload_kernels.h"
#include "offload/pattern.h"
#include "offload/pcie_link.h"
#include "offload/placement.h"
#include "records/offload_record.h"

namespace railgauge::offload {
namespace {

// The most copies or GEMMs one call of offload.with_gemm repeats: each is a launch queued behind
// the call's gate, and a lane holds at most 256 launches, padding included.
constexpr int kMaxRepeatsPerCall = 64;

// How often the GPU's clocks, power and PCIe link are sampled while a point runs.
constexpr std::chrono::milliseconds kMonitorPeriod{50};

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

void seed_host(void *data, std::size_t bytes, std::uint32_t seed) {
  auto *words = static_cast<std::uint32_t *>(data);
  for (std::size_t i = 0; i < bytes / 4; ++i)
    words[i] = pattern_word(i, seed);
}

std::uint64_t count_wrong_host(const void *data, std::size_t bytes, std::uint32_t seed) {
  const auto *words = static_cast<const std::uint32_t *>(data);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < bytes / 4; ++i)
    wrong += words[i] != pattern_word(i, seed) ? 1 : 0;
  return wrong;
}

// A seed per point and buffer, so that data left over from an earlier point cannot pass.
std::uint32_t seed_for(std::size_t bytes, int device, int buffer) {
  return static_cast<std::uint32_t>(bytes * 2654435761u) ^ static_cast<std::uint32_t>(device << 8) ^
         static_cast<std::uint32_t>(buffer + 1) * 0x27d4eb2du;
}

// The batches `m`'s samples came from: the last m.samples_s.size() of a per-batch series of a
// GatedLanesTimer, which also saw the batch-sizing call and any warm-up batches before them.
std::span<const double> timed_batches(const std::vector<double> &series, const Measurement &m) {
  const std::size_t n = std::min(series.size(), m.samples_s.size());
  return std::span<const double>(series).subspan(series.size() - n);
}

// Lane `lane`'s median seconds per call over the timed batches.
double lane_median_s(const GatedLanesTimer &timer, std::size_t lane, const Measurement &m) {
  const auto timed = timed_batches(timer.lane_samples_s(lane), m);
  return timed.empty() ? 0.0 : summarize(timed).median;
}

double gbytes_per_s(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
}

HostPlacement placement_of(const RunContext &ctx, const Point &point,
                           const gpu::CudaDeviceInfo &info, unsigned nth_thread) {
  auto where = choose_host_placement(ctx.topology(), info.pci_bus_id,
                                     *parse_placement(point.text(record::kPlacement)), nth_thread);
  if (auto *why = std::get_if<std::string>(&where))
    throw BackendError(*why); // supported() checked it: the topology changed under the run
  return std::get<HostPlacement>(where);
}

// The point's placement, and where its host buffers' pages really are (placement_check).
void add_placement(Outcome &outcome, const gpu::CudaDeviceInfo &info, const HostPlacement &p,
                   std::initializer_list<const HostRegion *> regions) {
  std::vector<std::variant<std::vector<unsigned>, std::string>> found;
  for (const HostRegion *r : regions)
    found.push_back(r->buffer().page_nodes());
  outcome.metrics.update(placement_check(p.numa_node, found));
  outcome.device = {{device::kGpu, info.uuid}, {device::kPci, info.pci_bus_id}};
  outcome.device.update({{device::kNuma, p.numa_node}, {device::kCpus, std::to_string(p.pu)}});
  outcome.derived_params.update({{record::kGpuName, info.name},
                                 {record::kHostNumaNode, p.numa_node},
                                 {record::kGpuNumaNode, p.gpu_numa_node},
                                 {record::kCpuPu, p.pu},
                                 {record::kPlacementHow, p.how}});
}

// Enqueues one transfer of the point's path (h2d, d2h or a zero-copy kernel) on `stream`.
struct Transfer {
  OffloadPath path;
  const HostRegion *host;
  void *device;
  std::size_t bytes;
  KernelGrid grid;

  void operator()(cudaStream_t stream) const {
    switch (path) {
    case OffloadPath::zero_copy_read:
      launch_zero_copy(host->device_pointer(), device, bytes, grid, stream);
      return;
    case OffloadPath::zero_copy_write:
      launch_zero_copy(device, host->device_pointer(), bytes, grid, stream);
      return;
    case OffloadPath::d2h:
    case OffloadPath::all_gpus_d2h:
      RAILGAUGE_CUDA_CALL(
          cudaMemcpyAsync(host->data(), device, bytes, cudaMemcpyDeviceToHost, stream));
      return;
    default:
      RAILGAUGE_CUDA_CALL(
          cudaMemcpyAsync(device, host->data(), bytes, cudaMemcpyHostToDevice, stream));
      return;
    }
  }
  bool to_device() const {
    return path == OffloadPath::h2d || path == OffloadPath::zero_copy_read ||
           path == OffloadPath::all_gpus_h2d;
  }
};

// Seeds the source with the pattern and zeroes the destination; synchronises `stream`.
void prepare(const Transfer &t, std::uint32_t seed, cudaStream_t stream) {
  if (t.to_device()) {
    seed_host(t.host->data(), t.bytes, seed);
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(t.device, 0, t.bytes, stream));
  } else {
    std::memset(t.host->data(), 0, t.bytes);
    seed_pattern_on_device(t.device, t.bytes, seed, stream);
  }
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
}

// The destination's wrong words, after the hook has had its chance to corrupt it.
std::uint64_t check(const Transfer &t, std::uint32_t seed, cudaStream_t stream,
                    const OffloadBenchmark::BeforeVerify &hook) {
  RAILGAUGE_CUDA_CALL(cudaStreamSynchronize(stream));
  if (hook)
    hook(t.to_device() ? t.device : t.host->data(), t.to_device(), t.bytes);
  return t.to_device() ? count_wrong_on_device(t.device, t.bytes, seed, stream)
                       : count_wrong_host(t.host->data(), t.bytes, seed);
}

std::string problem(std::string_view what, std::uint64_t wrong, std::size_t bytes) {
  return fmt::format("{}: {} of {} words hold wrong values", what, wrong, bytes / 4);
}

} // namespace

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
  prepare(transfer, seed, stream);
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
  const std::uint64_t wrong = check(transfer, seed, stream, before_verify_);
  outcome.metrics[record::kWrongWords] = wrong;
  std::vector<std::string> problems;
  if (wrong > 0)
    problems.push_back(
        problem(transfer.to_device() ? "device buffer" : "host buffer", wrong, bytes));
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
  prepare(h2d, seed_h2d, timer.stream(0));
  prepare(d2h, seed_d2h, timer.stream(1));
  GpuMonitor monitor(info.uuid, kMonitorPeriod, nvml_library_);
  const Measurement measurement = ctx.measure(timer, timer.every_lane_once());
  const nlohmann::json during = monitor.stop();
  const LinkReader links(nvml_snapshot(), nvml_library_, sysfs_root_);

  const double h2d_bw = gbytes_per_s(bytes, lane_median_s(timer, 0, measurement));
  const double d2h_bw = gbytes_per_s(bytes, lane_median_s(timer, 1, measurement));
  Outcome outcome;
  outcome.metrics = measurement.bandwidth_metrics(offload_bytes_per_call(path_, bytes));
  outcome.metrics.update(link_metrics(links, info.pci_bus_id, during, h2d_bw + d2h_bw, 2));
  outcome.metrics[record::kH2dGbytesPerS] = h2d_bw;
  outcome.metrics[record::kD2hGbytesPerS] = d2h_bw;
  // Each direction was timed while the other still ran (the timer's padding): their sum is the
  // concurrent aggregate. bandwidth_gbytes_per_s is all bytes over the slower direction's time.
  outcome.metrics[record::kSumGbytesPerS] = h2d_bw + d2h_bw;
  outcome.metrics.update(
      contention_metrics(timed_batches(timer.contention_fractions(), measurement)));
  if (const auto expected = record_fields::number(outcome.metrics, record::kExpectedGbytesPerS)) {
    outcome.metrics[record::kH2dEfficiency] = h2d_bw / (*expected / 2); // per direction
    outcome.metrics[record::kD2hEfficiency] = d2h_bw / (*expected / 2);
  }
  outcome.metrics[record::kVerified] = false;
  add_placement(outcome, info, where, {&host_in, &host_out});
  outcome.device["cpus"] = fmt::format("{},{}", where.pu, second.pu);
  outcome.derived_params.update({{record::kEngine, "copy_engine"}, {record::kStreams, 2}});
  if (!ctx.verify())
    return outcome;
  std::vector<std::string> problems;
  const std::uint64_t wrong_in = check(h2d, seed_h2d, timer.stream(0), before_verify_);
  const std::uint64_t wrong_out = check(d2h, seed_d2h, timer.stream(1), before_verify_);
  outcome.metrics[record::kWrongWords] = wrong_in + wrong_out;
  if (wrong_in > 0)
    problems.push_back(problem("h2d destination (device)", wrong_in, bytes));
  if (wrong_out > 0)
    problems.push_back(problem("d2h destination (host)", wrong_out, bytes));
  outcome.conclude_data_check(problems);
  return outcome;
}

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

} // namespace

Outcome OffloadBenchmark::run_all_gpus(RunContext &ctx, const Point &point) {
  const int gpus = gpu::cuda_device_count();
  const auto bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  const OffloadPath one = path_ == OffloadPath::all_gpus_h2d ? OffloadPath::h2d : OffloadPath::d2h;

  std::vector<PerGpu> per_gpu;
  std::vector<Lane> lanes;
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
  for (int d = 0; d < gpus; ++d) {
    const Transfer *t = &per_gpu[static_cast<std::size_t>(d)].transfer;
    lanes.push_back(
        {d, per_gpu[static_cast<std::size_t>(d)].where.pu, [t](cudaStream_t s) { (*t)(s); }});
  }
  GatedLanesTimer timer(ctx.topology().get(), std::move(lanes));
  for (int d = 0; d < gpus; ++d) {
    const gpu::DeviceGuard guard(d);
    const auto &g = per_gpu[static_cast<std::size_t>(d)];
    prepare(g.transfer, g.seed, timer.stream(static_cast<std::size_t>(d)));
  }
  const std::vector<nlohmann::json> before = snapshots(per_gpu);
  std::vector<std::unique_ptr<GpuMonitor>> monitors;
  for (const auto &g : per_gpu)
    monitors.push_back(std::make_unique<GpuMonitor>(g.info.uuid, kMonitorPeriod, nvml_library_));
  const Measurement measurement = ctx.measure(timer, timer.every_lane_once());
  std::vector<nlohmann::json> during;
  for (auto &m : monitors)
    during.push_back(m->stop());
  const std::vector<nlohmann::json> after = snapshots(per_gpu);
  const LinkReader links(nvml_snapshot(), nvml_library_, sysfs_root_);

  std::vector<double> bandwidths;
  for (int d = 0; d < gpus; ++d)
    bandwidths.push_back(
        gbytes_per_s(bytes, lane_median_s(timer, static_cast<std::size_t>(d), measurement)));
  double sum = 0, expected_sum = 0;
  for (double b : bandwidths)
    sum += b;
  bool all_expected = true;
  nlohmann::json gpus_json = nlohmann::json::array();
  std::vector<unsigned> pus;
  int slowest = 0;
  for (int d = 0; d < gpus; ++d) {
    const auto &g = per_gpu[static_cast<std::size_t>(d)];
    const double bw = bandwidths[static_cast<std::size_t>(d)];
    if (bw < bandwidths[static_cast<std::size_t>(slowest)])
      slowest = d;
    nlohmann::json entry = {{record::kGpu, d},
                            {metric::kPerGpuUuid, g.info.uuid},
                            {metric::kPerGpuPci, g.info.pci_bus_id},
                            {record::kHostNumaNode, g.where.numa_node},
                            {record::kGpuNumaNode, g.where.gpu_numa_node},
                            {record::kPlacementHow, g.where.how},
                            {record::kCpuPu, g.where.pu},
                            {record::kBandwidthGbytesPerS, bw},
                            {record::kPerGpuShare, sum > 0 ? bw / sum : 0.0}};
    entry.update(placement_check(g.where.numa_node, {g.host->buffer().page_nodes()}));
    const auto i = static_cast<std::size_t>(d);
    entry.update(link_metrics(links, g.info.pci_bus_id, during[i], bw));
    entry[metric::kTelemetry] = telemetry_pair(before[i], during[i], after[i]);
    if (const auto e = entry.find(record::kExpectedGbytesPerS); e != entry.end() && e->is_number())
      expected_sum += e->get<double>();
    else
      all_expected = false;
    gpus_json.push_back(std::move(entry));
    pus.push_back(g.where.pu);
  }
  Outcome outcome;
  outcome.metrics = measurement.bandwidth_metrics(offload_bytes_per_call(path_, bytes, gpus));
  // Each GPU was timed while all the others still ran (the timer's padding): a GPU that finishes
  // early does not leave the others an uncontended tail that would hide a shared uplink.
  outcome.metrics[record::kSumOfGpusGbytesPerS] = sum;
  outcome.metrics.update(
      contention_metrics(timed_batches(timer.contention_fractions(), measurement)));
  outcome.metrics[record::kPerGpu] = gpus_json;
  outcome.metrics[record::kSlowestGpu] = slowest;
  outcome.metrics[record::kSlowestGpuShare] =
      sum > 0 ? bandwidths[static_cast<std::size_t>(slowest)] / sum : 0.0;
  // The links' sum is an upper bound: GPUs behind one switch or root port share its uplink.
  outcome.metrics[record::kExpectedGbytesPerS] =
      all_expected ? nlohmann::json(expected_sum) : nullptr;
  if (all_expected && expected_sum > 0)
    outcome.metrics[record::kEfficiency] =
        outcome.metrics[record::kBandwidthGbytesPerS].get<double>() / expected_sum;
  outcome.metrics[record::kVerified] = false;
  outcome.device = {{device::kCpus, fmt::format("{}", fmt::join(pus, ","))}};
  outcome.derived_params.update({{record::kGpus, gpus}, {record::kEngine, "copy_engine"}});
  if (!ctx.verify())
    return outcome;
  std::vector<std::string> problems;
  std::uint64_t wrong_total = 0;
  for (int d = 0; d < gpus; ++d) {
    const gpu::DeviceGuard guard(d);
    const auto &g = per_gpu[static_cast<std::size_t>(d)];
    const std::uint64_t wrong =
        check(g.transfer, g.seed, timer.stream(static_cast<std::size_t>(d)), before_verify_);
    wrong_total += wrong;
    if (wrong > 0)
      problems.push_back(problem(fmt::format("GPU {}", d), wrong, bytes));
  }
  outcome.metrics[record::kWrongWords] = wrong_total;
  outcome.conclude_data_check(problems);
  return outcome;
}

Outcome OffloadBenchmark::run_with_gemm(RunContext &ctx, const Point &point) {
  const int device = static_cast<int>(point.integer(record::kGpu));
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(device);
  const HostPlacement where = placement_of(ctx, point, info, 0);
  // The GEMM lane's thread on a core of its own (the same one only where the node has one): on
  // one PU the two enqueue loops would take turns, and the gates would open at different times.
  const HostPlacement gemm_where = placement_of(ctx, point, info, 1);
  const auto bytes = static_cast<std::size_t>(point.integer(record::kSizeBytes));
  const auto one = point.text(record::kDirection) == "d2h" ? OffloadPath::d2h : OffloadPath::h2d;
  const PinnedWorkers::CallerBinding bound(ctx.topology().get(), where.pu);
  const gpu::DeviceGuard guard(device);

  HostRegion host(ctx.topology().get(), where.numa_node, bytes, true);
  gpu::DeviceBuffer dev(bytes);
  const Transfer transfer{one, &host, dev.get(), bytes, {}};
  const std::uint32_t seed = seed_for(bytes, device, 0);
  gpu::Stream setup;
  prepare(transfer, seed, setup.get());
  gpu::GemmLoad gemm(static_cast<int>(point.integer(record::kGemmMnk)), setup.get());

  // Each work alone, then both together, the shorter repeated per call so that the two lanes
  // take about as long (the timer's padding keeps each in contention to its last call).
  RepeatsPerCall repeats;
  const auto copy_lane = [&] {
    return Lane{device, where.pu,
                [&](cudaStream_t s) {
                  for (int i = 0; i < repeats.first; ++i)
                    transfer(s);
                },
                repeats.first};
  };
  // A cuBLASLt matmul may launch two kernels (a split-K reduction after the GEMM).
  const auto gemm_lane = [&] {
    return Lane{device, gemm_where.pu,
                [&](cudaStream_t s) {
                  for (int i = 0; i < repeats.second; ++i)
                    gemm.enqueue(s);
                },
                2 * repeats.second};
  };
  double copy_alone_s = 0, gemm_alone_s = 0;
  {
    GatedLanesTimer timer(ctx.topology().get(), {copy_lane()});
    copy_alone_s = ctx.measure(timer, timer.every_lane_once()).time_s.median;
  }
  {
    GatedLanesTimer timer(ctx.topology().get(), {gemm_lane()});
    gemm_alone_s = ctx.measure(timer, timer.every_lane_once()).time_s.median;
  }
  repeats = balance_repeats(copy_alone_s, gemm_alone_s, kMaxRepeatsPerCall);
  GatedLanesTimer both(ctx.topology().get(), {copy_lane(), gemm_lane()});
  GpuMonitor monitor(info.uuid, kMonitorPeriod, nvml_library_);
  const Measurement measurement = ctx.measure(both, both.every_lane_once());
  const nlohmann::json during = monitor.stop();
  const LinkReader links(nvml_snapshot(), nvml_library_, sysfs_root_);
  const double copy_together_s = lane_median_s(both, 0, measurement) / repeats.first;
  const double gemm_together_s = lane_median_s(both, 1, measurement) / repeats.second;

  Outcome outcome;
  outcome.metrics = measurement.to_json();
  const double copy_bw = gbytes_per_s(bytes, copy_together_s);
  // time_s (from to_json) is the slower lane's time per call of the pair; the bandwidth and
  // the slowdowns are per copy and per GEMM.
  outcome.metrics[record::kBytesPerCopy] = bytes;
  outcome.metrics[record::kBandwidthGbytesPerS] = copy_bw;
  outcome.metrics[record::kCopyAloneGbytesPerS] = gbytes_per_s(bytes, copy_alone_s);
  outcome.metrics[record::kCopyConcurrentGbytesPerS] = copy_bw;
  outcome.metrics[record::kGemmAloneTflops] = gemm.flops() / gemm_alone_s / 1e12;
  outcome.metrics[record::kGemmConcurrentTflops] = gemm.flops() / gemm_together_s / 1e12;
  // > 1: slower beside the other. 1.0 for both means the copy hides completely behind compute.
  outcome.metrics[record::kCopySlowdown] = copy_together_s / copy_alone_s;
  outcome.metrics[record::kGemmSlowdown] = gemm_together_s / gemm_alone_s;
  outcome.metrics.update(
      contention_metrics(timed_batches(both.contention_fractions(), measurement)));
  outcome.metrics.update(link_metrics(links, info.pci_bus_id, during, copy_bw));
  outcome.metrics[record::kVerified] = false;
  add_placement(outcome, info, where, {&host});
  outcome.device["cpus"] = fmt::format("{},{}", where.pu, gemm_where.pu);
  outcome.derived_params.update({{record::kGemmsPerCall, repeats.second},
                                 {record::kCopiesPerCall, repeats.first},
                                 {record::kGemmDtype, "bf16 in, fp32 accumulate and out"},
                                 {record::kEngine, "copy_engine"}});
  if (!ctx.verify())
    return outcome;
  // Every lane's stream has been synchronised by its last batch; make sure of it all the same.
  RAILGAUGE_CUDA_CALL(cudaDeviceSynchronize());
  std::vector<std::string> problems;
  const std::uint64_t wrong = check(transfer, seed, setup.get(), before_verify_);
  outcome.metrics[record::kWrongWords] = wrong;
  if (wrong > 0)
    problems.push_back(problem("copy destination", wrong, bytes));
  const std::uint64_t wrong_gemm = gemm.count_wrong(both.stream(1));
  outcome.metrics[record::kGemmWrongSamples] = wrong_gemm;
  if (wrong_gemm > 0)
    problems.push_back(
        fmt::format("GEMM: {} of 64 sampled entries differ from the exact product", wrong_gemm));
  outcome.conclude_data_check(problems);
  return outcome;
}

} // namespace railgauge::offload
