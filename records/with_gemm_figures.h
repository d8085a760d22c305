#pragma once
// What offload.with_gemm measures beyond a copy's record: the copy and the GEMM each alone and
// then beside each other on the same GPU, and how much each slowed the other. Written and read
// through this one type so that a field renamed on one side fails to compile or fails
// tests/offload/offload_record_fields_test.cpp.
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace railgauge::offload::record {

struct WithGemmFigures {
  std::uint64_t bytes_per_copy = 0;
  double copy_alone_gbytes_per_s = 0, copy_concurrent_gbytes_per_s = 0;
  double gemm_alone_tflops = 0, gemm_concurrent_tflops = 0;
  // Together over alone, by time: > 1 is slower beside the other; 1.0 for both means the copy
  // hides completely behind the compute.
  double copy_slowdown = 0, gemm_slowdown = 0;

  // Puts the figures into a record's metrics, and the copy beside the GEMM as its
  // bandwidth_gbytes_per_s: the figure the family's rules and reports read from every point.
  void write(nlohmann::json &metrics) const;
  // The figures of `metrics`; nullopt unless every one is a number (a record of another key).
  static std::optional<WithGemmFigures> read(const nlohmann::json &metrics);

  bool operator==(const WithGemmFigures &) const = default;
};

} // namespace railgauge::offload::record
