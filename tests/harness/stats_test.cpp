#include "harness/stats.h"

#include <cmath>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

namespace railgauge {
namespace {

TEST(Stats, OrderStatisticsOfKnownSamples) {
  const std::vector<double> samples = {5, 1, 4, 2, 3};
  const auto s = summarize(samples);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.stdev, std::sqrt(2.5)); // sample stdev, n-1
  EXPECT_DOUBLE_EQ(s.p10, 1.4);              // numpy linear: 1 + 0.4*(2-1)
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
}

TEST(Stats, MedianOfEvenCountIsMeanOfMiddlePair) {
  const std::vector<double> samples = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(summarize(samples).median, 2.5);
}

TEST(Stats, SubMicrosecondJitterIsNotRoundedAway) {
  // perftest's integer stdev prints this as 0.
  const std::vector<double> samples = {1.0e-6, 1.2e-6, 0.9e-6, 1.1e-6};
  const auto s = summarize(samples);
  EXPECT_GT(s.stdev, 1e-7);
  EXPECT_LT(s.stdev, 2e-7);
  EXPECT_NEAR(s.relative_stdev(), s.stdev / s.mean, 1e-15);
}

TEST(Stats, SingleSampleHasZeroSpread) {
  const std::vector<double> samples = {7};
  const auto s = summarize(samples);
  EXPECT_EQ(s.stdev, 0);
  EXPECT_EQ(s.p99, 7);
}

TEST(Stats, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize(std::vector<double>{}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1, NAN}), std::invalid_argument);
  EXPECT_THROW(summarize(std::vector<double>{1, INFINITY}), std::invalid_argument);
}

TEST(Stats, PercentileEndpoints) {
  const std::vector<double> sorted = {10, 20, 30};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0), 10);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 1), 30);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0.25), 15);
}

TEST(Stats, ScaledMadIgnoresOneOutlier) {
  const std::vector<double> samples = {10, 10, 11, 9, 10, 1000};
  EXPECT_LT(scaled_mad(samples), 1.5);
  EXPECT_GT(summarize(samples).stdev, 100);
}

TEST(Stats, JsonHasEveryField) {
  const auto j = to_json(summarize(std::vector<double>{1, 2}));
  for (const char *f : {"n", "min", "max", "mean", "stdev", "median", "p10", "p90", "p99"})
    EXPECT_TRUE(j.contains(f)) << f;
}

// What to_json writes reads back whole; a summary missing a figure, or one of another type (a
// record from another tool), reads as none rather than as zeros.
TEST(Stats, SummaryReadsBackFromJsonOrNotAtAll) {
  const auto s = summarize(std::vector<double>{1, 2, 3, 10});
  auto j = to_json(s);
  const auto back = summary_from_json(&j);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->n, 4u);
  EXPECT_DOUBLE_EQ(back->median, s.median);
  EXPECT_DOUBLE_EQ(back->p90, s.p90);
  EXPECT_DOUBLE_EQ(back->stdev, s.stdev);
  EXPECT_FALSE(summary_from_json(nullptr));
  j.erase("p99");
  EXPECT_FALSE(summary_from_json(&j));
  j = to_json(s);
  j["median"] = "2";
  EXPECT_FALSE(summary_from_json(&j));
  j = to_json(s);
  j["n"] = -1;
  EXPECT_FALSE(summary_from_json(&j));
}

} // namespace
} // namespace railgauge
