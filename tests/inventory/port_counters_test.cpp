#include <gtest/gtest.h>

#include "harness/inventory/port_counters.h"
#include "tests/inventory/fixtures.h"

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

} // namespace
} // namespace railgauge
