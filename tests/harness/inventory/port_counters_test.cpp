#include <gtest/gtest.h>

#include "harness/inventory/netdev_stats.h"
#include "harness/inventory/port_counters.h"
#include "tests/harness/inventory/fixtures.h"

namespace railgauge {
namespace {

TEST(PortCounters, ReadsCountersAndHwCountersOfOnePort) {
  const PortCounters port = read_port_counters(test::fake_sysfs(), "mlx5_0", 1);
  EXPECT_EQ(port.device, "mlx5_0");
  EXPECT_EQ(port.port, 1u);
  EXPECT_EQ(port.counters.at("port_xmit_data"), 123456789012ull);
  EXPECT_EQ(port.counters.at("port_rcv_data"), 98765432109ull);
  EXPECT_EQ(port.counters.at("link_downed"), 2u);
  EXPECT_EQ(port.counters.at("symbol_error"), 0u);
  EXPECT_EQ(port.counters.at("port_rcv_errors"), 5u);
  EXPECT_EQ(port.counters.at("port_xmit_packets"), 18446744073709551615ull); // full 64 bits
  EXPECT_EQ(port.hw_counters.at("np_cnp_sent"), 1024u);
  EXPECT_EQ(port.hw_counters.at("rp_cnp_handled"), 2048u);
  EXPECT_EQ(port.hw_counters.at("np_ecn_marked_roce_packets"), 4096u);
  EXPECT_EQ(port.hw_counters.at("out_of_sequence"), 7u);
  EXPECT_EQ(port.hw_counters.at("packet_seq_err"), 3u);
  EXPECT_EQ(port.hw_counters.at("local_ack_timeout_err"), 1u);
}

TEST(PortCounters, SaysWhichFilesItCouldNotRead) {
  const PortCounters port = read_port_counters(test::fake_sysfs(), "mlx5_0", 1);
  EXPECT_EQ(port.counters.count("port_xmit_wait"), 0u);
  ASSERT_EQ(port.unreadable.size(), 1u);
  EXPECT_NE(port.unreadable[0].find("counters/port_xmit_wait"), std::string::npos);
  EXPECT_NE(port.unreadable[0].find("N/A"), std::string::npos);
}

TEST(PortCounters, ReadsEveryPortOfEveryDevice) {
  const auto all = read_all_port_counters(test::fake_sysfs());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].device, "mlx5_0");
  EXPECT_EQ(all[1].device, "mlx5_1");
  EXPECT_EQ(all[1].counters.at("port_xmit_data"), 10u);
  EXPECT_TRUE(all[1].unreadable.empty());
}

TEST(PortCounters, MissingTreeIsEmptyNotAnError) {
  EXPECT_TRUE(read_all_port_counters("/nonexistent-sysfs").empty());
  const PortCounters port = read_port_counters("/nonexistent-sysfs", "mlx5_9", 1);
  EXPECT_TRUE(port.counters.empty());
  EXPECT_TRUE(port.hw_counters.empty());
}

TEST(PortCounters, DeltasAreAfterMinusBeforeForNamesInBoth) {
  const CounterMap before = {{"np_cnp_sent", 100}, {"out_of_sequence", 5}, {"gone", 1}};
  const CounterMap after = {{"np_cnp_sent", 250}, {"out_of_sequence", 2}, {"new", 9}};
  const auto deltas = counter_deltas(before, after);
  ASSERT_EQ(deltas.size(), 2u);
  EXPECT_EQ(deltas.at("np_cnp_sent"), 150);
  EXPECT_EQ(deltas.at("out_of_sequence"), -3); // reset between reads: visible, not hidden
}

TEST(PortCounters, DeltasOfAPortAsJson) {
  PortCounters before = read_port_counters(test::fake_sysfs(), "mlx5_0", 1);
  PortCounters after = before;
  after.hw_counters["np_ecn_marked_roce_packets"] += 10;
  after.counters["link_downed"] += 1;
  const nlohmann::json j = counter_deltas(before, after);
  EXPECT_EQ(j["device"], "mlx5_0");
  EXPECT_EQ(j["hw_counters"]["np_ecn_marked_roce_packets"], 10);
  EXPECT_EQ(j["counters"]["link_downed"], 1);
  EXPECT_EQ(j["counters"]["port_rcv_data"], 0);
}

TEST(PortCounters, JsonListsUnreadable) {
  const nlohmann::json j = to_json(read_port_counters(test::fake_sysfs(), "mlx5_0", 1));
  EXPECT_EQ(j["port"], 1);
  EXPECT_EQ(j["hw_counters"]["rp_cnp_handled"], 2048);
  EXPECT_EQ(j["unreadable"].size(), 1u);
}

// A RoCE port's netdev statistics (ethtool -S), through a stand-in for the NIC: only the fabric
// counters are kept, their deltas land beside the sysfs ones, and a failing read is reported.
TEST(PortCounters, NetdevFabricCountersOfARocePort) {
  std::uint64_t pauses = 10;
  const NetdevStatsReader nic = [&](const std::string &ifname) {
    EXPECT_EQ(ifname, "eth2"); // gid_attrs/ndevs/0 of mlx5_0 port 1
    return CounterMap{
        {"rx_prio3_pause", pauses}, {"tx_prio3_pause_duration", 2 * pauses}, {"rx_discards_phy", 1},
        {"rx_out_of_buffer", 4},    {"rx_vport_unicast_packets", 123456},    {"rx0_bytes", 99}};
  };
  const PortCounters before = read_port_counters(test::fake_sysfs(), "mlx5_0", 1, nic);
  EXPECT_EQ(before.netdev, "eth2");
  EXPECT_EQ(before.netdev_counters, (CounterMap{{"rx_discards_phy", 1},
                                                {"rx_out_of_buffer", 4},
                                                {"rx_prio3_pause", 10},
                                                {"tx_prio3_pause_duration", 20}}));
  pauses = 25;
  const PortCounters after = read_port_counters(test::fake_sysfs(), "mlx5_0", 1, nic);
  const auto deltas = counter_deltas(before, after);
  EXPECT_EQ(deltas["netdev"], "eth2");
  EXPECT_EQ(deltas["netdev_counters"]["rx_prio3_pause"], 15);
  EXPECT_EQ(deltas["netdev_counters"]["tx_prio3_pause_duration"], 30);
  EXPECT_EQ(deltas["netdev_counters"]["rx_discards_phy"], 0);

  const NetdevStatsReader broken = [](const std::string &) -> CounterMap {
    throw std::runtime_error("ethtool GSTATS on eth2: Operation not supported");
  };
  const PortCounters failed = read_port_counters(test::fake_sysfs(), "mlx5_0", 1, broken);
  EXPECT_TRUE(failed.netdev_counters.empty());
  EXPECT_EQ(failed.unreadable.back(),
            "netdev eth2: ethtool GSTATS on eth2: Operation not supported");
  // A recorded tree is another machine's: its netdev is never read through this one's ioctl.
  EXPECT_TRUE(read_port_counters(test::fake_sysfs(), "mlx5_0", 1).netdev_counters.empty());
}

TEST(NetdevStats, FabricCounterNames) {
  for (const char *kept : {"rx_prio3_pause", "tx_pause_ctrl_phy", "rx_discards_phy",
                           "rx_out_of_buffer", "np_ecn_marked_roce_packets", "PFC_rx_frames",
                           "tx_queue_dropped", "rx_ecn_mark", "np_cnp_sent"})
    EXPECT_TRUE(is_fabric_counter(kept)) << kept;
  for (const char *dropped : {"rx_bytes", "tx_packets", "rx0_cache_reuse", "ch_events"})
    EXPECT_FALSE(is_fabric_counter(dropped)) << dropped;
}

// The live ioctl on this machine's loopback: it has no driver statistics, which must read as
// an empty map or a clear error naming the device, never a crash.
TEST(NetdevStats, LiveEthtoolOnLoopbackIsEmptyOrAClearError) {
  try {
    EXPECT_TRUE(read_ethtool_stats("lo").empty());
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("on lo: "), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_ethtool_stats("no-such-nic0"), std::runtime_error);
}

// Many points' deltas summed counter by counter, each device named once; what is not a count
// (a name, a list) is left out, never thrown on.
TEST(PortCounters, DeltasOfManyPointsAddUp) {
  nlohmann::json total = {{"devices", nlohmann::json::array()}};
  add_counter_deltas(total, {{"device", "mlx5_0"},
                             {"port", 1},
                             {"counters", {{"symbol_error", 2}, {"link_downed", 0}}},
                             {"hw_counters", {{"np_cnp_sent", 5}}},
                             {"netdev", "eth0"},
                             {"netdev_counters", nlohmann::json::object()}});
  add_counter_deltas(total, {{"device", "mlx5_1"},
                             {"counters", {{"symbol_error", 1}, {"weird", "x"}}},
                             {"hw_counters", {{"np_cnp_sent", 7}, {"out_of_sequence", 3}}}});
  add_counter_deltas(total, {{"device", "mlx5_0"}, {"counters", {{"link_downed", 1}}}});
  add_counter_deltas(total, "not deltas");
  EXPECT_EQ(total.at("counters").at("symbol_error"), 3);
  EXPECT_EQ(total.at("counters").at("link_downed"), 1);
  EXPECT_FALSE(total.at("counters").contains("weird"));
  EXPECT_EQ(total.at("hw_counters").at("np_cnp_sent"), 12);
  EXPECT_EQ(total.at("hw_counters").at("out_of_sequence"), 3);
  EXPECT_EQ(total.at("devices"), (nlohmann::json{"mlx5_0", "mlx5_1"}));
  nlohmann::json from_null; // no "devices" yet
  add_counter_deltas(from_null, {{"device", "rxe0"}, {"counters", {{"a", 1}}}});
  EXPECT_EQ(from_null.at("counters").at("a"), 1);
  EXPECT_EQ(from_null.at("devices"), (nlohmann::json{"rxe0"}));
}

} // namespace
} // namespace railgauge
