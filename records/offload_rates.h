#pragma once
// The offload family's rates beyond the core's bandwidth_gbytes_per_s: offload.bidir's two
// directions, their sum and each one's efficiency against its half of the link; offload.all_gpus_*
// 's sum over the GPUs, the slowest GPU's share of it, the links' summed expected rate and the
// point's efficiency against it, and each GPU's share. Computed, written and read through these
// types, by the contract's names (records/offload_record.h), so that a name changed on one side
// fails to compile or fails tests/offload/offload_record_fields_test.cpp, which rewrites the
// committed offload records through them.
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::offload::record {

struct BidirectionalRates {
  double h2d_gbytes_per_s = 0, d2h_gbytes_per_s = 0;
  double sum_gbytes_per_s = 0; // each direction timed while the other ran: a concurrent sum
  // Each direction against half the link's expected rate (both directions'), where it is known
  std::optional<double> h2d_efficiency, d2h_efficiency;

  static BidirectionalRates of(double h2d_gbytes_per_s, double d2h_gbytes_per_s,
                               std::optional<double> expected_both_gbytes_per_s);
  void write(nlohmann::json &metrics) const;
  // nullopt unless both directions are numbers.
  static std::optional<BidirectionalRates> read(const nlohmann::json &metrics);

  bool operator==(const BidirectionalRates &) const = default;
};

struct AllGpusRates {
  double sum_of_gpus_gbytes_per_s = 0;
  std::int64_t slowest_gpu = 0; // its position in per_gpu
  double slowest_gpu_share = 0; // its rate over the sum; 0 at a sum of 0
  std::vector<double> shares;   // each GPU's rate over the sum, in per_gpu's order
  // The links' summed expected rate where every GPU's is known (written as null otherwise), and
  // the point's aggregate rate against it
  std::optional<double> expected_gbytes_per_s, efficiency;

  // From each GPU's rate and its link's expected rate (nullopt where unknown), and the point's
  // bytes over its median time.
  static AllGpusRates of(const std::vector<double> &gpu_gbytes_per_s,
                         const std::vector<std::optional<double>> &gpu_expected_gbytes_per_s,
                         double aggregate_gbytes_per_s);
  // The figures over the GPUs into `metrics`, and each GPU's share into its object.
  void write(nlohmann::json &metrics) const;
  void write_share(std::size_t gpu, nlohmann::json &gpu_object) const;
  // nullopt unless the sum and the slowest GPU are numbers; a GPU's share is read from per_gpu.
  static std::optional<AllGpusRates> read(const nlohmann::json &metrics);

  bool operator==(const AllGpusRates &) const = default;
};

} // namespace railgauge::offload::record
