#pragma once
// The arithmetic of the fabric-under-load benchmarks (rdma.qp_scaling, rdma.incast,
// rdma.latency_under_load), free of verbs so that it is tested anywhere: how fair a set of flows
// is, which ranks take part in an incast, which flow label and UDP source port each QP gets on
// RoCEv2, the port's line rate as sysfs states it, and the congestion counters of one end read
// out of its port counter deltas (absent ones said absent, never zero).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "records/rdma_point_fields.h"

namespace railgauge::rdma {

// Jain's fairness index (sum x)^2 / (n * sum x^2): 1 when every flow gets the same, 1/n when one
// flow gets everything. Throws std::invalid_argument on no flows, a negative or non-finite value
// or all zero.
double jain_fairness_index(const std::vector<double> &flows);

// The spread of the flows as a record states it (records/rdma_point_fields.h): min, median, max,
// sum, Jain's index, the slowest against an equal share, and the values. Throws as
// jain_fairness_index does.
record::FlowSpreadFields flow_spread(const std::vector<double> &flows);

// The ranks of one incast: every rank but `receiver` sends to it. Throws std::invalid_argument
// when the receiver is not a rank of the world or the world has fewer than 2 ranks.
struct IncastPlan {
  int receiver = 0;
  std::vector<int> senders;
};
IncastPlan incast_plan(int world_size, int receiver);

// The GRH flow label railgauge sets on QP `qp` of sender `sender` (RoCEv2): distinct per sender
// and QP, non-zero, within 14 bits, so that each (sender, QP) gets its own UDP source port as
// the kernel derives it (rdma_flow_label_to_udp_sport): sender * 256 + qp + 1, for up to 64
// senders of 255 QPs (1..16383: every label a port of its own). std::invalid_argument past that.
std::uint32_t flow_label_of(int sender, int qp);
// The kernel's rdma_flow_label_to_udp_sport (include/rdma/ib_verbs.h): the label's low 14 bits
// xor its bits 14..19, in the RoCEv2 range 0xC000..0xFFFF. mlx5 and rxe use it when the label is
// set; with label 0 they use rdma_calc_flow_label(local QPN, remote QPN) first.
std::uint16_t roce_udp_source_port(std::uint32_t flow_label);
// The kernel's rdma_calc_flow_label: the label a driver derives from the two QPNs when none is
// set, so that distinct QPs still get distinct source ports.
std::uint32_t roce_flow_label_of_qpns(std::uint32_t local_qpn, std::uint32_t remote_qpn);

// "400 Gb/sec (4X NDR)" (sysfs ports/<n>/rate) -> 400; nullopt when the text holds no rate.
std::optional<double> parse_port_rate_gbits(const std::string &text);
// Reads <sysfs_root>/class/infiniband/<device>/ports/<port>/rate; nullopt when absent.
std::optional<double> read_port_rate_gbits(const std::string &sysfs_root, const std::string &device,
                                           unsigned port);

// The congestion figures of one end, out of a port's counter deltas (port_counters.h's JSON:
// counters, hw_counters, netdev_counters), under names that do not depend on the driver:
//   pfc_pause_frames_rx/_tx      netdev rx_prio<N>_pause / tx_prio<N>_pause (mlx5), summed
//   pfc_pause_duration_rx_us/_tx_us  netdev rx_prio<N>_pause_duration / tx_... (mlx5: us)
//   cnp_sent, cnp_handled         hw_counters np_cnp_sent, rp_cnp_handled (mlx5)
//   ecn_marked                    hw_counters np_ecn_marked_roce_packets (mlx5)
//   out_of_sequence               hw_counters out_of_sequence (mlx5), out_of_seq_request (rxe)
//   retransmits                   hw_counters local_ack_timeout_err + packet_seq_err (mlx5),
//                                 completer_retry_err (rxe)
//   xmit_wait                     counters port_xmit_wait (IB: ticks with data and no credit)
// A figure none of whose counters the device has is listed in "absent", never written as 0.
struct CongestionFigures {
  nlohmann::json present = nlohmann::json::object(); // name -> delta
  std::vector<std::string> absent;
};
CongestionFigures congestion_figures(const nlohmann::json &port_counter_deltas);
// {"counters": {...present...}, "absent": [...]}
nlohmann::json to_json(const CongestionFigures &figures);
// The longer PFC pause (either direction, the longest priority) over the phase's seconds;
// nullopt when the device has no pause-duration counter.
std::optional<double> pfc_pause_fraction(const CongestionFigures &figures, double phase_s);

// Loaded over idle for p50, p99 and p99.9 of two latency summaries: {"p50": .., "p99": ..,
// "p99_9": ..}, leaving out a figure whose idle value is not above 0. Throws
// std::bad_optional_access where a summary lacks one of the three.
nlohmann::json latency_ratios(const record::LatencyFields &loaded,
                              const record::LatencyFields &idle);

} // namespace railgauge::rdma
