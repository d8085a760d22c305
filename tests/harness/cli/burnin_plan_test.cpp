// The burn-in's wall-time plan (cli/burnin_plan.h) on the shipped burnin-gpu suite: the default
// plan fits 10 minutes on 8 GPUs, a smaller budget shortens the timed phases and keeps every
// phase, a budget too small for any plan is refused with the least it needs, and the measured
// phase times come from the records' own timestamps.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli/burnin_plan.h"
#include "harness/error.h"
#include "harness/suite.h"
#include "railgauge/config.h"

namespace railgauge {
namespace {

std::vector<SuiteEntry> shipped_entries() {
  return load_suite_file(std::string(RAILGAUGE_SOURCE_DIR) + "/results/suites/burnin-gpu.yaml")
      .entries;
}

TEST(BurninPlan, DefaultPlanOfEightGpusFitsTenMinutesWithEveryPhase) {
  const auto plan = plan_burnin(shipped_entries(), 8, kDefaultBurninBudgetS);
  EXPECT_LE(plan.planned_s, 600);
  EXPECT_FALSE(plan.trimmed); // the suite's durations are the default plan's
  ASSERT_EQ(plan.phases.size(), 6u);
  EXPECT_EQ(plan.phases[0].key, "gemm.burn");
  EXPECT_DOUBLE_EQ(plan.phases[0].duration_s, 240);
  const std::string text = render_burnin_plan(plan);
  EXPECT_NE(text.find("8 GPU(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("600 s budget"), std::string::npos) << text;
}

TEST(BurninPlan, ASmallerBudgetShortensTheTimedPhasesAndDropsNone) {
  const auto plan = plan_burnin(shipped_entries(), 8, 240);
  EXPECT_TRUE(plan.trimmed);
  EXPECT_LE(plan.planned_s, 240);
  EXPECT_EQ(plan.phases.size(), 6u);
  EXPECT_LT(plan.phases[0].duration_s, 240);
  EXPECT_GE(plan.phases[0].duration_s, 30);
  EXPECT_GE(plan.phases[1].duration_s, 15);
  // The fitted durations reach the entries the run is made of.
  EXPECT_EQ(plan.entries[0].axes.at("duration_s"), fmt::format("{}", plan.phases[0].duration_s));
}

TEST(BurninPlan, ABudgetNoPlanFitsIsRefusedWithTheLeastItNeeds) {
  try {
    plan_burnin(shipped_entries(), 8, 60);
    FAIL() << "a 60 s budget was accepted";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("--budget"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no phase is dropped"), std::string::npos) << e.what();
  }
}

// The pattern test writes and reads nearly all of each GPU's memory, rounds x 8 times over, every
// GPU at once: its time follows the SKU's memory and bandwidth, not the number of GPUs.
TEST(BurninPlan, ThePatternTestIsPlannedFromTheHbmItCovers) {
  const auto entries = shipped_entries();
  const auto plan = plan_burnin(entries, 8, kDefaultBurninBudgetS);
  ASSERT_EQ(plan.phases[2].key, "memory.pattern");
  EXPECT_EQ(plan.entries[2].axes.at("rounds"), "4");
  // An H200 assumed: 4 x 8 x 0.98 x 141 GB at 4,273.9 GB/s = 1.03 s, rounded up, + 5 s
  EXPECT_DOUBLE_EQ(plan.phases[2].around_s, 7);
  EXPECT_DOUBLE_EQ(plan.phases[2].duration_s, 0) << "a set amount of work, never trimmed";
  EXPECT_NE(plan.phases[2].estimate.find("4 round(s) x 8 passes over 138 GB at 4274 GB/s"),
            std::string::npos)
      << plan.phases[2].estimate;
  // An H100 80GB by its name and memory: 4 x 8 x 0.98 x 85.5 GB at 3,022.8 GB/s = 0.89 s
  const auto h100 = burnin_hbm("NVIDIA H100 80GB HBM3", 85.52e9);
  EXPECT_DOUBLE_EQ(h100.bandwidth_gbytes_per_s, 3022.8);
  EXPECT_DOUBLE_EQ(plan_burnin(entries, 8, kDefaultBurninBudgetS, h100).phases[2].around_s, 6);
  // 40 rounds on the H200: 10.3 s of passes
  auto more = entries;
  more[2].axes["rounds"] = "40";
  EXPECT_DOUBLE_EQ(plan_burnin(more, 8, kDefaultBurninBudgetS).phases[2].around_s, 16);
  more[2].axes["rounds"] = "four";
  EXPECT_THROW(plan_burnin(more, 8, kDefaultBurninBudgetS), InputError);
}

TEST(BurninPlan, PhaseWallTimesFromTheRecordsTimestamps) {
  const std::vector<nlohmann::json> records = {
      {{"key", "gemm.burn"}, {"time_utc", "2026-11-26T12:03:10.500Z"}},
      {{"key", "memory.burn"}, {"time_utc", "2026-11-26T12:04:45.500Z"}},
      {{"key", "offload.all_gpus_h2d"}, {"time_utc", "2026-11-26T12:04:50.000Z"}},
      {{"key", "offload.all_gpus_h2d"}, {"time_utc", "2026-11-26T12:04:58.000Z"}},
      {{"key", "broken"}}};
  const auto t = phase_wall_times(records, "2026-11-26T12:00:00.000Z");
  EXPECT_DOUBLE_EQ(t.at("gemm.burn"), 190.5);
  EXPECT_DOUBLE_EQ(t.at("memory.burn"), 95);
  EXPECT_DOUBLE_EQ(t.at("offload.all_gpus_h2d"), 12.5);
  EXPECT_FALSE(t.contains("broken"));
  EXPECT_THROW(utc_seconds("yesterday"), InputError);
}

} // namespace
} // namespace railgauge
