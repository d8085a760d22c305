#pragma once
// gemm.burn: the silent-data-corruption burn-in (the gpu-burn / DCGM diagnostic job, with a
// verdict per GPU). One point runs the same cuBLASLt GEMM over and over on every local GPU at
// once (or on `-a gpu=N` alone) for `duration_s`, each GPU in its own thread:
//
//  1. Operands seeded once; the algorithm is the heuristic's first pick among those without
//     split-K reduction, so that every repetition must reproduce every bit.
//  2. The first result is checked against an fp64 reference on sampled elements (a GPU that is
//     wrong from the start fails too), then kept as the golden copy.
//  3. Repetitions write into a ring of output buffers, timed per batch with the CUDA-event
//     timer; after each batch every output is compared with the golden copy bit for bit on the
//     GPU (sdc_compare.h), counting differing elements, NaNs and Infs per repetition.
//  4. Any difference, NaN or Inf makes the point `failed`, the reason naming each bad GPU (index,
//     name, uuid, PCI bus id), the repetitions that differed, the first of them and the counts.
//     Every GPU's TFLOP/s is in the record so a slow GPU shows against its neighbours
//     (slowest_vs_median), measured after the clocks settled (the first kSettleFraction of the
//     duration is left out), with a TFLOP/s series per second beside the GPU's telemetry.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemm/gemm_point.h"
#include "harness/benchmark.h"
#include "records/gemm_record.h"

namespace railgauge::gemm {

// What one GPU's burn found.
struct BurnGpuResult {
  int index = 0;
  std::string name, uuid, pci;
  std::int64_t iterations = 0;     // GEMMs run after the first (golden) one
  std::int64_t bad_iterations = 0; // of those, how many differed in any way
  std::int64_t first_bad_iteration = -1;
  std::uint64_t mismatched_elements = 0, nan_elements = 0, inf_elements = 0; // summed
  std::int64_t reference_checked = 0, reference_wrong = 0; // the golden result's fp64 check
  // Median and slowest of the timed batches after the clocks settled (harness/rate_series.h)
  double tflops = 0;
  double tflops_min = 0;
  double settle_s = 0; // batches that ended before this were left out of the figures
  double elapsed_s = 0;
  nlohmann::json series = nlohmann::json::array(); // [{"t_s", "tflops"}] per second
  nlohmann::json algo = nullptr;
  nlohmann::json telemetry = nullptr;
  std::optional<std::string> error; // the GPU broke (CUDA or cuBLAS error): no verdict on data

  bool corrupt() const {
    return mismatched_elements > 0 || nan_elements > 0 || inf_elements > 0 || reference_wrong > 0;
  }
  nlohmann::json to_json() const;
};

// The point's outcome from every GPU's result: `failed` when any GPU corrupted data, else
// `error` when any GPU broke, else ok; metrics gpus (one object per GPU), tflops_min,
// tflops_median, tflops_max, slowest_gpu, slowest_vs_median; the device when one GPU ran.
Outcome burn_outcome(const std::vector<BurnGpuResult> &gpus, double flops_per_gemm);

struct BurnOptions {
  GemmShape shape;
  Dtype dtype = Dtype::bf16;
  std::string layout = "nt";
  double duration_s = 60;
  std::vector<int> gpus;
};

// Runs the burn on every GPU of `options` at once (burn_run.cpp; the stub without CUDA).
std::vector<BurnGpuResult> run_burn(const BurnOptions &options);

class BurnBenchmark final : public KeyedBenchmark {
public:
  BurnBenchmark()
      : KeyedBenchmark(
            record::kBurn,
            "GPU burn-in: the same cuBLASLt GEMM repeated on every local GPU at once for a "
            "duration, each result compared bit for bit with the first (silent data corruption), "
            "TFLOP/s per GPU") {}
  std::vector<Axis> axes() const override;
  std::optional<std::string> supported(const RunContext &ctx, const Point &point) const override;
  Outcome run(RunContext &ctx, const Point &point) override;
};

// The point's options; throws InputError for a bad shape, dtype, layout or duration.
BurnOptions burn_options(const Point &point, int gpus_visible);

std::unique_ptr<BurnBenchmark> make_burn();

} // namespace railgauge::gemm
