// The arithmetic of the fabric-load benchmarks: Jain's index and the flow spread, the incast's
// ranks, flow labels and the UDP source ports the kernel derives from them, the port rate, the
// congestion figures of one end (absent ones absent) and loaded over idle latency.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "rdma/fabric_load/fabric_figures.h"
#include "rdma/fabric_load/fabric_load_spec.h"
#include "records/rdma_record.h"

namespace railgauge::rdma {
namespace {

TEST(JainIndex, EqualFlowsAreOneAndOneFlowTakingAllIsOneOverN) {
  EXPECT_DOUBLE_EQ(jain_fairness_index({5, 5, 5, 5}), 1.0);
  EXPECT_DOUBLE_EQ(jain_fairness_index({8, 0, 0, 0}), 0.25);
  EXPECT_DOUBLE_EQ(jain_fairness_index({7}), 1.0);
}

TEST(JainIndex, OneFlowAtHalfItsShareAmongSeven) {
  // (6 + 0.5)^2 / (7 * (6 + 0.25)) = 42.25 / 43.75
  EXPECT_NEAR(jain_fairness_index({1, 1, 1, 1, 1, 1, 0.5}), 42.25 / 43.75, 1e-12);
  // Scale does not matter.
  EXPECT_NEAR(jain_fairness_index({100, 100, 100, 100, 100, 100, 50}), 42.25 / 43.75, 1e-12);
}

TEST(JainIndex, NoFlowsNegativeNonFiniteOrAllZeroAreRefused) {
  EXPECT_THROW(jain_fairness_index({}), std::invalid_argument);
  EXPECT_THROW(jain_fairness_index({1, -1}), std::invalid_argument);
  EXPECT_THROW(jain_fairness_index({1, std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
  EXPECT_THROW(jain_fairness_index({0, 0}), std::invalid_argument);
}

TEST(FlowSpread, MinMedianMaxSumAndTheSlowestAgainstAFairShare) {
  const std::vector<double> flows = {90, 100, 110, 40};
  const auto s = flow_spread(flows);
  EXPECT_DOUBLE_EQ(*s.min, 40);
  EXPECT_DOUBLE_EQ(*s.max, 110);
  EXPECT_DOUBLE_EQ(*s.median, 95);
  EXPECT_DOUBLE_EQ(*s.sum, 340);
  EXPECT_DOUBLE_EQ(*s.min_over_fair_share, 40 / 85.0);
  EXPECT_EQ(s.values, flows);
  nlohmann::json metrics = nlohmann::json::object();
  s.write(metrics, record::kPerFlowGbitsPerS);
  const auto &j = metrics[record::kPerFlowGbitsPerS];
  EXPECT_EQ(j[record::kSpreadValues].size(), 4u);
  EXPECT_DOUBLE_EQ(j[record::kJainFairnessIndex].get<double>(), jain_fairness_index(flows));
  EXPECT_EQ(record::FlowSpreadFields::read(metrics, record::kPerFlowGbitsPerS), s);
}

TEST(IncastPlan, EveryOtherRankSendsAndABadReceiverIsRefused) {
  const IncastPlan p = incast_plan(4, 2);
  EXPECT_EQ(p.receiver, 2);
  EXPECT_EQ(p.senders, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(incast_plan(2, 0).senders, std::vector<int>{1});
  EXPECT_THROW(incast_plan(4, 4), std::invalid_argument);
  EXPECT_THROW(incast_plan(4, -1), std::invalid_argument);
  EXPECT_THROW(incast_plan(1, 0), std::invalid_argument);
}

TEST(FlowLabels, TheKernelsSourcePortFormula) {
  // rdma_flow_label_to_udp_sport: low 14 bits xor bits 14..19, ORed into 0xC000.
  EXPECT_EQ(roce_udp_source_port(0x12345), 0xE341);
  EXPECT_EQ(roce_udp_source_port(1), 0xC001);
  EXPECT_EQ(roce_udp_source_port(0), 0xC000);
  // rdma_calc_flow_label: (l * r) folded by >> 20 and >> 40, 20 bits.
  const std::uint64_t product = std::uint64_t{0x123456} * 0xabcdef;
  std::uint64_t fl = product ^ (product >> 20);
  fl ^= fl >> 40;
  EXPECT_EQ(roce_flow_label_of_qpns(0x123456, 0xabcdef), fl & 0xfffff);
}

TEST(FlowLabels, EverySenderAndQpHasItsOwnSourcePort) {
  std::set<std::uint16_t> ports;
  for (int sender = 0; sender < 64; ++sender)
    for (int qp = 0; qp < 255; ++qp) {
      const std::uint32_t label = flow_label_of(sender, qp);
      EXPECT_NE(label, 0u);
      EXPECT_TRUE(ports.insert(roce_udp_source_port(label)).second) << sender << " " << qp;
    }
  EXPECT_THROW(flow_label_of(64, 0), std::invalid_argument);
  EXPECT_THROW(flow_label_of(0, 255), std::invalid_argument);
}

TEST(PortRate, SysfsTextToGbits) {
  EXPECT_EQ(parse_port_rate_gbits("400 Gb/sec (4X NDR)"), 400.0);
  EXPECT_EQ(parse_port_rate_gbits("2.5 Gb/sec (1X SDR)\n"), 2.5);
  EXPECT_EQ(parse_port_rate_gbits("unknown"), std::nullopt);
  EXPECT_EQ(read_port_rate_gbits("/nonexistent", "mlx5_0", 1), std::nullopt);
}

TEST(Congestion, Mlx5CountersAreReadUnderDriverFreeNames) {
  const nlohmann::json deltas = {{"counters", {{"port_xmit_wait", 12}, {"symbol_error", 0}}},
                                 {"hw_counters",
                                  {{"np_cnp_sent", 5},
                                   {"rp_cnp_handled", 7},
                                   {"np_ecn_marked_roce_packets", 9},
                                   {"out_of_sequence", 1},
                                   {"local_ack_timeout_err", 2},
                                   {"packet_seq_err", 3}}},
                                 {"netdev_counters",
                                  {{"rx_prio3_pause", 100},
                                   {"tx_prio3_pause", 40},
                                   {"rx_prio3_pause_duration", 250000},
                                   {"tx_prio3_pause_duration", 80000},
                                   {"rx_discards_phy", 0}}}};
  const CongestionFigures f = congestion_figures(deltas);
  EXPECT_TRUE(f.absent.empty()) << nlohmann::json(f.absent).dump();
  EXPECT_EQ(f.present["pfc_pause_frames_rx"], 100);
  EXPECT_EQ(f.present["pfc_pause_frames_tx"], 40);
  EXPECT_EQ(f.present["pfc_pause_duration_rx_us"], 250000);
  EXPECT_EQ(f.present["cnp_sent"], 5);
  EXPECT_EQ(f.present["cnp_handled"], 7);
  EXPECT_EQ(f.present["ecn_marked"], 9);
  EXPECT_EQ(f.present["out_of_sequence"], 1);
  EXPECT_EQ(f.present["retransmits"], 5);
  EXPECT_EQ(f.present["xmit_wait"], 12);
  // The longer direction over the phase: 0.25 s paused in 2 s.
  EXPECT_DOUBLE_EQ(*pfc_pause_fraction(f, 2.0), 0.125);
}

TEST(Congestion, RxeHasNoPfcAndItIsSaidAbsentNotZero) {
  const nlohmann::json deltas = {
      {"counters", nlohmann::json::object()},
      {"hw_counters", {{"out_of_seq_request", 4}, {"completer_retry_err", 6}, {"rcvd_pkts", 9}}},
      {"netdev_counters", {{"rx_drops", 0}}}};
  const CongestionFigures f = congestion_figures(deltas);
  EXPECT_EQ(f.present["out_of_sequence"], 4);
  EXPECT_EQ(f.present["retransmits"], 6);
  for (const char *absent :
       {"pfc_pause_frames_rx", "pfc_pause_frames_tx", "pfc_pause_duration_rx_us",
        "pfc_pause_duration_tx_us", "cnp_sent", "cnp_handled", "ecn_marked", "xmit_wait"}) {
    EXPECT_FALSE(f.present.contains(absent)) << absent;
    EXPECT_NE(std::find(f.absent.begin(), f.absent.end(), absent), f.absent.end()) << absent;
  }
  EXPECT_EQ(pfc_pause_fraction(f, 1.0), std::nullopt);
  EXPECT_EQ(congestion_figures(nlohmann::json()).absent.size(), 10u);
}

TEST(LatencyRatios, LoadedOverIdleAtThreePercentiles) {
  record::LatencyFields idle, loaded;
  idle.p50_s = 2e-6;
  idle.p99_s = 4e-6;
  idle.p99_9_s = 8e-6;
  loaded.p50_s = 3e-6;
  loaded.p99_s = 40e-6;
  loaded.p99_9_s = 80e-6;
  const auto r = latency_ratios(loaded, idle);
  EXPECT_DOUBLE_EQ(r["p50"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(r["p99"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(r["p99_9"].get<double>(), 10);
}

TEST(FabricLoadSpec, DeviceListGoesRoundTheRanks) {
  EXPECT_EQ(device_for_rank("", 3), "");
  EXPECT_EQ(device_for_rank("rxe0,rxe1", 0), "rxe0");
  EXPECT_EQ(device_for_rank("rxe0,rxe1", 3), "rxe1");
  EXPECT_EQ(device_for_rank("mlx5_0", 5), "mlx5_0");
  EXPECT_EQ(device_for_rank("a,,b,", 1), "b");
}

} // namespace
} // namespace railgauge::rdma
