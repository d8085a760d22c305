#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "rdma/latency_summary.h"

namespace railgauge::rdma {
namespace {

TEST(LatencySummary, PercentilesInterpolateBetweenClosestRanks) {
  std::vector<double> v;
  for (int i = 1000; i >= 1; --i) // unsorted on purpose
    v.push_back(i * 1e-6);
  const record::LatencyFields s = summarize_latency(v);
  EXPECT_EQ(s.n, 1000u);
  EXPECT_FALSE(s.empty());
  EXPECT_DOUBLE_EQ(*s.min_s, 1e-6);
  EXPECT_DOUBLE_EQ(*s.max_s, 1000e-6);
  EXPECT_NEAR(*s.p50_s, 500.5e-6, 1e-12);  // rank 499.5 -> mean of 500 and 501
  EXPECT_NEAR(*s.p90_s, 900.1e-6, 1e-12);  // rank 899.1
  EXPECT_NEAR(*s.p99_s, 990.01e-6, 1e-12); // rank 989.01
  EXPECT_NEAR(*s.p99_9_s, 999.001e-6, 1e-12);
  EXPECT_NEAR(*s.mean_s, 500.5e-6, 1e-12);
}

TEST(LatencySummary, SubMicrosecondStdevIsNotRoundedAway) {
  // perftest's integer stdev prints this as 0.
  const std::vector<double> v = {2.00e-6, 2.10e-6, 2.20e-6, 2.30e-6};
  const record::LatencyFields s = summarize_latency(v);
  // Sample stdev of {0, .1, .2, .3} us = sqrt(0.05/3) us.
  EXPECT_NEAR(*s.stdev_s, std::sqrt(0.05 / 3) * 1e-6, 1e-15);
}

TEST(LatencySummary, TightClusterHasNoCancellation) {
  std::vector<double> v(1000, 1.0 + 1e-9);
  v[0] = 1.0;
  const record::LatencyFields s = summarize_latency(v);
  EXPECT_GT(*s.stdev_s, 0.0);
  EXPECT_LT(*s.stdev_s, 1e-10);
}

TEST(LatencySummary, OneSampleAndBadInput) {
  const std::vector<double> one = {3e-6};
  const record::LatencyFields s = summarize_latency(one);
  EXPECT_EQ(*s.stdev_s, 0.0);
  EXPECT_EQ(*s.p99_9_s, 3e-6);
  EXPECT_THROW(summarize_latency(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize_latency(std::vector<double>{1.0, NAN}), std::invalid_argument);
}

} // namespace
} // namespace railgauge::rdma
