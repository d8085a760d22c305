#pragma once
// The metrics of a gemm.cublaslt or gemm.cublaslt_size point that are the family's own, beside
// the core's measurement (time_s, timer, ...) and telemetry: its rates (every gemm.cpu_blas*
// point writes these too), the algorithm search's best pick beside the heuristic's, what cuBLASLt
// ran and the data check. Written and read through these types so that a field renamed on one
// side fails to compile or fails tests/gemm/cublaslt_record_fields_test.cpp, which rewrites every
// point of the committed H200 sweep through them.
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "harness/byte_rates.h"
#include "harness/stats.h"

namespace railgauge::gemm::record {

// What one call does and how fast it ran, at the median and at the fastest call, against the
// dtype's dense peak where one is known. All but tflops may be absent on reading: a record
// trimmed to its headline (tests/fixtures/gemm-h200) still reads.
struct GemmRates {
  std::optional<double> flops_per_call, bytes_per_call, flops_per_byte;
  double tflops = 0; // at the median call
  std::optional<double> tflops_max;
  std::optional<double> peak_tflops, efficiency; // both only where a peak is known

  // The rates of a call of `flops` over `bytes` timed at `time_s`, against `peak_tflops` where
  // it is above 0.
  static GemmRates of(double flops, double bytes, const Summary &time_s, double peak_tflops);
  void write(nlohmann::json &metrics) const;
  // nullopt where the metrics hold no tflops (a waived point, another family's record).
  static std::optional<GemmRates> read(const nlohmann::json &metrics);

  bool operator==(const GemmRates &) const = default;
};

// The search's fastest candidate measured in full beside the heuristic's first pick:
// best_time_s, best_tflops, best_tflops_max, best_efficiency, best_vs_heuristic,
// best_is_heuristic.
struct BestPick {
  std::optional<Summary> time_s;
  double tflops = 0;
  std::optional<double> tflops_max, efficiency, vs_heuristic;
  std::optional<bool> is_heuristic; // the heuristic's pick was the fastest of the two

  // The best of a call of `flops` timed at `time_s`, against the heuristic's `rates` (their
  // peak, and their tflops for vs_heuristic).
  static BestPick of(double flops, const Summary &time_s, const GemmRates &heuristic,
                     bool is_heuristic);
  void write(nlohmann::json &metrics) const;
  // nullopt where the metrics hold no best_tflops (top_k 1 before the search, another key).
  static std::optional<BestPick> read(const nlohmann::json &metrics);
  bool operator==(const BestPick &) const;
};

// The data check of the picks' outputs against the fp64 reference: elements compared and found
// outside the bound, the worst error over it (null where an output was NaN or Inf), the bound.
struct DataCheckFields {
  std::int64_t verified_elements = 0, wrong_elements = 0;
  std::optional<double> worst_error_over_bound;
  nlohmann::json error_bound; // {of_result, of_abs_sum[, of_abs_sum_per_sqrt_k]}

  bool operator==(const DataCheckFields &) const = default;
};

struct CublasLtFields {
  GemmRates rates;
  std::optional<BestPick> best;
  // As cuBLASLt and the plan describe them, kept whole (null: absent): the algorithms of the
  // heuristic's and the best pick (gemm/cuda/lt_matmul.cpp's algo_json), the kernels each
  // launched, the candidates screened and refused, the call's types, the plan's GEMMs.
  nlohmann::json heuristic_algos, best_algos, launched_kernels, candidates, refused_algos, lt_types,
      gemms;
  std::optional<bool> verified; // the data check passed; false where it did not run
  std::optional<DataCheckFields> check;

  void write(nlohmann::json &metrics) const;
  // nullopt where the metrics hold no tflops (a waived point, another family's record).
  static std::optional<CublasLtFields> read(const nlohmann::json &metrics);

  bool operator==(const CublasLtFields &) const = default;
};

} // namespace railgauge::gemm::record
