// GID choice on fake sysfs trees: a RoCE port with RoCEv1/v2 over link-local, IPv6 and IPv4
// addresses, and an InfiniBand port.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "harness/error.h"
#include "rdma/gid_select.h"

namespace railgauge::rdma {
namespace {

namespace fs = std::filesystem;

class FakeSysfs : public ::testing::Test {
protected:
  FakeSysfs()
      : root_(fs::temp_directory_path() /
              ("railgauge_gid_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(root_);
  }
  ~FakeSysfs() override { fs::remove_all(root_); }
  void write(const fs::path &file, const std::string &text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text << "\n";
  }
  // One GID entry; an empty type leaves the types/ file out (unused entries refuse reads).
  void gid(const std::string &dev, int index, const std::string &gid, const std::string &type) {
    const fs::path port = root_ / "class/infiniband" / dev / "ports/1";
    write(port / "gids" / std::to_string(index), gid);
    if (!type.empty())
      write(port / "gid_attrs/types" / std::to_string(index), type);
  }
  void link_layer(const std::string &dev, const std::string &layer) {
    write(root_ / "class/infiniband" / dev / "ports/1/link_layer", layer);
  }
  fs::path root_;
};

constexpr const char *kZero = "0000:0000:0000:0000:0000:0000:0000:0000";
constexpr const char *kLinkLocal = "fe80:0000:0000:0000:5c96:56ff:fe36:b12a";
constexpr const char *kIpv4 = "0000:0000:0000:0000:0000:ffff:c612:0001";
constexpr const char *kIpv6 = "2001:0db8:0000:0000:0000:0000:0000:0001";

TEST_F(FakeSysfs, RoceCxPrefersRoceV2OverIpv4) {
  // The mlx5 layout: each address twice, v1 then v2.
  link_layer("mlx5_0", "Ethernet");
  gid("mlx5_0", 0, kLinkLocal, "IB/RoCE v1");
  gid("mlx5_0", 1, kLinkLocal, "RoCE v2");
  gid("mlx5_0", 2, kIpv6, "IB/RoCE v1");
  gid("mlx5_0", 3, kIpv6, "RoCE v2");
  gid("mlx5_0", 4, kIpv4, "IB/RoCE v1");
  gid("mlx5_0", 5, kIpv4, "RoCE v2");
  gid("mlx5_0", 6, kZero, "");
  const PortGids port = read_port_gids(root_.string(), "mlx5_0", 1);
  EXPECT_EQ(port.link_layer, LinkLayer::ethernet);
  ASSERT_EQ(port.entries.size(), 6u); // the zero entry is not usable
  const GidChoice c = choose_gid(port, std::nullopt);
  EXPECT_EQ(c.index, 5);
  EXPECT_EQ(c.type, GidType::roce_v2);
  EXPECT_NE(c.why.find("IPv4-mapped"), std::string::npos) << c.why;
}

TEST_F(FakeSysfs, RoceWithoutIpv4TakesGlobalV2ThenLinkLocalV2) {
  link_layer("rxe0", "Ethernet");
  gid("rxe0", 0, kLinkLocal, "RoCE v2");
  gid("rxe0", 1, kIpv6, "RoCE v2");
  EXPECT_EQ(choose_gid(read_port_gids(root_.string(), "rxe0", 1), std::nullopt).index, 1);
  fs::remove(root_ / "class/infiniband/rxe0/ports/1/gids/1");
  EXPECT_EQ(choose_gid(read_port_gids(root_.string(), "rxe0", 1), std::nullopt).index, 0);
}

TEST_F(FakeSysfs, RoceV1OnlyPortFallsBackToV1Ipv4) {
  link_layer("mlx4_0", "Ethernet");
  gid("mlx4_0", 0, kLinkLocal, "IB/RoCE v1");
  gid("mlx4_0", 1, kIpv4, "IB/RoCE v1");
  const GidChoice c = choose_gid(read_port_gids(root_.string(), "mlx4_0", 1), std::nullopt);
  EXPECT_EQ(c.index, 1);
  EXPECT_EQ(c.type, GidType::roce_v1);
}

TEST_F(FakeSysfs, InfinibandUsesIndexZero) {
  link_layer("mlx5_1", "InfiniBand");
  gid("mlx5_1", 0, "fe80:0000:0000:0000:b859:9f03:00a1:b2c3", "IB/RoCE v1");
  const GidChoice c = choose_gid(read_port_gids(root_.string(), "mlx5_1", 1), std::nullopt);
  EXPECT_EQ(c.index, 0);
  EXPECT_EQ(c.type, GidType::ib);
  EXPECT_NE(c.why.find("LID"), std::string::npos);
}

TEST_F(FakeSysfs, OverrideMustNameAUsableEntry) {
  link_layer("mlx5_0", "Ethernet");
  gid("mlx5_0", 0, kLinkLocal, "IB/RoCE v1");
  gid("mlx5_0", 1, kLinkLocal, "RoCE v2");
  gid("mlx5_0", 2, kZero, "");
  const PortGids port = read_port_gids(root_.string(), "mlx5_0", 1);
  EXPECT_EQ(choose_gid(port, 0).index, 0);
  try {
    choose_gid(port, 2);
    FAIL() << "an empty GID entry was accepted";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("1: RoCEv2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(choose_gid(port, 9), InputError);
}

TEST_F(FakeSysfs, MissingPortIsABackendErrorAndNoGidAnInputError) {
  EXPECT_THROW(read_port_gids(root_.string(), "nothere", 1), BackendError);
  link_layer("mlx5_0", "Ethernet");
  gid("mlx5_0", 0, kZero, "");
  EXPECT_THROW(choose_gid(read_port_gids(root_.string(), "mlx5_0", 1), std::nullopt), InputError);
}

TEST(GidText, ScopeHelpers) {
  EXPECT_TRUE(is_ipv4_mapped(kIpv4));
  EXPECT_FALSE(is_ipv4_mapped(kIpv6));
  EXPECT_TRUE(is_link_local(kLinkLocal));
  EXPECT_FALSE(is_link_local(kIpv4));
}

} // namespace
} // namespace railgauge::rdma
