// The per-point GPU monitor: the summary of samples (pure) and the monitor on a machine without a
// GPU or NVML, which must say why and never throw.
#include <gtest/gtest.h>

#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/gpu_telemetry.h"

namespace railgauge {
namespace {

GpuSample sample(double clock_mhz, double power_w, std::uint64_t reasons, int gen) {
  GpuSample s;
  s.sm_clock_mhz = clock_mhz;
  s.power_w = power_w;
  s.temperature_c = 60 + power_w / 100;
  s.clocks_event_reasons = reasons;
  s.pcie_gen = gen;
  s.pcie_width = 16;
  return s;
}

TEST(GpuSamples, SummaryShowsAPowerCapThatOnlyHeldSomeSamples) {
  // Four samples under load: two at the power cap (sw_power_cap, 0x4) with the clock pulled
  // down, one idle (gpu_idle, 0x1, not throttling), one clean.
  const std::vector<GpuSample> samples = {sample(1980, 690, 0x4, 5), sample(1755, 700, 0x4, 5),
                                          sample(1980, 420, 0x0, 5), sample(345, 80, 0x1, 4)};
  GpuCounters start, end;
  start.energy_mj = 1'000'000;
  end.energy_mj = 1'475'000; // 475 J over 2.5 s
  start.power_violation_ns = 5;
  end.power_violation_ns = 5;
  start.temperature_limit_c = 87;
  const nlohmann::json j = summarize_gpu_samples(samples, 2.5, start, end);
  EXPECT_DOUBLE_EQ(j.at("temperature_limit_c"), 87);
  EXPECT_EQ(j.at("temperature_limit"), "gpu_max_operating");
  EXPECT_TRUE(j.at("memory_temperature_c_max").is_null()); // no HBM reading in these samples
  EXPECT_TRUE(j.at("memory_temperature_limit_c").is_null());
  EXPECT_TRUE(j.at("available"));
  EXPECT_EQ(j.at("samples"), 4);
  EXPECT_DOUBLE_EQ(j.at("sm_clock_mhz").at("min"), 345);
  EXPECT_DOUBLE_EQ(j.at("sm_clock_mhz").at("max"), 1980);
  EXPECT_DOUBLE_EQ(j.at("sm_clock_mhz").at("median"), (1755 + 1980) / 2.0);
  EXPECT_DOUBLE_EQ(j.at("power_w").at("max"), 700);
  EXPECT_DOUBLE_EQ(j.at("power_w").at("mean"), (690 + 700 + 420 + 80) / 4.0);
  EXPECT_DOUBLE_EQ(j.at("temperature_c_max"), 67);
  EXPECT_EQ(j.at("pcie").at("gen_min"), 4); // the link trained down in one sample
  EXPECT_EQ(j.at("pcie").at("gen_max"), 5);
  EXPECT_TRUE(j.at("pcie").at("gen_max").is_number_integer());
  EXPECT_EQ(j.at("pcie").at("width_max"), 16);
  EXPECT_EQ(j.at("clocks_event_reasons"), (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_DOUBLE_EQ(j.at("throttled_fraction"), 0.5);
  EXPECT_TRUE(j.at("throttled"));
  EXPECT_DOUBLE_EQ(j.at("energy_j"), 475);
  EXPECT_DOUBLE_EQ(j.at("power_from_energy_w"), 190);
  EXPECT_DOUBLE_EQ(j.at("power_violation_s"), 0);
  EXPECT_DOUBLE_EQ(j.at("reason_fraction").at("sw_power_cap"), 0.5);
  EXPECT_DOUBLE_EQ(j.at("reason_fraction").at("gpu_idle"), 0.25);
  EXPECT_DOUBLE_EQ(j.at("reason_fraction").at("hw_slowdown"), 0.0); // never seen: 0, not absent
  EXPECT_EQ(j.at("reason_fraction").size(), 9u);
  EXPECT_DOUBLE_EQ(j.at("power_w").at("median"), (420 + 690) / 2.0);
  EXPECT_DOUBLE_EQ(j.at("temperature_c").at("max"), 67);
  EXPECT_TRUE(j.at("thermal_violation_s").is_null());
}

TEST(GpuSamples, ViolationCounterAloneMeansThrottledAndMissingFieldsAreNull) {
  GpuSample idle;
  idle.clocks_event_reasons = 0x1;
  GpuCounters start, end;
  start.thermal_violation_ns = 1'000;
  end.thermal_violation_ns = 2'000'001'000; // 2 s below the clocks asked for, between samples
  start.energy_mj = 10;
  end.energy_mj = 5; // went backwards (driver reload): not a difference
  const nlohmann::json j = summarize_gpu_samples({idle}, 4.0, start, end);
  EXPECT_DOUBLE_EQ(j.at("throttled_fraction"), 0.0);
  EXPECT_DOUBLE_EQ(j.at("thermal_violation_s"), 2.0);
  EXPECT_TRUE(j.at("throttled"));
  EXPECT_TRUE(j.at("energy_j").is_null());
  EXPECT_TRUE(j.at("power_from_energy_w").is_null());
  EXPECT_TRUE(j.at("sm_clock_mhz").at("median").is_null());
  EXPECT_TRUE(j.at("power_w").at("mean").is_null());
  EXPECT_TRUE(j.at("pcie").at("gen_max").is_null());
  EXPECT_TRUE(j.at("temperature_limit_c").is_null());
  EXPECT_TRUE(j.at("temperature_limit").is_null());
  GpuCounters slowdown_only;
  slowdown_only.temperature_limit_c = 90;
  slowdown_only.temperature_limit_is_slowdown = true;
  slowdown_only.memory_temperature_limit_c = 95;
  std::vector<GpuSample> hbm(2);
  hbm[0].memory_temperature_c = 71;
  hbm[1].memory_temperature_c = 78;
  const nlohmann::json limits = summarize_gpu_samples(hbm, 1.0, slowdown_only, {});
  EXPECT_EQ(limits.at("temperature_limit"), "slowdown");
  EXPECT_DOUBLE_EQ(limits.at("temperature_limit_c"), 90);
  EXPECT_DOUBLE_EQ(limits.at("memory_temperature_c_max"), 78);
  EXPECT_DOUBLE_EQ(limits.at("memory_temperature_limit_c"), 95);

  const nlohmann::json none = summarize_gpu_samples({}, 0.0, {}, {});
  EXPECT_EQ(none.at("samples"), 0);
  EXPECT_FALSE(none.at("throttled"));
  EXPECT_TRUE(none.at("throttled_fraction").is_null());
}

TEST(GpuSamples, PowerFromEnergyOnlyOverWindowsTheCounterCanMeasure) {
  // As on an H200 (results/reference/h200-2026-11-26b): 29 J over 5 ms read as 6,283 W.
  GpuCounters start, end;
  start.power_limit_w = 700;
  start.energy_mj = 0;
  end.energy_mj = 29'073;
  const nlohmann::json brief =
      summarize_gpu_samples({sample(1950, 460, 0x4, 5)}, 0.005, start, end);
  EXPECT_TRUE(brief.at("power_from_energy_w").is_null());
  EXPECT_NE(brief.at("power_from_energy_note").get<std::string>().find("shorter"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(brief.at("power_limit_w"), 700);
  // Long enough, but over the limit by more than 10%: the counter is not believed either.
  end.energy_mj = 3'000'000; // 3 kJ over 3 s = 1 kW
  const nlohmann::json over = summarize_gpu_samples({sample(1950, 690, 0x4, 5)}, 3.0, start, end);
  EXPECT_TRUE(over.at("power_from_energy_w").is_null());
  EXPECT_NE(over.at("power_from_energy_note").get<std::string>().find("limit"), std::string::npos);
  end.energy_mj = 2'070'000; // 690 W
  const nlohmann::json fine = summarize_gpu_samples({sample(1950, 690, 0x4, 5)}, 3.0, start, end);
  EXPECT_DOUBLE_EQ(fine.at("power_from_energy_w"), 690);
}

TEST(GpuSamples, SeriesHasOneRowPerSecondOverLongWindows) {
  std::vector<GpuSample> samples;
  for (int i = 0; i < 30; ++i) { // 3 s at 10 Hz; the clock drops in the last second
    GpuSample s = sample(i < 20 ? 1980 : 1500, 600, i < 20 ? 0x0 : 0x4, 5);
    s.t_s = 0.1 * i;
    samples.push_back(s);
  }
  const nlohmann::json j = summarize_gpu_samples(samples, 3.0, {}, {});
  ASSERT_EQ(j.at("series").size(), 3u);
  EXPECT_DOUBLE_EQ(j.at("series")[0].at("sm_clock_mhz"), 1980);
  EXPECT_DOUBLE_EQ(j.at("series")[2].at("sm_clock_mhz"), 1500);
  EXPECT_DOUBLE_EQ(j.at("series")[2].at("throttled_fraction"), 1.0);
  EXPECT_DOUBLE_EQ(j.at("series")[1].at("t_s"), 1.0);
  EXPECT_FALSE(summarize_gpu_samples(samples, 1.5, {}, {}).contains("series"));
}

// The HBM burn after the GEMM burn: its first second still shows the GEMM's power and clock.
// Its telemetry is the window its figure is taken over, not those seconds.
TEST(GpuSamples, AWindowLeavesOutThePhaseBefore) {
  std::vector<GpuSample> samples;
  for (int i = 0; i < 80; ++i) {
    const bool tail = i < 20; // the first second, at 20 Hz
    GpuSample s = tail ? sample(1515, 691, 0x4, 5) : sample(1980, 450, 0x0, 5);
    s.t_s = i * 0.05;
    samples.push_back(s);
  }
  GpuCounters start, end;
  start.power_limit_w = 700;
  start.energy_mj = 0;
  end.energy_mj = 2'000'000;
  const auto whole = summarize_gpu_window(samples, 4.0, 0, start, end);
  EXPECT_EQ(whole.at("power_w").at("max"), 691);
  EXPECT_FALSE(whole.contains("window_s"));
  const auto window = summarize_gpu_window(samples, 4.0, 0.8 + 0.2, start, end);
  EXPECT_EQ(window.at("samples"), 60);
  EXPECT_EQ(window.at("power_w").at("max"), 450);
  EXPECT_EQ(window.at("sm_clock_mhz").at("min"), 1980);
  EXPECT_EQ(window.at("throttled_fraction"), 0);
  EXPECT_EQ(window.at("window_s").at("from"), 1.0);
  EXPECT_EQ(window.at("window_s").at("to"), 4.0);
  EXPECT_DOUBLE_EQ(window.at("duration_s").get<double>(), 3.0);
  EXPECT_TRUE(window.at("power_from_energy_w").is_null()); // the counter spans the whole phase
  // The snapshot before the window still throttled (the GEMM burn's tail): not this phase's.
  const nlohmann::json capped_before = {{"throttled", true}};
  EXPECT_FALSE(telemetry_pair(capped_before, window, nlohmann::json::object()).at("throttled"));
  EXPECT_TRUE(telemetry_pair(capped_before, whole, nlohmann::json::object()).at("throttled"));
}

TEST(GpuMonitor, WithoutNvmlItSaysWhyAndNeverThrows) {
  GpuMonitor monitor("GPU-00000000-0000-0000-0000-000000000000", std::chrono::milliseconds(1),
                     "libnvidia-ml-that-is-not-here.so.1");
  const nlohmann::json j = monitor.stop();
  EXPECT_FALSE(j.at("available"));
  EXPECT_FALSE(j.at("reason").get<std::string>().empty()) << j.dump();
  EXPECT_EQ(monitor.stop(), j); // a second stop gives the same answer
}

TEST(GpuThrottleReasons, IdleApplicationClocksAndSyncBoostAreNotThrottling) {
  for (const char *r : {"gpu_idle", "applications_clocks_setting", "sync_boost"})
    EXPECT_FALSE(is_throttle_reason(r)) << r;
  for (const char *r : {"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "0x1000"})
    EXPECT_TRUE(is_throttle_reason(r)) << r;
}

} // namespace
} // namespace railgauge
