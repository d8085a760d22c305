#include <gtest/gtest.h>

#include "records/bus_bandwidth.h"

namespace railgauge::collectives {
namespace {

// The nccl-tests factors (its doc/PERFORMANCE.md), for the rank counts of one node and a rack.
TEST(BusBandwidth, FactorsAreTheNcclTestsOnes) {
  EXPECT_DOUBLE_EQ(bus_factor(Kind::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::all_reduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::all_gather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::reduce_scatter, 64), 63.0 / 64);
  EXPECT_DOUBLE_EQ(bus_factor(Kind::alltoall, 4), 3.0 / 4);
  for (auto k : {Kind::broadcast, Kind::reduce, Kind::sendrecv})
    EXPECT_DOUBLE_EQ(bus_factor(k, 16), 1.0);
}

TEST(BusBandwidth, AlgbwIsSizeOverTimeInGBAndBusbwScalesIt) {
  // 1 GB in 10 ms: 100 GB/s algorithm bandwidth; all_reduce on 8 ranks: x 1.75.
  const auto b = bandwidth(Kind::all_reduce, 1'000'000'000, 8, 0.01);
  EXPECT_DOUBLE_EQ(b.algbw_gbytes_per_s, 100.0);
  EXPECT_DOUBLE_EQ(b.busbw_gbytes_per_s, 175.0);
  EXPECT_DOUBLE_EQ(bandwidth(Kind::sendrecv, 4096, 2, 0).algbw_gbytes_per_s, 0.0);
}

TEST(BusBandwidth, CountsFollowTheNcclTestsSizeConvention) {
  // size = max(send, recv) bytes of one rank.
  auto c = counts_for(Kind::all_gather, 4096, 4, 4);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->count, 256u);
  EXPECT_EQ(c->send_elems, 256u);
  EXPECT_EQ(c->recv_elems, 1024u);
  c = counts_for(Kind::reduce_scatter, 4096, 4, 4);
  EXPECT_EQ(c->count, 256u);
  EXPECT_EQ(c->send_elems, 1024u);
  EXPECT_EQ(c->recv_elems, 256u);
  c = counts_for(Kind::alltoall, 4096, 4, 4);
  EXPECT_EQ(c->count, 256u);
  EXPECT_EQ(c->send_elems, 1024u);
  c = counts_for(Kind::all_reduce, 4096, 2, 3);
  EXPECT_EQ(c->count, 2048u);
  EXPECT_FALSE(counts_for(Kind::all_gather, 4096, 4, 3)); // 1024 elements do not split 3 ways
  EXPECT_FALSE(counts_for(Kind::all_reduce, 4098, 4, 2));
}

TEST(BusBandwidth, KindNames) {
  for (auto k : all_kinds())
    EXPECT_EQ(parse_kind(to_string(k)), k);
  EXPECT_TRUE(reduces(Kind::reduce));
  EXPECT_FALSE(reduces(Kind::alltoall));
  EXPECT_TRUE(has_root(Kind::broadcast));
}

} // namespace
} // namespace railgauge::collectives
