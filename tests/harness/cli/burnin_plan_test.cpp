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
  ASSERT_EQ(plan.phases.size(), 5u);
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
  EXPECT_EQ(plan.phases.size(), 5u);
  EXPECT_LT(plan.phases[0].duration_s, 240);
  EXPECT_GE(plan.phases[0].duration_s, 30);
  EXPECT_GE(plan.phases[1].duration_s, 15);
  // The fitted durations reach the entries the run is made of.
  EXPECT_EQ(plan.entries[0].axes.at("duration_s"),
            fmt::format("{}", plan.phases[0].duration_s));
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
