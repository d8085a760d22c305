// TCP and network-device counters from a fake /proc and /sys tree (the layout the kernel
// writes), and from this machine's own.
#include "harness/inventory/tcp_counters.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace railgauge {
namespace {

namespace fs = std::filesystem;

class FakeTree : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("railgauge-tcp-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "proc/net");
    fs::create_directories(root_ / "sys/class/net/eth0/statistics");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path &file, const std::string &text) { std::ofstream(root_ / file) << text; }
  // Two lines per table as the kernel writes them; Tcp's MaxConn is -1.
  void snapshot(int retrans, int crc) {
    write("proc/net/snmp", "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
                           "Tcp: RtoAlgorithm MaxConn InSegs RetransSegs InErrs OutRsts\n"
                           "Tcp: 1 -1 1000 " +
                               std::to_string(retrans) + " 0 3\n");
    write("proc/net/netstat", "TcpExt: SyncookiesSent TCPTimeouts TCPLostRetransmit\n"
                              "TcpExt: 0 " +
                                  std::to_string(retrans / 2) + " 1\n");
    write("sys/class/net/eth0/statistics/rx_crc_errors", std::to_string(crc) + "\n");
    write("sys/class/net/eth0/statistics/rx_errors", "0\n");
  }
  std::string proc() const { return (root_ / "proc").string(); }
  std::string sys() const { return (root_ / "sys").string(); }
  fs::path root_;
};

TEST_F(FakeTree, DeltasShowRetransmissionsAndDeviceErrors) {
  snapshot(10, 0);
  const TcpCounters before = read_tcp_counters(proc(), sys(), "eth0");
  EXPECT_EQ(before.tcp.at("RetransSegs"), 10u);
  EXPECT_FALSE(before.tcp.count("MaxConn")); // -1 is a setting, not a counter
  EXPECT_EQ(before.tcp_ext.at("TCPTimeouts"), 5u);
  EXPECT_FALSE(before.tcp_ext.count("SyncookiesSent")); // not a loss or timeout counter
  EXPECT_TRUE(before.unreadable.empty());
  snapshot(250, 7);
  const auto d = counter_deltas(before, read_tcp_counters(proc(), sys(), "eth0"));
  EXPECT_EQ(d["host_tcp"]["RetransSegs"], 240);
  EXPECT_EQ(d["host_tcp"]["InSegs"], 0);
  EXPECT_EQ(d["host_tcp_ext"]["TCPTimeouts"], 120);
  EXPECT_EQ(d["netdev"], "eth0");
  EXPECT_EQ(d["netdev_statistics"]["rx_crc_errors"], 7);
  EXPECT_FALSE(d.contains("unreadable"));
}

TEST_F(FakeTree, MissingOrMalformedFilesAreNamedNotFatal) {
  write("proc/net/snmp", "Tcp: RtoAlgorithm RetransSegs\nTcp: 1\n");
  write("sys/class/net/eth0/statistics/rx_errors", "many\n");
  const TcpCounters c = read_tcp_counters(proc(), sys(), "eth0");
  EXPECT_TRUE(c.tcp.empty());
  const std::vector<std::string> expected = {"net/snmp: Tcp: header and values differ in length",
                                             "net/netstat: cannot open",
                                             "statistics/rx_errors: not an integer: 'many'"};
  EXPECT_EQ(c.unreadable, expected);
  EXPECT_EQ(counter_deltas(c, c)["unreadable"].size(), 3u);
}

TEST(TcpCounters, ThisMachinesLoopback) {
  EXPECT_EQ(netdev_of_address("127.0.0.1"), "lo");
  EXPECT_EQ(netdev_of_address("192.0.2.77"), ""); // TEST-NET-1: on no device here
  EXPECT_EQ(netdev_of_address("eth0"), "");       // a name is not an address
  const TcpCounters c = read_tcp_counters("/proc", "/sys", "lo");
  EXPECT_TRUE(c.tcp.count("RetransSegs")) << ::testing::PrintToString(c.unreadable);
  EXPECT_TRUE(c.netdev_stats.count("rx_packets"));
}

} // namespace
} // namespace railgauge
