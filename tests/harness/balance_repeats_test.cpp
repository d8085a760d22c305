// How two concurrent works are balanced per call (harness/balance_repeats.h).
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "harness/balance_repeats.h"

namespace railgauge {
namespace {

TEST(BalanceRepeats, TheShorterWorkRepeatsToFillTheLonger) {
  const RepeatsPerCall first_longer = balance_repeats(1.0, 0.25, 64);
  EXPECT_EQ(first_longer.first, 1);
  EXPECT_EQ(first_longer.second, 4);
  const RepeatsPerCall second_longer = balance_repeats(0.1, 0.36, 64);
  EXPECT_EQ(second_longer.first, 4) << "3.6 rounds to 4";
  EXPECT_EQ(second_longer.second, 1);
  EXPECT_EQ(balance_repeats(1.0, 1.4, 64).first, 1) << "1.4 rounds to 1";
  EXPECT_EQ(balance_repeats(0.2, 0.2, 64).first, 1);
  EXPECT_EQ(balance_repeats(1.0, 1e-9, 64).second, 64) << "capped";
}

TEST(BalanceRepeats, TimesThatCannotBeAreRefused) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto &[a, b] : {std::pair{0.0, 1.0}, {1.0, -1.0}, {1.0, inf}, {nan, 1.0}})
    EXPECT_THROW(balance_repeats(a, b, 64), std::invalid_argument) << a << " " << b;
  EXPECT_THROW(balance_repeats(1.0, 1.0, 0), std::invalid_argument);
}

} // namespace
} // namespace railgauge
