#pragma once
// The rdma family's record contract (see records/gemm_record.h): keys, and the parameter and metric
// names that the family writes and analysis and the shipped rules read.
#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "records/metric_field.h"
#include "records/rdma_point_fields.h"

namespace railgauge::rdma::record {

inline constexpr const char *kFamily = "rdma";
inline constexpr const char *kCategory = "nic";

// Keys: libibverbs RC per NIC, the NIC-pair matrix, the TCP baseline
inline constexpr const char *kWriteBw = "rdma.write_bw";
inline constexpr const char *kReadBw = "rdma.read_bw";
inline constexpr const char *kSendBw = "rdma.send_bw";
inline constexpr const char *kWriteLat = "rdma.write_lat";
inline constexpr const char *kReadLat = "rdma.read_lat";
inline constexpr const char *kSendLat = "rdma.send_lat";
inline constexpr const char *kPairMatrix = "rdma.pair_matrix";
inline constexpr const char *kTcpBw = "rdma.tcp_bw";
inline constexpr const char *kTcpLat = "rdma.tcp_lat";
inline constexpr const char *kTcpPairMatrix = "rdma.tcp_pair_matrix";
// perftest's atomic tests, imported only (railgauge has no atomic benchmark)
inline constexpr const char *kAtomicBw = "rdma.atomic_bw";
inline constexpr const char *kAtomicLat = "rdma.atomic_lat";
// The fabric under load (rdma/fabric_load/): one stream over 1..64 QPs, N-1 senders to one
// receiver, a ping-pong probe behind bulk traffic
inline constexpr const char *kQpScaling = "rdma.qp_scaling";
inline constexpr const char *kIncast = "rdma.incast";
inline constexpr const char *kLatencyUnderLoad = "rdma.latency_under_load";
inline constexpr std::array kFabricLoadKeys{kQpScaling, kIncast, kLatencyUnderLoad};
// Their records' derived param naming the end, and its values
inline constexpr const char *kRole = "role";
inline constexpr const char *kRoleSender = "sender";     // incast, qp_scaling
inline constexpr const char *kRoleReceiver = "receiver"; // incast, qp_scaling
inline constexpr const char *kRoleProbe = "probe";       // latency_under_load: measures
inline constexpr const char *kRoleProbeReceiver = "probe_receiver";
inline constexpr const char *kRoleLoader = "loader";
// Their axes: the incast's receiving rank, QPs per flow, the probe's load (bulk | incast)
inline constexpr const char *kReceiver = "receiver";
inline constexpr const char *kQps = "qps";
inline constexpr const char *kLoad = "load";

// Parameters
inline constexpr const char *kSizeBytes = metric::kSizeBytes;
inline constexpr const char *kMode = "mode";                    // loopback | ranks
inline constexpr const char *kDevice = "device";                // the RDMA device
inline constexpr const char *kDirection = metric::kDirection;   // uni | bidir
inline constexpr const char *kMemory = "memory";                // host | gpu:N
inline constexpr const char *kIterations = metric::kIterations; // 0: the measurement core's rule
// derived_params: "iterations" or "measurement_core" (rdma/stopping_rule.h)
inline constexpr const char *kStoppingRule = "stopping_rule";
// derived_params of a verbs point (and a fabric-load end: the first four): the GID it used, of
// which type and why, the link, the MTU, and what the device granted of what the axes asked
inline constexpr const char *kGidIndexUsed = "gid_index_used";
inline constexpr const char *kGidType = "gid_type";
inline constexpr const char *kLinkLayer = "link_layer"; // Ethernet | InfiniBand
inline constexpr const char *kMtuBytes = "mtu_bytes";
inline constexpr const char *kGidChoice = "gid_choice";
inline constexpr const char *kInlineUsed = "inline_used";
inline constexpr const char *kMaxInlineGrantedBytes = "max_inline_granted_bytes";
inline constexpr const char *kQpsUsed = "qps_used";
inline constexpr const char *kCqModerationUsed = "cq_moderation_used";
inline constexpr const char *kMemoryRegistration = "memory_registration";
// The verbs benchmarks' axes: the port and its addressing, and how the QPs post and complete
inline constexpr const char *kPort = "port";
inline constexpr const char *kGidIndex = "gid_index";
inline constexpr const char *kTrafficClass = "traffic_class";
inline constexpr const char *kServiceLevel = "service_level";
inline constexpr const char *kInlineBytes = "inline_bytes";
inline constexpr const char *kTxDepth = "tx_depth";
inline constexpr const char *kPostList = "post_list";
inline constexpr const char *kCqModeration = "cq_moderation";
// The TCP baseline's axis: the address its server listens on; and derived, the processing
// units a loopback point bound its client and server threads to (absent: left unbound)
inline constexpr const char *kBindAddress = "bind_address";
inline constexpr const char *kClientPu = "client_pu";
inline constexpr const char *kServerPu = "server_pu";
// tcp_lat's axis: how each end waits for the next message, spinning on its socket or asleep
// until the kernel wakes it (rdma/tcp/tcp_socket.h SocketWait)
inline constexpr const char *kWait = "wait";
inline constexpr const char *kWaitSpin = "spin";
inline constexpr const char *kWaitSleep = "sleep";
// The pair matrices' axes: each pair's message sizes, the verb, the NICs and how ranks name their
// node, the planner's coverage and topology file, and what makes a pair bad (pairing: kPairing)
inline constexpr const char *kLatencySizeBytes = "latency_size_bytes";
inline constexpr const char *kBandwidthSizeBytes = "bandwidth_size_bytes";
inline constexpr const char *kVerb = "verb";
inline constexpr const char *kNics = "nics";
inline constexpr const char *kNodeIdentity = "node_identity";
inline constexpr const char *kCoverageK = "coverage_k";
// ... with coverage_k: plan only the cables no ledger saw exercised within this long (90m, 7d)
inline constexpr const char *kCoverSince = "cover_since";
inline constexpr const char *kTopology = "topology";
inline constexpr const char *kLatencyFactor = "latency_factor";
inline constexpr const char *kBandwidthFraction = "bandwidth_fraction";
// The fabric under load's axes (beside kReceiver, kQps, kLoad) and derived params: the flow
// label per QP, the probe's message size, and how many ranks sent or loaded
inline constexpr const char *kFlowLabel = "flow_label";
inline constexpr const char *kProbeSizeBytes = "probe_size_bytes";
inline constexpr const char *kSenders = "senders";
inline constexpr const char *kLoaders = "loaders";

// Metrics
inline constexpr const char *kBandwidthGbitsPerS = "bandwidth_gbits_per_s"; // median time
inline constexpr const char *kBandwidthMaxGbitsPerS = "bandwidth_max_gbits_per_s";
// perftest imports: its "BW peak" column (the server side's 0.00 is left out)
inline constexpr const char *kBandwidthPeakGbitsPerS = "bandwidth_peak_gbits_per_s";
inline constexpr const char *kBidirectionalGbitsPerS = "bidirectional_gbits_per_s"; // both sides
inline constexpr const char *kMessageRatePerS = "message_rate_per_s";
inline constexpr const char *kMessagesPerCall = "messages_per_call"; // one timed call posts these
// Latency points: {min_s, p50_s, p90_s, p99_s, p99_9_s, max_s, mean_s, stdev_s, n}
inline constexpr const char *kLatency = "latency";
inline constexpr const char *kLatencyN = "n"; // round trips summarised
inline constexpr const char *kMinS = "min_s";
inline constexpr const char *kP50S = "p50_s";
inline constexpr const char *kP90S = "p90_s";
inline constexpr const char *kP99S = "p99_s";
inline constexpr const char *kP99_9S = "p99_9_s";
inline constexpr const char *kMaxS = "max_s";
inline constexpr const char *kMeanS = "mean_s";
inline constexpr const char *kStdevS = "stdev_s";
// Port counters after minus before: {"counters": {name: delta}, "hw_counters": {...}}
inline constexpr const char *kPortCounterDeltas = "port_counter_deltas";
inline constexpr const char *kVerified = metric::kVerified;
// Fabric under load. The derived param `role` says which end a record is: sender | receiver
// (incast, qp_scaling), probe | probe_receiver | loader (latency_under_load).
// {min, median, max, sum, jain_fairness_index, min_over_fair_share, values}, Gb/s
inline constexpr const char *kPerQpGbitsPerS = "per_qp_gbits_per_s";     // a sender's QPs
inline constexpr const char *kPerFlowGbitsPerS = "per_flow_gbits_per_s"; // a receiver's flows
// ... their fields beside kJainFairnessIndex (rdma/fabric_load/fabric_figures.h)
inline constexpr const char *kSpreadMin = "min";
inline constexpr const char *kSpreadMedian = "median";
inline constexpr const char *kSpreadMax = "max";
inline constexpr const char *kSpreadSum = "sum";
inline constexpr const char *kSpreadMinOverFairShare = "min_over_fair_share";
inline constexpr const char *kSpreadValues = "values";
inline constexpr const char *kJainFairnessIndex = "jain_fairness_index"; // 1/n..1
inline constexpr const char *kAggregateGbitsPerS = "aggregate_gbits_per_s";
inline constexpr const char *kAggregateOverLineRate = "aggregate_over_line_rate";
// {"counters": {pfc_pause_frames_rx, cnp_sent, ...: delta}, "absent": [names]}
inline constexpr const char *kCongestion = "congestion";
// ... its fields: the congestion counters that moved, by figure, and the figures this NIC has no
// counter for (rdma/fabric_load/fabric_figures.cpp)
inline constexpr const char *kCongestionCounters = "counters";
inline constexpr const char *kCongestionAbsent = "absent";
inline constexpr const char *kPfcPauseFraction = "pfc_pause_fraction"; // paused s / phase s
inline constexpr const char *kLatencyIdle = "latency_idle";        // as kLatency, before the load
inline constexpr const char *kLoadedOverIdle = "loaded_over_idle"; // {p50, p99, p99_9}
// ... its fields: loaded over idle at each percentile (rdma/fabric_load/fabric_figures.cpp)
inline constexpr const char *kLoadedOverIdleP50 = "p50";
inline constexpr const char *kLoadedOverIdleP99 = "p99";
inline constexpr const char *kLoadedOverIdleP99_9 = "p99_9";
inline constexpr const char *kLatencyDefinition = "latency_definition"; // "round trip / 2 ..."
// An incast receiver's flows [{rank, gbits_per_s, device}] and every end [{rank, role, device,
// congestion}]; the port's rate; the seconds the counters' deltas span
inline constexpr const char *kFlows = "flows";
inline constexpr const char *kEnds = "ends";
inline constexpr const char *kEndRank = "rank";     // a flow's or an end's rank
inline constexpr const char *kEndDevice = "device"; // ... and its record's device: {nic, port}
inline constexpr const char *kFlowGbitsPerS = "gbits_per_s"; // a flow's rate
inline constexpr const char *kLineRateGbitsPerS = "line_rate_gbits_per_s";
inline constexpr const char *kPhaseS = "phase_s";
// The loaders' streams behind a probe, as per_flow_gbits_per_s
inline constexpr const char *kLoadGbitsPerS = "load_gbits_per_s";
// A sender's flow label and RoCEv2 UDP source port per QP: {flow_labels, udp_source_ports,
// udp_source_port_origin}; on InfiniBand {flow_labels: "not applicable: ..."}
inline constexpr const char *kFlowEntropy = "flow_entropy";
inline constexpr const char *kFlowLabels = "flow_labels";
inline constexpr const char *kUdpSourcePorts = "udp_source_ports";
inline constexpr const char *kUdpSourcePortOrigin = "udp_source_port_origin";
// The server end of a pair's point (rank 1): kRole "server" and the messages it answered; a pair
// matrix rank's count of the pairs it played
inline constexpr const char *kRoleServer = "server";
inline constexpr const char *kRoleClient = "client"; // a this_rank_pairs entry's measuring end
inline constexpr const char *kMessagesServed = "messages_served";
inline constexpr const char *kPairsPlayedByThisRank = "pairs_played_by_this_rank";

// Written beside the figures: what the data check compared, how the point was set up,
// where a multi-part point's slowest part is
inline constexpr const char *kMessagesMeasured = "messages_measured";
inline constexpr const char *kMessagesCompleted = "messages_completed";
inline constexpr const char *kRoundTripsMeasured = "round_trips_measured";
inline constexpr const char *kRoundTripsKept = "round_trips_kept";
inline constexpr const char *kPeerBandwidthGbitsPerS = "peer_bandwidth_gbits_per_s";
inline constexpr const char *kPeerPortCounterDeltas = "peer_port_counter_deltas";
inline constexpr const char *kServerMessages = "server_messages";
inline constexpr const char *kServerRefusedConnections = "server_refused_connections";
inline constexpr const char *kTcpCounterDeltas = "tcp_counter_deltas";
inline constexpr const char *kWrongBytes = "wrong_bytes";
inline constexpr const char *kThisRankPairs = "this_rank_pairs";
inline constexpr const char *kEndpoints = "endpoints";
inline constexpr const char *kPairing = "pairing";
inline constexpr const char *kRounds = "rounds";
inline constexpr const char *kPairs = "pairs";
inline constexpr const char *kFleetMinLatencyS = "fleet_min_latency_s";
inline constexpr const char *kFleetMaxBandwidthGbitsPerS = "fleet_max_bandwidth_gbits_per_s";
inline constexpr const char *kBadPairs = "bad_pairs";
inline constexpr const char *kRetests = "retests";
inline constexpr const char *kFindings = "findings";
// pairing "coverage" (-a coverage_k=K): the planner's account of its rounds, and the matrix NICs
// the topology file does not hold
inline constexpr const char *kCoveragePlan = "coverage_plan";
inline constexpr const char *kCoverageMissing = "coverage_missing";
// The pair matrix's objects, as its writer (rdma/pair_matrix_run.cpp) and the report
// (analysis/report/matrix_sections.cpp) name their fields: an endpoint {endpoint, rank, node,
// rail, label, host, device} (host and device since the matrix's findings are judged by check;
// older records name them in the label alone); a pair {endpoints, latency_p50_s,
// bandwidth_gbits_per_s, error}; a bad pair {endpoints, labels, why}; a finding {kind, endpoints,
// labels, text}
inline constexpr const char *kMatrixEndpoint = "endpoint";
inline constexpr const char *kMatrixRank = kEndRank;
inline constexpr const char *kMatrixNode = "node";
inline constexpr const char *kMatrixRail = "rail";
inline constexpr const char *kMatrixLabel = "label";
inline constexpr const char *kMatrixHost = "host";
inline constexpr const char *kMatrixDevice = "device"; // the RDMA device; absent over TCP
inline constexpr const char *kMatrixEndpoints = kEndpoints;
inline constexpr const char *kMatrixLatencyP50S = "latency_p50_s";
inline constexpr const char *kMatrixError = "error";
inline constexpr const char *kMatrixLabels = "labels";
inline constexpr const char *kMatrixWhy = "why";
inline constexpr const char *kMatrixFindingKind = "kind";
inline constexpr const char *kMatrixFindingText = "text";

// The field table: every metric a rdma record may carry, its unit and what it means
// (records/metric_field.h). tests/analysis/record_contract_test.cpp holds it to the schema.
inline constexpr std::array kMetrics{
    MetricField{kBandwidthGbitsPerS, "Gb/s", "bits moved per call over the median time"},
    MetricField{kBandwidthMaxGbitsPerS, "Gb/s", "bits moved per call over the fastest call"},
    MetricField{kBandwidthPeakGbitsPerS, "Gb/s", "perftest imports: its BW peak column"},
    MetricField{kBidirectionalGbitsPerS, "Gb/s", "both directions at once, summed"},
    MetricField{kMessageRatePerS, "1/s", "messages per second at the median time"},
    MetricField{kMessagesPerCall, "count", "messages one timed call posts"},
    MetricField{kLatency, "s", "the latency summary: min, p50 ... p99_9, max, mean, stdev, n"},
    MetricField{kPortCounterDeltas, "", "port counters after minus before the point"},
    MetricField{kVerified, "", "the point's data check passed"},
    MetricField{kPerQpGbitsPerS, "Gb/s", "a sender's QPs: min, median, max, sum, fairness, values"},
    MetricField{kPerFlowGbitsPerS, "Gb/s", "an incast receiver's flows, as per_qp_gbits_per_s"},
    MetricField{kJainFairnessIndex, "ratio", "(sum x)^2 / (n sum x^2) over the flows or QPs"},
    MetricField{kAggregateGbitsPerS, "Gb/s", "incast receiver: its flows summed"},
    MetricField{kAggregateOverLineRate, "ratio",
                "incast receiver: the aggregate over the port's rate"},
    MetricField{kCongestion, "",
                "this end's congestion counter deltas, and those the device lacks"},
    MetricField{kPfcPauseFraction, "ratio", "PFC pause time over the phase's seconds"},
    MetricField{kLatencyIdle, "s", "latency_under_load: the probe's latency before the load"},
    MetricField{kLoadedOverIdle, "ratio",
                "latency_under_load: loaded over idle latency at p50, p99, p99.9"},
    MetricField{kLatencyDefinition, "", "what a latency figure is (round trip / 2)"},
    MetricField{kFlows, "", "incast receiver: each sender's rank, rate and device"},
    MetricField{kEnds, "", "every end of the round with its congestion counter deltas"},
    MetricField{kLineRateGbitsPerS, "Gb/s", "incast receiver: its port's rate from sysfs"},
    MetricField{kPhaseS, "s", "the seconds the counter deltas span"},
    MetricField{kLoadGbitsPerS, "Gb/s", "latency_under_load probe: the loaders' streams"},
    MetricField{kFlowEntropy, "", "a sender's flow label and RoCEv2 UDP source port per QP"},
    MetricField{kRole, "", "the server end of a pair's point says so: server"},
    MetricField{kMessagesServed, "count", "the messages the server end of a pair's point answered"},
    MetricField{kPairsPlayedByThisRank, "count", "pair matrix: the pairs this rank took part in"},
    MetricField{kMessagesMeasured, "count", "iterations=N: messages the timed calls carried"},
    MetricField{kMessagesCompleted, "count", "messages completed in the point"},
    MetricField{kRoundTripsMeasured, "count", "latency: round trips timed"},
    MetricField{kRoundTripsKept, "count", "latency: round trips in the percentiles"},
    MetricField{kPeerBandwidthGbitsPerS, "Gb/s", "bidirectional: the peer's direction"},
    MetricField{kPeerPortCounterDeltas, "", "the peer's port counter deltas"},
    MetricField{kServerMessages, "count", "messages the serving side handled"},
    MetricField{kServerRefusedConnections, "count", "TCP: connections the server refused"},
    MetricField{kTcpCounterDeltas, "", "TCP: the kernel's TCP counter deltas"},
    MetricField{kWrongBytes, "bytes", "bytes the data check found wrong"},
    MetricField{kThisRankPairs, "", "pair matrix: the pairs this rank took part in"},
    MetricField{kEndpoints, "", "pair matrix: the NICs of the matrix"},
    MetricField{kPairing, "", "pair matrix: how the pairs were formed"},
    MetricField{kRounds, "", "pair matrix: the rounds of disjoint pairs"},
    MetricField{kPairs, "", "pair matrix: every pair measured, with its figures"},
    MetricField{kFleetMinLatencyS, "s", "pair matrix: the best pair's latency"},
    MetricField{kFleetMaxBandwidthGbitsPerS, "Gb/s", "pair matrix: the best pair's bandwidth"},
    MetricField{kBadPairs, "", "pair matrix: the pairs judged bad"},
    MetricField{kRetests, "", "pair matrix: the retests of the bad pairs"},
    MetricField{kFindings, "", "pair matrix: what the isolation concluded"},
    MetricField{kCoveragePlan, "",
                "pair matrix, coverage_k=K: the planner's account of its rounds"},
    MetricField{kCoverageMissing, "",
                "pair matrix, coverage_k=K: the NICs the topology file lacks"},
};

// A point of a pair's latency or bandwidth (rdma.<verb>_lat, rdma.<verb>_bw: verbs, TCP,
// atomics, and perftest's imports), read: the typed view through which analysis reads them.
struct PairPointView {
  std::string key;
  std::string verb;    // "write", "read", "send", "tcp", "atomic"
  bool latency = true; // *_lat; else *_bw
  std::optional<double> size_bytes;
  std::optional<LatencyFields> latency_s; // *_lat with metrics.latency
  std::optional<double> time_s;           // the median call (bandwidth: messages_per_call of them)
  double messages_per_call = 1;
  std::optional<double> bandwidth_gbits_per_s;
};

// The view of an rdma.<verb>_lat or rdma.<verb>_bw record, else nullopt (the pair matrix, the
// fabric under load, other families).
inline std::optional<PairPointView> pair_point_view(const Record &r) {
  namespace f = record_fields;
  if (!f::in_family(r, kFamily))
    return std::nullopt;
  const std::string name = f::name_in_family(r.key);
  const auto us = name.rfind('_');
  if (us == std::string::npos || us == 0)
    return std::nullopt;
  const std::string what = name.substr(us + 1);
  if (what != "lat" && what != "bw")
    return std::nullopt;
  PairPointView v;
  v.key = r.key;
  v.verb = name.substr(0, us);
  v.latency = what == "lat";
  v.size_bytes = f::number(r.params, kSizeBytes);
  v.latency_s = LatencyFields::read(r.metrics, kLatency);
  v.time_s = f::median_time_s(r.metrics);
  if (const auto bandwidth = BandwidthFields::read(r.metrics)) {
    v.messages_per_call =
        std::max(1.0, static_cast<double>(bandwidth->messages_per_call.value_or(1)));
    v.bandwidth_gbits_per_s = bandwidth->gbits_per_s;
  }
  return v;
}

} // namespace railgauge::rdma::record
