#pragma once
// memory.burn: the HBM phase of a burn-in. One point copies arrays of `size_bytes` on every
// local GPU at once (or on `-a gpu=N` alone) for `duration_s`, each GPU in its own thread, with
// the copy kernel of memory.hbm_copy (2 arrays counted, bytes read plus written):
//
//  1. Each GPU's batches are timed by the CUDA-event timer; the GPU's figure is the median
//     GB/s of the batches after the clocks settled (harness/rate_series.h), with a series per
//     second beside its telemetry (clocks, power, temperature, throttle reasons).
//  2. After the last batch the destination is checked on the GPU, whole: any wrong element
//     makes the point `failed`, naming the GPU.
//  3. The GPUs are compared in the same window (slowest_vs_median): all of them load the node's
//     power and cooling together, where a marginal HBM stack or a GPU at its power cap shows.
//     `railgauge check` judges each GPU as a part of its own (metrics.per_gpu).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/benchmark.h"

namespace railgauge::memory {

// What one GPU's HBM burn found.
struct HbmBurnGpuResult {
  int gpu = 0;
  std::string name, uuid, pci;
  double bandwidth_gbytes_per_s = 0;     // median of the settled batches
  double bandwidth_min_gbytes_per_s = 0; // the slowest settled batch
  double settle_s = 0;
  double elapsed_s = 0;
  std::int64_t calls = 0;
  std::uint64_t elements = 0, wrong_elements = 0;
  nlohmann::json series = nlohmann::json::array(); // [{"t_s", "bandwidth_gbytes_per_s"}]
  nlohmann::json telemetry = nullptr;
  std::optional<std::string> error; // the GPU broke: no verdict on its data

  nlohmann::json to_json() const;
};

struct HbmBurnOptions {
  std::uint64_t array_bytes = 0;
  double duration_s = 0;
  std::vector<int> gpus;
};

// The point's outcome: `failed` when a GPU held wrong data, else `error` when one broke; metrics
// per_gpu, bandwidth_gbytes_per_s_{min,median,max} over the GPUs, slowest_gpu, slowest_vs_median.
Outcome hbm_burn_outcome(const std::vector<HbmBurnGpuResult> &gpus);

// Runs the burn on every GPU of `options` at once (hbm_burn_run.cpp; the stub without CUDA).
std::vector<HbmBurnGpuResult> run_hbm_burn(const HbmBurnOptions &options);

class HbmBurnBenchmark final : public KeyedBenchmark {
public:
  HbmBurnBenchmark();
  std::vector<Axis> axes() const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
};

std::unique_ptr<HbmBurnBenchmark> make_hbm_burn();

} // namespace railgauge::memory
