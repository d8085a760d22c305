#pragma once
// What the fabric-under-load rounds (rdma.incast, rdma.latency_under_load) record beyond a
// point's latency and bandwidth figures (records/rdma_point_fields.h): every end of the round with
// its role, device and congestion counters, and an incast receiver's flows, their sum and its
// share of the line rate. Written by rdma/fabric_load/flow_rounds.cpp and read by the report
// (analysis/report/fabric_load_sections.cpp) through these types, by the contract's names
// (records/rdma_record.h), so that a field renamed on one side fails to compile or fails
// tests/rdma/fabric_load_fields_test.cpp, which rewrites the committed rounds through them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge::rdma::record {

// One end of a round: its rank, what it did (sender, receiver, probe, loader, ...), its record's
// device ({nic, port}) and the congestion figures read out of its port counters.
struct FabricEndFields {
  std::int64_t rank = 0;
  std::string role;
  nlohmann::json device = nullptr, congestion = nullptr;

  bool operator==(const FabricEndFields &) const = default;
};

// Puts the ends into metrics.ends.
void write_ends(nlohmann::json &metrics, const std::vector<FabricEndFields> &ends);
// metrics.ends; nullopt where it is absent or not a list. An end that is not an object or names
// no integer rank is left out.
std::optional<std::vector<FabricEndFields>> read_ends(const nlohmann::json &metrics);

// One sender's flow into an incast receiver.
struct IncastFlowFields {
  std::int64_t rank = 0;
  double gbits_per_s = 0;
  nlohmann::json device = nullptr;

  bool operator==(const IncastFlowFields &) const = default;
};

// An incast receiver's figures over its flows. The round writes every one but the line rate's;
// each reads as absent where a record lacks it or holds another type.
struct IncastFigures {
  std::optional<double> aggregate_gbits_per_s, jain_fairness_index;
  std::optional<std::vector<IncastFlowFields>> flows;
  // Where the port's rate is known (sysfs): it, and the aggregate's share of it
  std::optional<double> line_rate_gbits_per_s, aggregate_over_line_rate;

  // Puts the figures that are set into `metrics`.
  void write(nlohmann::json &metrics) const;
  // nullopt unless the aggregate is a number or the flows a list; a flow that is not an object or
  // names no integer rank or no number rate is left out of the list.
  static std::optional<IncastFigures> read(const nlohmann::json &metrics);

  bool operator==(const IncastFigures &) const = default;
};

} // namespace railgauge::rdma::record
