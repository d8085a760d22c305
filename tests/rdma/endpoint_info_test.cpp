#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/error.h"
#include "rdma/endpoint_info.h"

namespace railgauge::rdma {
namespace {

TEST(EndpointInfo, RoundTripsThroughText) {
  EndpointInfo e;
  e.lid = 17;
  e.gid_index = 3;
  e.gid = gid_from_text("0000:0000:0000:0000:0000:ffff:c612:0001");
  e.ethernet = true;
  e.mtu_bytes = 4096;
  e.qpns = {0x11, 0x12};
  e.psns = {0xabcdef, 0x123456};
  e.addr = 0x7f0000001000;
  e.rkey = 0x28e;
  e.region_bytes = 8192;
  e.control_addr = 0x7f0000200000; // GPU slots: the control word lies elsewhere, with its own key
  e.control_rkey = 0x31f;
  const EndpointInfo back = EndpointInfo::parse(e.serialize());
  EXPECT_EQ(back.lid, 17);
  EXPECT_EQ(back.gid_index, 3);
  EXPECT_EQ(back.gid, e.gid);
  EXPECT_TRUE(back.ethernet);
  EXPECT_EQ(back.qpns, e.qpns);
  EXPECT_EQ(back.psns, e.psns);
  EXPECT_EQ(back.addr, e.addr);
  EXPECT_EQ(back.rkey, e.rkey);
  EXPECT_EQ(back.region_bytes, 8192u);
  EXPECT_EQ(back.control_addr, e.control_addr);
  EXPECT_EQ(back.control_rkey, e.control_rkey);
  EXPECT_EQ(gid_to_text(back.gid), "0000:0000:0000:0000:0000:ffff:c612:0001");
}

TEST(EndpointInfo, MalformedInputNamesTheProblem) {
  EXPECT_THROW(EndpointInfo::parse("client failed"), BackendError);
  EXPECT_THROW(EndpointInfo::parse("{\"lid\":1}"), BackendError);
  EndpointInfo e;
  e.qpns = e.psns = {1};
  auto j = nlohmann::json::parse(e.serialize());
  j.erase("control_rkey"); // a peer of an older railgauge
  EXPECT_THROW(EndpointInfo::parse(j.dump()), BackendError);
  j = nlohmann::json::parse(e.serialize());
  j["control_addr"] = 1e30; // a float cast to an address would be undefined
  EXPECT_THROW(EndpointInfo::parse(j.dump()), BackendError);
  const auto why = [&](const char *field, nlohmann::json value) -> std::string {
    EndpointInfo good;
    good.mtu_bytes = 1024;
    good.qpns = good.psns = {1};
    good.addr = 0x1000;
    auto bad = nlohmann::json::parse(good.serialize());
    bad[field] = value;
    try {
      EndpointInfo::parse(bad.dump());
    } catch (const BackendError &e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ(why("mtu_bytes", 2048), "accepted");
  EXPECT_NE(why("mtu_bytes", 0).find("'mtu_bytes' is 0, not an InfiniBand MTU"), std::string::npos);
  EXPECT_NE(why("mtu_bytes", 4095).find("not an InfiniBand MTU"), std::string::npos);
  EXPECT_NE(why("qpns", nlohmann::json::array({0x1000000}))
                .find("'qpns' is 16777216, not a whole number in 0..16777215"),
            std::string::npos);
  EXPECT_NE(why("psns", nlohmann::json::array({0x1000000})).find("'psns' is 16777216"),
            std::string::npos);
  EXPECT_NE(why("region_bytes", UINT64_MAX).find("wraps around"), std::string::npos);
  EXPECT_THROW(gid_from_text("fe80::1"), BackendError);
  EXPECT_THROW(gid_from_text("zz80:0000:0000:0000:0000:0000:0000:0001"), BackendError);
}

// What the peer sends is checked against what this side will do with it before any QP moves.
TEST(EndpointInfo, ConnectionMismatchNamesWhatDiffers) {
  EndpointInfo remote;
  remote.qpns = remote.psns = {1, 2};
  remote.ethernet = true;
  remote.region_bytes = 2 * 65536;
  EXPECT_EQ(connection_mismatch(remote, 2, true, 2 * 65536), std::nullopt);
  EXPECT_NE(connection_mismatch(remote, 4, true, 2 * 65536)->find("peer has 2 QPs, this side 4"),
            std::string::npos);
  EXPECT_NE(connection_mismatch(remote, 2, false, 2 * 65536)->find("RoCE and the other InfiniBand"),
            std::string::npos);
  EXPECT_NE(connection_mismatch(remote, 2, true, 2 * 1048576)
                ->find("peer registered 131072 bytes, this point reaches 2097152"),
            std::string::npos);
}

} // namespace
} // namespace railgauge::rdma
