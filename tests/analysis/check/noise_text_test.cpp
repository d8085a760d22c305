// A finding's value rounded to its noise (analysis/check/noise_text.h): the last digit at the
// decade of the uncertainty, 2 to 4 significant digits, and never reading past its bound.
#include <cmath>
#include <limits>
#include <optional>

#include <gtest/gtest.h>

#include "analysis/check/noise_text.h"

namespace railgauge::check {
namespace {

TEST(NoiseText, LastDigitAtTheDecadeOfTheUncertainty) {
  EXPECT_EQ(noise_text(4274.1, 0.012), "4270");   // u = 51
  EXPECT_EQ(noise_text(717.34, 0.003), "717");    // u = 2.2
  EXPECT_EQ(noise_text(0.01234, 0.05), "0.0123"); // u = 0.00062
  EXPECT_EQ(noise_text(0.01234, 0.1), "0.012");   // u = 0.0012
  EXPECT_EQ(noise_text(-4274.1, 0.012), "-4270");
  // The digits kept are the measurement's, zeros included.
  EXPECT_EQ(noise_text(4.0, 0.01), "4.00");
  // Rounding up a decade: 9.996 to three digits is 10.0.
  EXPECT_EQ(noise_text(9.996, 0.01), "10.0");
}

TEST(NoiseText, TwoToFourDigits) {
  EXPECT_EQ(noise_digits(717.34, 5.0), 2); // noisier than the value itself
  EXPECT_EQ(noise_text(717.34, 5.0), "720");
  EXPECT_EQ(noise_text(0.8105, 0.3), "0.81");
  EXPECT_EQ(noise_digits(717.34, 1e-6), 4); // today's text is the ceiling
  EXPECT_EQ(noise_text(717.34, 1e-6), "717.3");
}

TEST(NoiseText, UnknownOrZeroNoiseKeepsFourDigits) {
  EXPECT_EQ(noise_text(4274.1, std::nullopt), "4274");
  EXPECT_EQ(noise_text(717.34, std::nullopt), "717.3");
  EXPECT_EQ(noise_text(0.5, std::nullopt), "0.5");
  EXPECT_EQ(noise_text(717.34, 0.0), "717.3");
  EXPECT_EQ(noise_text(717.34, -0.01), "717.3");
  EXPECT_EQ(noise_text(717.34, std::numeric_limits<double>::quiet_NaN()), "717.3");
  EXPECT_EQ(noise_text(0.0, 0.05), "0");
  EXPECT_EQ(noise_text(std::numeric_limits<double>::infinity(), 0.05), "inf");
}

TEST(NoiseText, VeryLargeAndVerySmall) {
  // Below 1e4 without an exponent, as {:.4g} writes it; above, with one.
  EXPECT_EQ(noise_text(9871.3, 0.004), "9870");
  EXPECT_EQ(noise_text(13094412.7, 0.1), "1.3e+07");
  EXPECT_EQ(noise_text(13094412.7, std::nullopt), "1.309e+07");
  EXPECT_EQ(noise_text(2.346e-7, 0.01), "2.35e-07");
  EXPECT_EQ(noise_text(0.00031234, 0.02), "0.000312");
  // A count is exact: 10,000 PCIe replays once read "1e+04".
  EXPECT_EQ(noise_text(10000.0, std::nullopt), "10000");
  EXPECT_EQ(noise_text(1234567.0, std::nullopt), "1234567");
}

TEST(NoiseText, AFailNeverReadsEqualToItsBound) {
  // 379.6 below a floor of 380 at 2 %: rounded alone it reads "380".
  EXPECT_EQ(noise_text(379.6, 0.02), "380");
  EXPECT_EQ(noise_text(379.6, 0.02, 380.0), "379.6");
  // Above a ceiling of 380.
  EXPECT_EQ(noise_text(380.4, 0.02, 380.0), "380.4");
  // Past four digits where four still read equal, also with the noise unknown.
  EXPECT_EQ(noise_text(379.96, 0.02, 380.0), "379.96");
  EXPECT_EQ(noise_text(379.96, std::nullopt, 380.0), "379.96");
  // A value on the bound itself, and one far from it, keep their rounding.
  EXPECT_EQ(noise_text(380.0, 0.02, 380.0), "380");
  EXPECT_EQ(noise_text(4274.1, 0.012, 3932.1), "4270");
}

TEST(NoiseText, AStatedNumberIsNeverRounded) {
  EXPECT_EQ(stated_text(3932.1), "3932.1"); // {:.4g} wrote 3932
  EXPECT_EQ(stated_text(0.875), "0.875");
  EXPECT_EQ(stated_text(380.0), "380");
  EXPECT_EQ(stated_text(4.2e-6), "4.2e-06");
}

} // namespace
} // namespace railgauge::check
