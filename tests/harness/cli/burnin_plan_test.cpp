// The burn-in's wall-time plan (cli/burnin_plan.h) on the shipped burnin-gpu suite: the default
// plan fits 10 minutes on 8 GPUs, a smaller budget shortens the timed phases and keeps every
// phase, a budget too small for any plan is refused with the least it needs, the measured
// phase times come from the records' own timestamps, and the plan of one GPU matches the phases
// the committed healthy one-GPU burn-ins measured.
#include <filesystem>
#include <fstream>

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

// The index of the phase named `name` (burnin_phase_name()), or the phase count.
std::size_t phase_index(const BurninPlan &plan, const std::string &name) {
  std::size_t i = 0;
  while (i < plan.phases.size() && plan.phases[i].key != name)
    ++i;
  return i;
}

TEST(BurninPlan, DefaultPlanOfEightGpusFitsTenMinutesWithEveryPhase) {
  const auto plan = plan_burnin(shipped_entries(), 8, kDefaultBurninBudgetS);
  EXPECT_LE(plan.planned_s, 600);
  EXPECT_FALSE(plan.trimmed); // the suite's durations are the default plan's
  ASSERT_EQ(plan.phases.size(), 9u);
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
  EXPECT_EQ(plan.phases.size(), 9u);
  EXPECT_LT(plan.phases[0].duration_s, 240);
  EXPECT_GE(plan.phases[0].duration_s, 30);
  EXPECT_GE(plan.phases[phase_index(plan, "memory.burn")].duration_s, 15);
  EXPECT_GE(plan.phases[phase_index(plan, "gemm.burn fp64")].duration_s, 15);
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
  const std::size_t i = phase_index(plan, "memory.pattern");
  ASSERT_LT(i, plan.phases.size());
  EXPECT_EQ(plan.entries[i].axes.at("rounds"), "4");
  // An H200 assumed: 4 x 8 x 0.98 x 141 GB at 0.83 x 4,273.9 GB/s = 1.25 s, + 0.5 s
  EXPECT_NEAR(plan.phases[i].around_s, 1.75, 0.005);
  EXPECT_DOUBLE_EQ(plan.phases[i].duration_s, 0) << "a set amount of work, never trimmed";
  EXPECT_NE(plan.phases[i].estimate.find("4 round(s) x 8 passes over 138 GB at 3547 GB/s"),
            std::string::npos)
      << plan.phases[i].estimate;
  // An H100 80GB by its name and memory: 4 x 8 x 0.98 x 85.5 GB at 0.83 x 3,022.8 GB/s = 1.07 s
  const auto h100 = burnin_hbm("NVIDIA H100 80GB HBM3", 85.52e9);
  EXPECT_DOUBLE_EQ(h100.bandwidth_gbytes_per_s, 3022.8);
  EXPECT_NEAR(plan_burnin(entries, 8, kDefaultBurninBudgetS, h100).phases[i].around_s, 1.57, 0.005);
  // 40 rounds on the H200: 12.5 s of passes
  auto more = entries;
  more[i].axes["rounds"] = "40";
  EXPECT_NEAR(plan_burnin(more, 8, kDefaultBurninBudgetS).phases[i].around_s, 12.97, 0.005);
  more[i].axes["rounds"] = "four";
  EXPECT_THROW(plan_burnin(more, 8, kDefaultBurninBudgetS), InputError);
}

// The GPU-to-GPU copies run one ordered pair at a time: their time grows with the pairs, n(n-1),
// and is planned at the slowest Hopper NVLink's measured rate; on one GPU the phase is waived.
TEST(BurninPlan, ThePeerCopiesArePlannedFromTheirPairsAndSize) {
  const auto entries = shipped_entries();
  const auto plan = plan_burnin(entries, 8, kDefaultBurninBudgetS);
  const std::size_t i = phase_index(plan, "memory.peer_copy");
  ASSERT_LT(i, plan.phases.size());
  EXPECT_EQ(plan.entries[i].axes.at("size_bytes"), "256MiB");
  // 56 pairs x 9 copies x 268.4 MB at 176.08 GB/s = 0.77 s, + 56 x 0.1 s, rounded up, + 5 s
  EXPECT_DOUBLE_EQ(plan.phases[i].around_s, 12);
  EXPECT_DOUBLE_EQ(plan.phases[i].duration_s, 0) << "a set amount of work, never trimmed";
  EXPECT_NE(plan.phases[i].estimate.find("56 pair(s) x 9 copies of 256 MiB at 176 GB/s"),
            std::string::npos)
      << plan.phases[i].estimate;
  EXPECT_DOUBLE_EQ(plan_burnin(entries, 1, kDefaultBurninBudgetS).phases[i].around_s, 0)
      << "one GPU: the point is waived at once";
  // 1 GiB copies 32 times: 56 x 33 x 1.07 GB at 176.08 GB/s = 11.3 s, + 5.6 s, + 5 s
  auto more = entries;
  more[i].axes["size_bytes"] = "1GiB";
  more[i].axes["repetitions"] = "32";
  EXPECT_DOUBLE_EQ(plan_burnin(more, 8, kDefaultBurninBudgetS).phases[i].around_s, 22);
  more[i].axes["size_bytes"] = "big";
  EXPECT_THROW(plan_burnin(more, 8, kDefaultBurninBudgetS), InputError);
}

// One plan runs gemm.burn in bf16 for minutes, then in fp64 and tf32 for 30 s each: each is a
// phase of its own, the bf16 one under the name committed runs were written with.
TEST(BurninPlan, GemmBurnsOfEachDtypeArePhasesOfTheirOwn) {
  EXPECT_EQ(burnin_phase_name("gemm.burn", "bf16"), "gemm.burn");
  EXPECT_EQ(burnin_phase_name("gemm.burn", ""), "gemm.burn");
  EXPECT_EQ(burnin_phase_name("gemm.burn", "fp64"), "gemm.burn fp64");
  EXPECT_EQ(burnin_phase_name("memory.burn", "fp64"), "memory.burn");
  const auto plan = plan_burnin(shipped_entries(), 8, kDefaultBurninBudgetS);
  for (const char *name : {"gemm.burn fp64", "gemm.burn tf32"}) {
    const std::size_t i = phase_index(plan, name);
    ASSERT_LT(i, plan.phases.size()) << name;
    EXPECT_DOUBLE_EQ(plan.phases[i].duration_s, 30) << name;
    EXPECT_DOUBLE_EQ(plan.phases[i].min_duration_s, 15) << name;
  }
  EXPECT_EQ(phase_index(plan, "gemm.burn"), 0u);
  const std::vector<nlohmann::json> records = {{{"key", "gemm.burn"},
                                                {"params", {{"dtype", "bf16"}}},
                                                {"time_utc", "2026-11-26T12:04:10.000Z"}},
                                               {{"key", "gemm.burn"},
                                                {"params", {{"dtype", "fp64"}}},
                                                {"time_utc", "2026-11-26T12:04:50.000Z"}},
                                               {{"key", "gemm.burn"},
                                                {"params", {{"dtype", "tf32"}}},
                                                {"time_utc", "2026-11-26T12:05:30.500Z"}}};
  const auto t = phase_wall_times(records, "2026-11-26T12:00:00.000Z");
  EXPECT_DOUBLE_EQ(t.at("gemm.burn"), 250);
  EXPECT_DOUBLE_EQ(t.at("gemm.burn fp64"), 40);
  EXPECT_DOUBLE_EQ(t.at("gemm.burn tf32"), 40.5);
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

// The healthy one-GPU burn-ins committed under results/reference/: what the plan estimates around
// each phase against what the run measured beyond the phase's timed duration (its wall time less
// the duration its plan set). An estimate may miss by half of what was measured or by 1 s,
// whichever is more (the all_reduce took 1.0 to 2.6 s in runs alike), and the whole run, its
// timed durations as run plus the estimates, by 10 %.
TEST(BurninPlan, OneGpuPlanMatchesTheCommittedHealthyRuns) {
  namespace fs = std::filesystem;
  const fs::path reference = fs::path(RAILGAUGE_SOURCE_DIR) / "results" / "reference";
  const std::vector<std::pair<std::string, BurninHbm>> runs = {
      {"h200-burnin-2026-11-28/burnin/healthy", burnin_hbm("NVIDIA H200", 151e9)},
      {"h200-burnin-2026-11-27/burnin/healthy", burnin_hbm("NVIDIA H200", 151e9)},
      {"h100-burnin-2026-11-26/burnin/healthy", burnin_hbm("NVIDIA H100 80GB HBM3", 85.52e9)}};
  for (const auto &[dir, hbm] : runs) {
    ASSERT_TRUE(fs::is_directory(reference / dir)) << dir;
    int judged = 0;
    for (const auto &run : fs::directory_iterator(reference / dir)) {
      ++judged;
      std::ifstream in(run.path() / "burnin.json");
      ASSERT_TRUE(in) << run.path();
      const auto committed = nlohmann::json::parse(in);
      const auto &measured = committed.at("measured_s");
      const auto plan = plan_burnin(shipped_entries(), 1, kDefaultBurninBudgetS, hbm);
      double planned_total = 0, measured_total = 0;
      for (const auto &ran : committed.at("plan").at("phases")) {
        const std::string key = ran.at("key");
        const std::size_t i = phase_index(plan, key);
        ASSERT_LT(i, plan.phases.size()) << key;
        const double duration = ran.at("duration_s").get<double>();
        const double planned = duration + plan.phases[i].around_s;
        const double took = measured.at(key).get<double>();
        const double around = took - duration;
        EXPECT_LE(std::abs(plan.phases[i].around_s - around), std::max(0.5 * around, 1.0))
            << dir << " " << key << ": planned " << plan.phases[i].around_s
            << " s around it, measured " << around << " s";
        planned_total += planned;
        measured_total += took;
      }
      EXPECT_NEAR(planned_total, measured_total, 0.1 * measured_total) << dir;
    }
    EXPECT_GT(judged, 0) << dir << " holds no run";
  }
}

} // namespace
} // namespace railgauge
