#pragma once
// What a phase that ran on every local GPU at once (gemm.burn, memory.burn, memory.peer_copy)
// says of its GPUs side by side: the slowest, median and fastest GPU's figure, which GPU was
// slowest, and how far it fell behind the median. Computed, written and read through this one
// type, under the names of the figure it spreads (gemm's TFLOP/s, memory's GB/s: each contract
// holds its AcrossGpuNames), so that a name changed on one side fails to compile or fails
// tests/harness/cuda/burn_figures_test.cpp, which rewrites the committed burn-in records through
// it.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::records {

// The names the slowest, median and fastest GPU's figure are written under.
struct AcrossGpuNames {
  const char *min, *median, *max;
};

struct AcrossGpuFigures {
  double min = 0, median = 0, max = 0;
  std::int64_t slowest_gpu = 0; // its CUDA index
  double slowest_vs_median = 0; // the slowest GPU's figure over the median's; 0 at a median of 0

  // From each GPU's (index, figure); nullopt without a figure.
  static std::optional<AcrossGpuFigures> of(std::vector<std::pair<int, double>> gpu_figures);
  void write(nlohmann::json &metrics, const AcrossGpuNames &names) const;
  // nullopt unless `metrics` holds every figure as a number (and the slowest GPU's index).
  static std::optional<AcrossGpuFigures> read(const nlohmann::json &metrics,
                                              const AcrossGpuNames &names);

  bool operator==(const AcrossGpuFigures &) const = default;
};

} // namespace railgauge::records
