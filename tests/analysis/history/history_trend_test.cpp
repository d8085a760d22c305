// The fleet history's trend (analysis/history/trend.h): a robust slope that one broken run does
// not move.
#include <vector>

#include <gtest/gtest.h>

#include "analysis/history/trend.h"

namespace railgauge::history {
namespace {

TEST(Trend, TheilSenIgnoresOneBadRun) {
  std::vector<double> v;
  for (int i = 0; i < 10; ++i)
    v.push_back(100.0 - 0.5 * i);
  v[4] = 50; // one broken run
  const auto t = robust_trend(v);
  EXPECT_NEAR(t.slope_per_run, -0.5, 1e-9);
  EXPECT_GT(t.falling_pairs, 0.8);
  EXPECT_NEAR(robust_trend({1, 1, 1, 1}).change_fraction, 0, 1e-12);
}

} // namespace
} // namespace railgauge::history
