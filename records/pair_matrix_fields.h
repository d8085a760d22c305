#pragma once
// The whole matrix that rank 0's record of rdma.pair_matrix and rdma.tcp_pair_matrix holds: its
// endpoints, every pair measured, the bad pairs, the retests and the isolation's findings.
// Written by rdma/pair_matrix_run.cpp and read by the report (analysis/report/matrix_sections.cpp)
// through this one type, by the contract's names (records/rdma_record.h), so that a field renamed
// on one side fails to compile or fails tests/rdma/pair_matrix_fields_test.cpp, which rewrites the
// committed matrices through it.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::rdma::record {

// An index into the matrix's endpoints, as a pair or a finding names it.
using MatrixEndpointIndex = std::int64_t;

struct MatrixEndpointFields {
  MatrixEndpointIndex endpoint = 0;
  std::int64_t rank = 0, node = 0, rail = 0; // the rank that holds it, its node and NIC index
  std::optional<std::string> label;          // "node017/mlx5_3"
  // The host of the rank that holds it and its RDMA device (none over TCP); absent in records
  // written before they were, whose label names both (place_of below).
  std::optional<std::string> host, device;

  bool operator==(const MatrixEndpointFields &) const = default;
};

// One pair measured: its two endpoints, its latency and bandwidth, or why it failed.
struct MatrixPairFields {
  std::pair<MatrixEndpointIndex, MatrixEndpointIndex> endpoints;
  std::optional<double> latency_p50_s, bandwidth_gbits_per_s;
  std::optional<std::string> error; // set only where the pair was not measured

  bool operator==(const MatrixPairFields &) const = default;
};

struct MatrixBadPairFields {
  std::pair<MatrixEndpointIndex, MatrixEndpointIndex> endpoints;
  std::vector<std::string> labels; // the two endpoints' labels
  std::string why;

  bool operator==(const MatrixBadPairFields &) const = default;
};

struct MatrixFindingFields {
  std::string kind; // "nic", "node", "path", "inconclusive" or "fleet"
  std::vector<MatrixEndpointIndex> endpoints;
  std::vector<std::string> labels;
  std::string text;

  bool operator==(const MatrixFindingFields &) const = default;
};

// Where an endpoint is: its host and device fields, else what its label says ("HOST/DEV" of
// rdma.pair_matrix, "rank R (HOST)/DEV" with node_identity=rank, "rank R (HOST)" of
// rdma.tcp_pair_matrix); a host nullopt where neither says, a device nullopt over TCP.
struct EndpointPlace {
  std::optional<std::string> host, device;
};
EndpointPlace place_of(const MatrixEndpointFields &e);

struct PairMatrixFields {
  std::vector<MatrixEndpointFields> endpoints;
  std::string pairing; // "rail_aligned", "all_to_all" or "coverage"
  std::uint64_t rounds = 0;
  // pairing "coverage": the planner's account of its rounds, and the NICs the topology lacks
  std::optional<std::string> coverage_plan;
  std::optional<std::vector<std::string>> coverage_missing;
  std::vector<MatrixPairFields> pairs, retests;
  double fleet_min_latency_s = 0, fleet_max_bandwidth_gbits_per_s = 0;
  std::vector<MatrixBadPairFields> bad_pairs;
  std::vector<MatrixFindingFields> findings;

  // Puts every field into `metrics` (the optional ones where they are set).
  void write(nlohmann::json &metrics) const;
  // The matrix `metrics` holds; nullopt without an array of endpoints and one of pairs (another
  // rank's record, an older shape). An endpoint that is not an object reads with no label, so
  // that the others keep their indices; a pair or bad pair that is not an object or whose
  // endpoints are not integers is left out, and so is a finding without a text (one whose
  // endpoints are not integers reads with none); a pair's error that is not a text reads as its
  // JSON; any other field of another type reads as absent (its default).
  static std::optional<PairMatrixFields> read(const nlohmann::json &metrics);

  bool operator==(const PairMatrixFields &) const = default;
};

} // namespace railgauge::rdma::record
