// Confidence intervals of fitted coefficients (analysis/calibrate/bootstrap.h): they cover the
// coefficient that made the data about as often as they claim, narrow with more points, and are
// absent where there are too few points to draw from.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "analysis/calibrate/bootstrap.h"

namespace railgauge::calibrate {
namespace {

constexpr double kAlphaS = 5e-6, kBetaSPerByte = 1.0 / 50e9; // 5 µs, 50 GB/s

// t = α + β·x with a relative noise of sd `noise`, at n sizes from 1 KiB up by factors of 2.
std::vector<LinearSample> alpha_beta_points(std::size_t n, double noise, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> rel(0, noise);
  std::vector<LinearSample> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = 1024.0 * std::pow(2.0, static_cast<double>(i % 20));
    out.push_back({{1.0, x}, (kAlphaS + kBetaSPerByte * x) * (1 + rel(rng))});
  }
  return out;
}

TEST(Bootstrap, AlphaBetaIntervalsCoverTheTruthAboutAsOftenAsClaimed) {
  int alpha_covered = 0, beta_covered = 0;
  constexpr int kTrials = 40;
  for (int trial = 0; trial < kTrials; ++trial) {
    const auto iv = linear_fit_intervals(alpha_beta_points(40, 0.03, 100 + trial), trial);
    ASSERT_EQ(iv.size(), 2u);
    ASSERT_TRUE(iv[0] && iv[1]);
    EXPECT_LE(iv[1]->low, iv[1]->high);
    alpha_covered += iv[0]->low <= kAlphaS && kAlphaS <= iv[0]->high;
    beta_covered += iv[1]->low <= kBetaSPerByte && kBetaSPerByte <= iv[1]->high;
  }
  // 95 % nominal; a robust fit's percentile bootstrap runs a little narrow on 40 points.
  EXPECT_GE(alpha_covered, 30) << alpha_covered << " of " << kTrials;
  EXPECT_GE(beta_covered, 30) << beta_covered << " of " << kTrials;
}

TEST(Bootstrap, MorePointsGiveANarrowerInterval) {
  const auto few = linear_fit_intervals(alpha_beta_points(20, 0.05, 7), 1);
  const auto many = linear_fit_intervals(alpha_beta_points(400, 0.05, 7), 1);
  ASSERT_TRUE(few[1] && many[1]);
  EXPECT_LT(many[1]->high - many[1]->low, 0.6 * (few[1]->high - few[1]->low));
}

TEST(Bootstrap, SameSeedSameIntervalAndTooFewPointsNone) {
  const auto pts = alpha_beta_points(30, 0.02, 3);
  const auto a = linear_fit_intervals(pts, 9), b = linear_fit_intervals(pts, 9);
  ASSERT_TRUE(a[1] && b[1]);
  EXPECT_EQ(a[1]->low, b[1]->low);
  EXPECT_EQ(a[1]->high, b[1]->high);
  const auto two = linear_fit_intervals(alpha_beta_points(2, 0.02, 3), 9);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_FALSE(two[0] || two[1]);
}

TEST(Bootstrap, EveryColumnOfAJointFitKeepsItsPointsInEachDraw) {
  // Two ops' β columns, one of them with only 3 points among 60: an unstratified draw would
  // often leave it out and fix its β at 0.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> rel(0, 0.02);
  std::vector<LinearSample> pts;
  for (int i = 0; i < 63; ++i) {
    const bool rare = i < 3;
    const double x = 4096.0 * (1 + i % 16);
    const double beta = rare ? 2 * kBetaSPerByte : kBetaSPerByte;
    pts.push_back({{1.0, rare ? 0.0 : x, rare ? x : 0.0}, (kAlphaS + beta * x) * (1 + rel(rng))});
  }
  const auto iv = linear_fit_intervals(pts, 2);
  ASSERT_TRUE(iv[2]);
  EXPECT_GT(iv[2]->low, 0.0) << "a draw without the rare op's points fitted its β as 0";
  EXPECT_LE(iv[2]->low, 2 * kBetaSPerByte * 1.1);
  EXPECT_GE(iv[2]->high, 2 * kBetaSPerByte * 0.9);
}

TEST(Bootstrap, StepRowIntervalsHoldTheRowsEfficiencyAndSkipLonePoints) {
  // Two rows: small ops at 40 % efficiency (30 noisy points), large ops at 80 % (one point).
  std::mt19937_64 rng(11);
  std::normal_distribution<double> rel(0, 0.03);
  std::vector<StepPoint> pts;
  for (int i = 0; i < 30; ++i) {
    const double ideal = 1e-3 * (1 + i % 5);
    pts.push_back({1e9 * (1 + i % 5), ideal, 0, ideal / 0.4 * (1 + rel(rng))});
  }
  pts.push_back({1e12, 1.0, 0, 1.0 / 0.8});
  const StepTable table{{{1e12, 0.8}, {0, 0.4}}};
  const auto iv = step_row_intervals(table, pts, 1.0, 4);
  ASSERT_EQ(iv.size(), 2u);
  EXPECT_FALSE(iv[0]) << "one point cannot be drawn again";
  ASSERT_TRUE(iv[1]);
  EXPECT_LT(iv[1]->low, 0.4);
  EXPECT_GT(iv[1]->high, 0.4);
  EXPECT_LT(iv[1]->high - iv[1]->low, 0.05);
}

// A ceiling below 1 is the best point's efficiency: drawn again with the points. A row whose fit
// the ceiling caps (no_overlap: the memory term leaves the compute term faster than any point's
// whole-time efficiency) once had an interval of zero width at the ceiling.
TEST(Bootstrap, ARowCappedByTheBestPointsEfficiencyStillHasAWidth) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> rel(0, 0.05);
  std::vector<StepPoint> pts;
  double best = 0;
  for (int i = 0; i < 40; ++i) {
    const double ideal = 1e-3 * (1 + i % 4), fixed = 0.5 * ideal;
    pts.push_back({1e9 * (1 + i % 4), ideal, fixed, (ideal / 0.83 + fixed) * (1 + rel(rng))});
    best = std::max(best, ideal / pts.back().measured_s);
  }
  const StepTable table{{{0, best}}};
  const auto iv = step_row_intervals(table, pts, best, 4);
  ASSERT_EQ(iv.size(), 1u);
  ASSERT_TRUE(iv[0]);
  EXPECT_LE(iv[0]->high, best + 1e-12);
  EXPECT_GT(iv[0]->high - iv[0]->low, 0.005) << iv[0]->low << " " << iv[0]->high;
}

} // namespace
} // namespace railgauge::calibrate
