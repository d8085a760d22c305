#pragma once
// How the ranks of rdma.incast, rdma.qp_scaling and rdma.latency_under_load meet through the run's
// Store, whatever moves the bytes. The verbs sides (verbs_flows.h) implement the interfaces below;
// tests stand fakes in for them, ranks as threads over the in-memory store, so that the
// scheduling is tested where no RDMA device is.
//
// An incast round (rdma.qp_scaling is one with a single sender): the receiver and its senders
// connect, meet, read their port counters, and every sender measures its flow under the
// measurement core while all the others stream too. A sender that finishes measuring keeps
// streaming, unmeasured, until every sender has finished, so that no flow is measured on a
// receiver that the others have already left. Then each drains and sends the receiver its figures
// and its own counters; the receiver checks the data it received and holds the round's figures:
// per-flow bandwidth, Jain's index, the aggregate against its line rate, every end's counters.
//
// A load-probe round: rank 0 pings rank 1 on one QP, first idle, then while the load streams
// (rank 0 to rank 1 on other QPs, or every rank but 1 to rank 1: an incast on the probe's
// receiver); rank 0 holds both latency distributions and their ratio.
//
// Every wait is bounded by the run's peer timeout plus the time the measurements may take; a
// rank that does not arrive is named.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/inventory/port_counters.h"
#include "harness/record.h"
#include "harness/run_context.h"
#include "harness/store/store.h"
#include "rdma/data_pattern.h"

namespace railgauge::rdma {

// One sender's flow: its bandwidth (bytes per timed call over the measurement core's median call,
// or, for an unmeasured load, bytes over the seconds it streamed), the bytes each QP completed
// over the same span (their shares split the flow's figure per QP) and the core's summary.
struct FlowFigures {
  double gbits_per_s = 0;
  std::vector<double> bytes_per_qp;
  nlohmann::json measurement = nlohmann::json::object();
  std::vector<double> gbits_per_s_per_qp() const;
  nlohmann::json to_json() const;
  static FlowFigures from_json(const nlohmann::json &j);
};

// One rank's part of an incast round.
class IncastSide {
public:
  virtual ~IncastSide() = default;
  // Sender: opens its endpoint and connects to the receiver; receiver: one endpoint per sender.
  // Connection data goes through `store` under `prefix`.
  virtual void connect(Store &store, const std::string &prefix, int receiver,
                       const std::vector<int> &senders) = 0;
  virtual PortCounters read_counters() = 0;
  // Sender: its flow, timed by the measurement core while it streams.
  virtual FlowFigures measure(RunContext &ctx) = 0;
  // Sender: keeps its queues full until `stop` says so (asked between batches), then drains.
  virtual void stream_until(const std::function<bool()> &stop) = 0;
  // Receiver, once every sender drained: the data it received against the pattern.
  virtual DataCheck check_received() = 0;
  // What the record says of this end: {"nic": .., "port": ..}, its derived params (GID, MTU,
  // flow labels), and the receiver's line rate (0: unknown).
  virtual nlohmann::json device() const = 0;
  virtual nlohmann::json derived_params() const = 0;
  virtual double line_rate_gbits_per_s() const = 0;
  // A sender's flow labels and UDP source ports per QP (metrics, not params: they differ with
  // every QP count, and a param would split the entropy curve); null when there is nothing to say.
  virtual nlohmann::json flow_entropy() const { return nullptr; }
};

struct RoundSpec {
  std::string prefix; // store keys: unique per point, equal on every rank
  int receiver = 1;
  std::vector<int> senders;
};

// This rank's Outcome of the round: the receiver's record (role receiver) holds the figures of
// the round; a sender's (role sender) its own flow and counters. A rank outside the round gets a
// not-applicable waiver.
Outcome run_incast_round(RunContext &ctx, const RoundSpec &spec, IncastSide &side);

// One rank's part of a load-probe round: the probe's two ends (ranks 0 and 1) and the load.
class ProbeSide {
public:
  virtual ~ProbeSide() = default;
  // Opens and connects the probe (ranks 0 and 1) and the load flows (each loader to rank 1).
  virtual void connect(Store &store, const std::string &prefix,
                       const std::vector<int> &loaders) = 0;
  virtual PortCounters read_counters() = 0;
  // Rank 0: one-way latencies (round trip / 2) of the ping-pong under the measurement core.
  virtual std::vector<double> measure_probe(RunContext &ctx) = 0;
  // Rank 0: tells rank 1 to stop answering. Rank 1: answers pings until told to stop.
  virtual void stop_probe() = 0;
  virtual void serve_probe() = 0;
  // Loaders: stream to rank 1 until `stop`, at least one message on every QP (rank 1 checks each
  // QP's buffer), then drain; returns the flow.
  virtual FlowFigures stream_until(const std::function<bool()> &stop) = 0;
  // Rank 1 once every loader drained, rank 0 for its ping buffer.
  virtual DataCheck check_received() = 0;
  virtual nlohmann::json device() const = 0;
  virtual nlohmann::json derived_params() const = 0;
  // A loader's flow labels and source ports (as IncastSide's); null otherwise.
  virtual nlohmann::json flow_entropy() const { return nullptr; }
};

struct ProbeRoundSpec {
  std::string prefix;
  std::vector<int> loaders; // ranks that stream to rank 1 during the loaded phase
};

Outcome run_probe_round(RunContext &ctx, const ProbeRoundSpec &spec, ProbeSide &side);

// Whether every key is in the store now (a wait of no time).
bool store_has_all(Store &store, const std::vector<std::string> &keys);

} // namespace railgauge::rdma
