#include "records/across_gpu_figures.h"

#include <algorithm>

#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "harness/stats.h"

namespace railgauge::records {

namespace f = record_fields;

std::optional<AcrossGpuFigures>
AcrossGpuFigures::of(std::vector<std::pair<int, double>> gpu_figures) {
  if (gpu_figures.empty())
    return std::nullopt;
  std::sort(gpu_figures.begin(), gpu_figures.end(),
            [](const auto &a, const auto &b) { return a.second < b.second; });
  std::vector<double> figures;
  for (const auto &[gpu, figure] : gpu_figures)
    figures.push_back(figure);
  AcrossGpuFigures a;
  a.min = figures.front();
  a.median = railgauge::median(figures);
  a.max = figures.back();
  a.slowest_gpu = gpu_figures.front().first;
  a.slowest_vs_median = a.median > 0 ? a.min / a.median : 0.0;
  return a;
}

void AcrossGpuFigures::write(nlohmann::json &metrics, const AcrossGpuNames &names) const {
  metrics[names.min] = min;
  metrics[names.median] = median;
  metrics[names.max] = max;
  metrics[metric::kSlowestGpu] = slowest_gpu;
  metrics[metric::kSlowestVsMedian] = slowest_vs_median;
}

std::optional<AcrossGpuFigures> AcrossGpuFigures::read(const nlohmann::json &metrics,
                                                       const AcrossGpuNames &names) {
  const auto min = f::number(metrics, names.min), median = f::number(metrics, names.median),
             max = f::number(metrics, names.max),
             ratio = f::number(metrics, metric::kSlowestVsMedian);
  const auto slowest = f::integer(metrics, metric::kSlowestGpu);
  if (!min || !median || !max || !ratio || !slowest)
    return std::nullopt;
  return AcrossGpuFigures{*min, *median, *max, *slowest, *ratio};
}

} // namespace railgauge::records
