// The noise a run, check and compare read off a record's time samples: the p10..p90 half-width
// over the median, which a few outlying calls do not move the way they move stdev/mean.
#include <gtest/gtest.h>

#include "harness/noise_bound.h"

namespace railgauge {
namespace {

TEST(RelativeNoise, IsTheP10P90HalfWidthOverTheMedian) {
  const nlohmann::json metrics = {
      {"time_s", {{"median", 2e-6}, {"p10", 1.8e-6}, {"p90", 2.6e-6}, {"mean", 9e-6}}}};
  ASSERT_TRUE(relative_noise(metrics));
  EXPECT_NEAR(*relative_noise(metrics), 0.2, 1e-12);
}

// A point on a busy machine: most calls at 10 us, a tenth preempted to 1 ms. stdev/mean reads
// the preemptions (about 2.7); the spread of the calls the median stands for stays small.
TEST(RelativeNoise, AFewPreemptedCallsDoNotMakeAStableMedianNoisy) {
  const nlohmann::json metrics = {
      {"time_s",
       {{"median", 10e-6}, {"p10", 9.5e-6}, {"p90", 11e-6}, {"mean", 109e-6}, {"stdev", 297e-6}}}};
  ASSERT_TRUE(relative_noise(metrics));
  EXPECT_NEAR(*relative_noise(metrics), 0.075, 1e-12);
  Record r;
  r.key = "memory.host_read";
  r.status = Status::ok;
  r.metrics = metrics;
  EXPECT_FALSE(noisier_than_bound(r, 0.5, "size_bytes=262144"));
}

// One sample (an RDMA latency point: one batch of 2,000 round trips) has no spread to read; its
// p10 and p90 are itself, which read as no noise and let compare call a 1.4 % move worse.
TEST(RelativeNoise, OneSampleHasNone) {
  const nlohmann::json metrics = {
      {"time_s", {{"n", 1}, {"median", 2e-6}, {"p10", 2e-6}, {"p90", 2e-6}, {"stdev", 0.0}}}};
  EXPECT_FALSE(relative_noise(metrics));
}

// Two humps (a loopback latency that half its calls pay a reschedule for) stay noisy.
TEST(RelativeNoise, TwoHumpedSamplesStayNoisy) {
  Record r;
  r.key = "rdma.tcp_lat";
  r.status = Status::ok;
  r.metrics = {{"time_s", {{"median", 20e-6}, {"p10", 10e-6}, {"p90", 124e-6}}}};
  const auto noisy = noisier_than_bound(r, 0.5, "size_bytes=2");
  ASSERT_TRUE(noisy);
  EXPECT_NEAR(noisy->noise, 2.85, 1e-12);
}

// Older records hold no quantiles: their stdev/mean on the same scale (a normal spread's).
TEST(RelativeNoise, WithoutQuantilesIsStdevOverMeanAsANormalHalfWidth) {
  const nlohmann::json metrics = {{"time_s", {{"mean", 1e-3}, {"stdev", 1e-4}}}};
  ASSERT_TRUE(relative_noise(metrics));
  EXPECT_NEAR(*relative_noise(metrics), 0.1 * kP10P90HalfWidthSigmas, 1e-12);
  EXPECT_FALSE(relative_noise(nlohmann::json{{"tflops", 1}}));
  EXPECT_FALSE(relative_noise(nlohmann::json{{"time_s", {{"median", 0}, {"p10", 0}, {"p90", 0}}}}));
}

} // namespace
} // namespace railgauge
