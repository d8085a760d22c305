#pragma once
// The figures of an rdma point that more than one writer states: the latency summary (verbs and
// TCP ping-pong points, the probe under load, perftest's imports) and the bandwidth figures
// (verbs and TCP streams, the fabric-load flows, perftest's imports) and how the fabric-load
// flows spread. Written and read through
// these types, by the contract's names (records/rdma_record.h), so that a field renamed on one
// side fails to compile or fails tests/rdma/rdma_point_fields_test.cpp, which rewrites the
// committed rdma records and the imported perftest logs through them.
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/stats.h"

namespace railgauge::rdma::record {

// A latency summary, in seconds (rdma/latency_summary.h computes one from samples). perftest's
// imports state only the figures its table prints, so every figure may be absent on reading.
struct LatencyFields {
  std::optional<std::uint64_t> n; // round trips summarised
  std::optional<double> min_s, p50_s, p90_s, p99_s, p99_9_s, max_s, mean_s, stdev_s;

  bool empty() const;
  // Puts the summary into metrics[name] (kLatency, or kLatencyIdle for the probe before its
  // load): an object of the figures that are set.
  void write(nlohmann::json &metrics, const char *name) const;
  // metrics[name]'s figures; nullopt where it is absent or not an object. A figure of another
  // type reads as absent.
  static std::optional<LatencyFields> read(const nlohmann::json &metrics, const char *name);

  bool operator==(const LatencyFields &) const = default;
};

// A bandwidth point's figures: what one call moved and how fast, at the median and fastest call
// (bytes_per_call and the GB/s pair are the core's names, harness/metric_names.h), perftest's
// peak, the message rate, and a bidirectional point's peer direction and sum.
struct BandwidthFields {
  std::optional<std::uint64_t> bytes_per_call, messages_per_call;
  std::optional<double> gbytes_per_s, gbytes_max_per_s;
  std::optional<double> gbits_per_s, gbits_max_per_s, gbits_peak_per_s;
  std::optional<double> message_rate_per_s;
  std::optional<double> peer_gbits_per_s, bidirectional_gbits_per_s;

  // A call that moved `bytes_per_call` in `messages_per_call` messages, timed at `time_s`.
  static BandwidthFields of(std::uint64_t bytes_per_call, std::uint64_t messages_per_call,
                            const Summary &time_s);
  // The peer's direction of a bidirectional point, timed by the peer, and the sum of both.
  void add_peer(double peer_gbits);

  bool empty() const;
  // Puts the figures that are set into `metrics`.
  void write(nlohmann::json &metrics) const;
  // The figures of `metrics`; nullopt where it holds none of them (a latency point, a waived
  // one). A figure of another type reads as absent.
  static std::optional<BandwidthFields> read(const nlohmann::json &metrics);

  bool operator==(const BandwidthFields &) const = default;
};

// How a rate spreads over the flows (or QPs) that made it, in their unit (Gb/s): a sender's QPs
// (per_qp_gbits_per_s), an incast receiver's flows (per_flow_gbits_per_s), a probe's loaders
// (load_gbits_per_s). rdma/fabric_load/fabric_figures.h computes one from the flows.
struct FlowSpreadFields {
  std::optional<double> min, median, max, sum;
  std::optional<double> jain;                // Jain's fairness index: 1 when every flow is equal
  std::optional<double> min_over_fair_share; // the slowest flow against an equal share of the sum
  std::vector<double> values;                // each flow's, in the order they were measured

  // Puts the figures that are set and the values into metrics[name] as one object.
  void write(nlohmann::json &metrics, const char *name) const;
  // metrics[name]'s figures; nullopt where it is absent or not an object. A figure of another
  // type reads as absent, a value of another type is left out.
  static std::optional<FlowSpreadFields> read(const nlohmann::json &metrics, const char *name);

  bool operator==(const FlowSpreadFields &) const = default;
};

} // namespace railgauge::rdma::record
