// OffloadBenchmark::run_with_gemm(): one GPU's copy beside a GEMM on the same GPU, each alone
// and then together (CUDA builds only).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/balance_repeats.h"
#include "harness/byte_rates.h"
#include "harness/cuda/check.h"
#include "harness/cuda/gemm_load.h"
#include "harness/cuda/resources.h"
#include "harness/device_fields.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/pinned_workers.h"
#include "offload/link_reader.h"
#include "offload/offload_benchmark.h"
#include "offload/offload_transfer.h"
#include "offload/pcie_link.h"
#include "records/offload_record.h"
#include "records/with_gemm_figures.h"

namespace railgauge::offload {
namespace {

// The most copies or GEMMs one call of offload.with_gemm repeats: each is a launch queued behind
// the call's gate, and a lane holds at most 256 launches, padding included.
constexpr int kMaxRepeatsPerCall = 64;

} // namespace

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
  prepare_transfer(transfer, seed, setup.get());
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
  record::WithGemmFigures{
      bytes,
      gbytes_per_s(bytes, copy_alone_s),
      copy_bw,
      tflops_of(gemm.flops(), gemm_alone_s),
      measured_or_nan(tflops_of(gemm.flops(), gemm_together_s), gemm_together_s),
      copy_together_s / copy_alone_s,
      gemm_together_s / gemm_alone_s}
      .write(outcome.metrics);
  outcome.metrics.update(
      contention_metrics(timed_batches(both.contention_fractions(), measurement)));
  outcome.metrics.update(link_metrics(links, info.pci_bus_id, during, copy_bw));
  outcome.metrics[record::kVerified] = false;
  add_placement(outcome, info, where, {&host});
  outcome.device[device::kCpus] = fmt::format("{},{}", where.pu, gemm_where.pu);
  outcome.derived_params.update({{record::kGemmsPerCall, repeats.second},
                                 {record::kCopiesPerCall, repeats.first},
                                 {record::kGemmDtype, "bf16 in, fp32 accumulate and out"},
                                 {record::kEngine, "copy_engine"}});
  if (!ctx.verify())
    return outcome;
  // Every lane's stream has been synchronised by its last batch; make sure of it all the same.
  RAILGAUGE_CUDA_CALL(cudaDeviceSynchronize());
  std::vector<std::string> problems;
  const std::uint64_t wrong = count_wrong_words(transfer, seed, setup.get(), before_verify_);
  outcome.metrics[record::kWrongWords] = wrong;
  if (wrong > 0)
    problems.push_back(wrong_words_problem("copy destination", wrong, bytes));
  const std::uint64_t wrong_gemm = gemm.count_wrong(both.stream(1));
  outcome.metrics[record::kGemmWrongSamples] = wrong_gemm;
  if (wrong_gemm > 0)
    problems.push_back(
        fmt::format("GEMM: {} of 64 sampled entries differ from the exact product", wrong_gemm));
  outcome.conclude_data_check(problems);
  return outcome;
}

} // namespace railgauge::offload
