// memory.burn's axes, waivers and verdict: compiled in every build (run_hbm_burn() is in
// hbm_burn_run.cpp or its stub).
#include "memory/cuda/hbm_burn.h"

#include <fmt/format.h>

#include "harness/cuda/device.h"
#include "harness/cuda/every_gpu_check.h"
#include "harness/device_fields.h"
#include "harness/error.h"
#include "harness/every_gpu.h"
#include "harness/every_gpu_status.h"
#include "harness/rate_series.h"
#include "records/gpu_part.h"
#include "records/memory_burn_figures.h"
#include "records/memory_record.h"

namespace railgauge::memory {
namespace {

constexpr std::int64_t kDefaultArrayBytes = std::int64_t{1} << 30; // 1 GiB: far past any L2
constexpr double kDefaultDurationS = 30;
// Source and destination at most this share of the free memory.
constexpr double kMaxFreeShare = 0.8;

std::string gpu_label(const HbmBurnGpuResult &g) {
  return every_gpu_label(g.gpu, g.name, g.uuid, g.pci);
}

HbmBurnOptions hbm_burn_options(const Point &point, int gpus_visible) {
  HbmBurnOptions o;
  const std::int64_t bytes = point.integer(record::kSizeBytes);
  if (bytes < 16 || bytes % 16 != 0)
    throw InputError(fmt::format("size_bytes = {} is not a positive multiple of 16", bytes),
                     "size_bytes", "give bytes per array, a multiple of 16 (e.g. 1GiB)");
  o.array_bytes = static_cast<std::uint64_t>(bytes);
  const EveryGpuAxes every = every_gpu_axes(point, gpus_visible);
  o.duration_s = every.duration_s;
  o.gpus = every.gpus;
  return o;
}

} // namespace

nlohmann::json HbmBurnGpuResult::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  record::HbmBurnGpuFigures{bandwidth_gbytes_per_s, bandwidth_min_gbytes_per_s, calls, elements,
                            wrong_elements}
      .write(j);
  records::gpu_part_of(*this, gpu,
                       error ? Status::error : (wrong_elements > 0 ? Status::failed : Status::ok))
      .write(j);
  return j;
}

Outcome hbm_burn_outcome(const std::vector<HbmBurnGpuResult> &gpus) {
  Outcome out;
  nlohmann::json list = nlohmann::json::array();
  std::vector<std::string> wrong, broke;
  std::vector<std::pair<int, double>> rates;
  std::uint64_t wrong_total = 0;
  for (const auto &g : gpus) {
    list.push_back(g.to_json());
    wrong_total += g.wrong_elements;
    if (g.wrong_elements > 0)
      wrong.push_back(fmt::format("{}: {} of {} elements hold wrong values after {} copies",
                                  gpu_label(g), g.wrong_elements, g.elements, g.calls));
    if (g.error)
      broke.push_back(fmt::format("{}: {}", gpu_label(g), *g.error));
    else if (g.bandwidth_gbytes_per_s > 0)
      rates.emplace_back(g.gpu, g.bandwidth_gbytes_per_s);
  }
  out.metrics[record::kPerGpu] = list;
  if (const auto across = records::AcrossGpuFigures::of(rates))
    across->write(out.metrics, record::kBurnBandwidthAcrossGpus);
  out.metrics[record::kWrongElements] = wrong_total;
  if (gpus.size() == 1)
    out.device = {{device::kGpu, gpus.front().uuid}, {device::kPci, gpus.front().pci}};
  out.metrics[record::kVerified] = wrong.empty() && broke.empty() && !gpus.empty();
  set_every_gpu_status(out, gpus.size(), wrong, broke, "wrong data on", "the HBM burn");
  return out;
}

HbmBurnBenchmark::HbmBurnBenchmark()
    : KeyedBenchmark(
          record::kHbmBurn,
          "HBM burn-in: the copy kernel on every local GPU at once for a duration, each GPU's "
          "sustained GB/s (bytes read + written) beside its siblings' and its telemetry, the "
          "data checked whole") {}

std::vector<Axis> HbmBurnBenchmark::axes() const {
  return {
      {record::kSizeBytes,
       AxisType::bytes,
       "bytes per array (source and destination)",
       {kDefaultArrayBytes},
       {}},
      every_gpu_duration_axis(
          kDefaultDurationS,
          "copies (the first 20% settle the clocks and are left out of the figure)"),
      every_gpu_device_axis(),
  };
}

std::optional<std::string> HbmBurnBenchmark::supported(const RunContext &,
                                                       const Point &point) const {
  return gpu::every_gpu_point_problem(
      [&](int count) { return hbm_burn_options(point, count); },
      [](const HbmBurnOptions &o, int count) {
        return gpu::every_gpu_problem(
            o.gpus, count,
            [&](int d, const gpu::CudaDeviceInfo &info) -> std::optional<std::string> {
              const double need = 2.0 * static_cast<double>(o.array_bytes);
              if (need > kMaxFreeShare * static_cast<double>(info.free_memory_bytes))
                return fmt::format("two arrays of {:.3g} GB need more than 80% of the {:.3g} GB "
                                   "free on GPU {} ({}): use a smaller size_bytes",
                                   static_cast<double>(o.array_bytes) / 1e9,
                                   static_cast<double>(info.free_memory_bytes) / 1e9, d, info.name);
              return std::nullopt;
            });
      });
}

Outcome HbmBurnBenchmark::run(RunContext &ctx, const Point &point) {
  if (auto why = supported(ctx, point))
    return Outcome::waived(*why);
  const HbmBurnOptions o = hbm_burn_options(point, gpu::cuda_device_count());
  Outcome out = hbm_burn_outcome(run_hbm_burn(o));
  out.derived_params = {{record::kGpusBurned, o.gpus.size()}, {record::kKernel, "copy"}};
  return out;
}

std::unique_ptr<HbmBurnBenchmark> make_hbm_burn() { return std::make_unique<HbmBurnBenchmark>(); }

} // namespace railgauge::memory
