// The settle criterion of harness/inventory/gpu_settle.h on readings shaped like a GPU warming
// up: boost clock and rising power first, then the power cap; and the probe without NVML.
#include <gtest/gtest.h>

#include "harness/inventory/gpu_settle.h"

namespace railgauge {
namespace {

std::vector<SettleReading> readings(double seconds, double clock_mhz, double power_w) {
  std::vector<SettleReading> r;
  for (double t = 0; t <= seconds + 1e-9; t += kSettlePeriod_s)
    r.push_back({t, clock_mhz, power_w});
  return r;
}

TEST(GpuSettle, ASteadyGpuSettlesOnceTheReadingsSpanTheWindow) {
  EXPECT_FALSE(readings_settled({}));
  EXPECT_FALSE(readings_settled(readings(0.3, 1755, 690))); // too short to tell
  EXPECT_TRUE(readings_settled(readings(0.7, 1755, 690)));
}

TEST(GpuSettle, AClockStillFallingOrPowerStillRisingIsNotSettled) {
  // Warming up: the power climbs 300 -> 700 W over 2 s and the clock falls from the boost.
  std::vector<SettleReading> warming;
  for (int i = 0; i <= 20; ++i)
    warming.push_back({0.1 * i, 1980.0 - 12.0 * i, 300.0 + 20.0 * i});
  EXPECT_FALSE(readings_settled(warming));
  // Then held at the cap: 1,650-1,755 MHz in alternation, 690-700 W, for 0.8 s.
  for (int i = 1; i <= 8; ++i)
    warming.push_back({2.0 + 0.1 * i, i % 2 ? 1650.0 : 1755.0, i % 2 ? 700.0 : 690.0});
  EXPECT_TRUE(readings_settled(warming));
  // A reading NVML does not answer does not hold the point back.
  auto no_power = readings(0.7, 1755, 0);
  for (auto &r : no_power)
    r.power_w.reset();
  EXPECT_TRUE(readings_settled(no_power));
}

TEST(GpuSettle, WithoutNvmlTheProbeSaysSoAndLetsThePointStart) {
  GpuSettleProbe probe("GPU-00000000-0000-0000-0000-000000000000",
                       "libnvidia-ml-that-is-not-here.so.1");
  EXPECT_TRUE(probe.settled());
  EXPECT_EQ(probe.method(), "gpu_clocks_unavailable");
  EXPECT_FALSE(probe.last_reading().at("available").get<bool>());
}

} // namespace
} // namespace railgauge
