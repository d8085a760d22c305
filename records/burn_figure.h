#pragma once
// The figure a burn-in phase judges each GPU by: a GEMM burn's TFLOP/s, an HBM or host copy's
// GB/s. Each GPU's object (records/per_gpu_parts.h) holds it, and most hold it second by second
// too (metric::kPerGpuSeries rows). The one list the report draws per GPU and compare takes a
// burn's noise from (its per-second spread), so that a new burn figure reaches both.
#include <optional>

#include <nlohmann/json.hpp>

#include "harness/metric_names.h"
#include "records/gemm_record.h"

namespace railgauge::records {

struct BurnFigure {
  const char *metric;
  const char *unit;
};

// In the order a GPU's object is searched: the first it holds as a number is its figure.
inline constexpr BurnFigure kBurnFigures[] = {{gemm::record::kTflops, "TFLOP/s"},
                                              {metric::kBandwidthGbytesPerS, "GB/s"}};

// The first of kBurnFigures `metrics` holds as a number; nullopt where it holds none.
inline std::optional<BurnFigure> burn_figure_of(const nlohmann::json &metrics) {
  for (const BurnFigure &f : kBurnFigures)
    if (metrics.is_object() && metrics.contains(f.metric) && metrics[f.metric].is_number())
      return f;
  return std::nullopt;
}

} // namespace railgauge::records
