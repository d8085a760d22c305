#pragma once
// gemm.burn's own figures in each GPU's object (metrics.gpus), beside the fields every GPU's
// object holds (records/gpu_part.h): the GEMMs it ran and how many came out different, the
// elements that differed or were NaN or Inf, what the fp64 reference check compared and found
// wrong, its rate and the cuBLASLt algorithm. Written by gemm/cuda/burn.cpp and read by analysis
// through this one type, by the contract's names (records/gemm_record.h); the point's figures
// over its GPUs are records/across_gpu_figures.h's, under gemm::record::kBurnTflopsAcrossGpus.
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace railgauge::gemm::record {

struct GemmBurnGpuFigures {
  std::int64_t index = 0;          // the GPU's CUDA index
  std::int64_t iterations = 0;     // GEMMs run after the first (golden) one
  std::int64_t bad_iterations = 0; // of those, how many differed in any way
  std::int64_t first_bad_iteration = -1;
  std::uint64_t mismatched_elements = 0, nan_elements = 0, inf_elements = 0; // summed
  std::int64_t reference_checked = 0, reference_wrong = 0; // the golden result's fp64 check
  double tflops = 0, tflops_min = 0;                       // median and slowest settled batch
  nlohmann::json algo = nullptr;                           // the cuBLASLt algorithm it ran

  void write(nlohmann::json &gpu_object) const;
  // nullopt where the object names no integer index; a figure absent or of another type reads as
  // its default.
  static std::optional<GemmBurnGpuFigures> read(const nlohmann::json &gpu_object);

  bool operator==(const GemmBurnGpuFigures &) const = default;
};

} // namespace railgauge::gemm::record
