// Keeping lanes that start together in contention (harness/lane_contention.h): a lane's tail
// run alone must show, and the padding that prevents it must follow the imbalance.
#include <gtest/gtest.h>

#include <stdexcept>

#include "harness/lane_contention.h"

namespace railgauge {
namespace {

TEST(ContentionFraction, LanesPaddedPastEveryStopAreInContentionThroughout) {
  // H2D stops at 1.6 s and pads to 2.4 s; D2H stops at 1.9 s, before H2D's padding ends.
  EXPECT_DOUBLE_EQ(contention_fraction({{1.6, 2.4}, {1.9, 2.2}}), 1.0);
  EXPECT_DOUBLE_EQ(contention_fraction({{1.0, 1.0}}), 1.0) << "one lane";
  EXPECT_DOUBLE_EQ(contention_fraction({}), 1.0);
}

// Without enough padding the slower lane's tail ran alone: D2H ran 1.9 s, and for the last
// 0.3 s of it H2D (stopped at 1.6 s, no padding) was idle.
TEST(ContentionFraction, ATailRunAloneShowsAsTheShareThatWasNot) {
  EXPECT_NEAR(contention_fraction({{1.6, 1.6}, {1.9, 1.9}}), 1.6 / 1.9, 1e-12);
  // Three GPUs: the one that stops last is covered only until the earliest padded end.
  EXPECT_NEAR(contention_fraction({{1.0, 1.5}, {1.2, 1.3}, {1.4, 1.6}}), 1.3 / 1.4, 1e-12);
}

TEST(ContentionFraction, RejectsSpansThatCannotBe) {
  EXPECT_THROW(contention_fraction({{-0.1, 1.0}}), std::invalid_argument);
  EXPECT_THROW(contention_fraction({{1.0, 0.5}}), std::invalid_argument) << "padding before stop";
}

TEST(ContentionMetrics, MedianAndLowestOrNullWhenNone) {
  const std::vector<double> fractions = {1.0, 0.8, 1.0};
  const auto m = contention_metrics(fractions);
  EXPECT_DOUBLE_EQ(m.at("lanes_contention_fraction").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(m.at("lanes_contention_fraction_min").get<double>(), 0.8);
  EXPECT_TRUE(contention_metrics({}).at("lanes_contention_fraction").is_null());
}

TEST(PaddingCalls, FirstAsManyAsTheBatchThenWhatTheImbalanceNeeds) {
  EXPECT_EQ(padding_calls(8, {}, 128), 8) << "no batch yet";
  EXPECT_EQ(padding_calls(300, {}, 128), 128) << "capped by the queue";
  // Equal lanes: one call of margin.
  EXPECT_EQ(padding_calls(16, {{1.0, 2.0}, {1.0, 2.0}}, 128), 1);
  // The slower lane 25% behind: 4 calls of 16 behind, 1.5 x 4 + 1 = 7 padding calls.
  EXPECT_EQ(padding_calls(16, {{1.0, 2.0}, {1.25, 2.0}}, 128), 7);
  // A single call per batch (a 4 GiB copy) 10% behind: ceil(1.5 x 0.1) + 1 = 2 padding calls.
  EXPECT_EQ(padding_calls(1, {{0.10, 0.2}, {0.11, 0.2}}, 128), 2);
  // Far apart: as many as the queue allows.
  EXPECT_EQ(padding_calls(64, {{1.0, 2.0}, {5.0, 6.0}}, 128), 128);
  EXPECT_THROW(padding_calls(0, {}, 128), std::invalid_argument);
  EXPECT_THROW(padding_calls(4, {}, 0), std::invalid_argument);
}

// The padding learnt from one batch covers the next one with the same imbalance.
TEST(PaddingCalls, ThePaddingLearntCoversTheNextBatch) {
  const double fast_s = 0.1, slow_s = 0.13; // seconds per call in contention
  const std::int64_t batch = 10;
  const std::int64_t pad = padding_calls(
      batch, {{fast_s * batch, 2 * fast_s * batch}, {slow_s * batch, 2 * slow_s * batch}}, 128);
  const double fast_stop = fast_s * batch, slow_stop = slow_s * batch;
  const LaneSpan fast{fast_stop, fast_stop + fast_s * static_cast<double>(pad)};
  const LaneSpan slow{slow_stop, slow_stop + slow_s * static_cast<double>(pad)};
  EXPECT_DOUBLE_EQ(contention_fraction({fast, slow}), 1.0) << pad << " padding calls";
}

} // namespace
} // namespace railgauge
