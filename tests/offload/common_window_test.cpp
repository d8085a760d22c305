// The common window of lanes that start together (offload/common_window.h): a lane's tail run
// alone must not count as concurrent bandwidth.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "offload/common_window.h"

namespace railgauge::offload {
namespace {

// A lane that completes a call every `seconds_per_call`, marked after every call.
std::vector<CallMark> steady_lane(std::int64_t calls, double seconds_per_call) {
  std::vector<CallMark> marks;
  for (std::int64_t c = 1; c <= calls; ++c)
    marks.push_back({c, static_cast<double>(c) * seconds_per_call});
  return marks;
}

TEST(CommonWindow, LanesThatFinishTogetherKeepTheirWholeBatch) {
  const CommonWindow w = common_window({steady_lane(8, 0.5), steady_lane(8, 0.5)});
  EXPECT_DOUBLE_EQ(w.overlap_fraction, 1.0);
  for (const WindowedLane &lane : w.lanes) {
    EXPECT_EQ(lane.calls, 8);
    EXPECT_DOUBLE_EQ(lane.seconds, 4.0);
    EXPECT_TRUE(lane.inside_window);
  }
}

// Both directions of a GPU: H2D at 0.1 s per call finishes its 16 calls at 1.6 s; D2H runs at
// 0.125 s per call beside it (its 13th call straddles the end), then alone at 0.08 s per call.
// Its batch average (16 calls in 1.88 s) would make it 0.1175 s per call; inside the window it
// is the 0.125 it achieved.
TEST(CommonWindow, TheTailRunAloneIsLeftOut) {
  std::vector<CallMark> d2h = steady_lane(12, 0.125); // the 12th call ends at 1.5 s
  for (std::int64_t c = 13; c <= 16; ++c)
    d2h.push_back({c, 1.56 + 0.08 * static_cast<double>(c - 12)});
  const CommonWindow w = common_window({steady_lane(16, 0.1), d2h});
  ASSERT_EQ(w.lanes.size(), 2u);
  EXPECT_EQ(w.lanes[0].calls, 16);
  EXPECT_DOUBLE_EQ(w.lanes[0].seconds, 1.6);
  EXPECT_EQ(w.lanes[1].calls, 12);
  EXPECT_DOUBLE_EQ(w.lanes[1].seconds / 12, 0.125);
  EXPECT_TRUE(w.lanes[1].inside_window);
  EXPECT_NEAR(w.overlap_fraction, 1.6 / 1.88, 1e-12);
  const double batch_average_s = d2h.back().end_s / 16;
  EXPECT_LT(batch_average_s, 0.125) << "what the batch average would have claimed";
}

// A GEMM lane whose first marked call ends after a short copy lane has finished: nothing of it
// is inside the window, which the caller is told.
TEST(CommonWindow, ALaneWithNoCallInsideTheWindowIsFlagged) {
  const CommonWindow w = common_window({{{4, 0.2}}, {{1, 0.5}, {2, 1.0}}});
  EXPECT_TRUE(w.lanes[0].inside_window);
  EXPECT_FALSE(w.lanes[1].inside_window);
  EXPECT_EQ(w.lanes[1].calls, 1);
  EXPECT_DOUBLE_EQ(w.lanes[1].seconds, 0.5);
  EXPECT_DOUBLE_EQ(w.overlap_fraction, 0.2);
}

TEST(CommonWindow, OneLaneIsItsOwnWindow) {
  const CommonWindow w = common_window({{{3, 0.3}}});
  EXPECT_EQ(w.lanes[0].calls, 3);
  EXPECT_DOUBLE_EQ(w.overlap_fraction, 1.0);
  EXPECT_TRUE(common_window({}).lanes.empty());
}

TEST(CommonWindow, RejectsMarksThatCannotBe) {
  EXPECT_THROW(common_window({{}}), std::invalid_argument);
  EXPECT_THROW(common_window({{{2, 0.2}, {1, 0.3}}}), std::invalid_argument) << "calls go back";
  EXPECT_THROW(common_window({{{1, 0.3}, {2, 0.2}}}), std::invalid_argument) << "time goes back";
  EXPECT_THROW(common_window({{{1, -0.1}}}), std::invalid_argument);
  EXPECT_THROW(common_window({{{0, 0.1}}}), std::invalid_argument);
}

TEST(MarkedCalls, AtMostTheMarksAskedForAndTheLastCallAlways) {
  EXPECT_EQ(marked_calls(1, 16), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(marked_calls(5, 16), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(marked_calls(20, 16), (std::vector<std::int64_t>{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}));
  EXPECT_EQ(marked_calls(256, 1), (std::vector<std::int64_t>{256}));
  const auto many = marked_calls(256, 16);
  ASSERT_EQ(many.size(), 16u);
  EXPECT_EQ(many.front(), 16);
  EXPECT_EQ(many.back(), 256);
  const auto odd = marked_calls(255, 16);
  EXPECT_LE(odd.size(), 16u);
  EXPECT_EQ(odd.back(), 255);
  EXPECT_THROW(marked_calls(0, 16), std::invalid_argument);
  EXPECT_THROW(marked_calls(4, 0), std::invalid_argument);
}

TEST(BalanceRepeats, TheShorterWorkRepeatsToFillTheLonger) {
  const RepeatsPerCall copy_longer = balance_repeats(1.0, 0.25);
  EXPECT_EQ(copy_longer.first, 1);
  EXPECT_EQ(copy_longer.second, 4);
  const RepeatsPerCall gemm_longer = balance_repeats(0.1, 0.36);
  EXPECT_EQ(gemm_longer.first, 4) << "3.6 rounds to 4";
  EXPECT_EQ(gemm_longer.second, 1);
  EXPECT_EQ(balance_repeats(0.2, 0.2).first, 1);
  EXPECT_EQ(balance_repeats(1.0, 1e-9).second, 1024) << "capped";
  EXPECT_THROW(balance_repeats(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(balance_repeats(1.0, std::numeric_limits<double>::infinity()),
               std::invalid_argument);
}

} // namespace
} // namespace railgauge::offload
