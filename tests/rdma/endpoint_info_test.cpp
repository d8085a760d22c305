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
  EXPECT_THROW(gid_from_text("fe80::1"), BackendError);
  EXPECT_THROW(gid_from_text("zz80:0000:0000:0000:0000:0000:0000:0001"), BackendError);
}

} // namespace
} // namespace railgauge::rdma
