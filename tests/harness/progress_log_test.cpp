#include "harness/progress_log.h"

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "fake_benchmark.h"
#include "harness/runner.h"
#include "tests/support/fake_run_fixture.h"
#include "tests/support/null_printer.h"

namespace railgauge {
namespace {

TEST(ProgressLog, TheTimeLeftIsThePaceOfMeasuredPointsTimesThoseLeftToMeasure) {
  const auto one = [](std::size_t to_measure, std::size_t measured, double measured_s) {
    return std::vector<ItemPace>{{to_measure, 1.0, measured, measured_s}};
  };
  EXPECT_FALSE(seconds_left(one(10, 0, 0)).has_value()); // no pace before the first measured point
  EXPECT_DOUBLE_EQ(*seconds_left(one(40, 10, 30.0)), 90.0);
  EXPECT_DOUBLE_EQ(*seconds_left(one(40, 40, 30.0)), 0.0);
  EXPECT_DOUBLE_EQ(*seconds_left(one(40, 41, 30.0)), 0.0); // a point measured that was to be waived
}

TEST(ProgressLog, EachEntryHasItsOwnPaceAndOneNotBegunIsScaledFromItsBudget) {
  // Small copies: 4 of 6 measured at 1 s each against a 2 s budget (half of it). Large copies,
  // not begun: 3 points of a 10 s budget, so about 5 s each. One pace for all would say 2 + 3.
  std::vector<ItemPace> items = {{6, 2.0, 4, 4.0}, {3, 10.0, 0, 0.0}};
  EXPECT_DOUBLE_EQ(*seconds_left(items), 2 * 1.0 + 3 * 5.0);
  // The large copies' first point has run 3 s of its 5: 2 s of it are left.
  EXPECT_DOUBLE_EQ(*seconds_left(items, 1, 3.0), 2 * 1.0 + 3 * 5.0 - 3.0);
  // A point past its pace leaves none of its share, never a negative time.
  EXPECT_DOUBLE_EQ(*seconds_left(items, 1, 60.0), 2 * 1.0 + 2 * 5.0);
  items[1].measured = 1;
  items[1].measured_s = 8.0; // measured: its own pace from now on
  EXPECT_DOUBLE_EQ(*seconds_left(items), 2 * 1.0 + 2 * 8.0);
}

TEST(ProgressLog, TheLineCountsWaivedPointsAsDoneButNotAsWork) {
  // The case: 95 s of a run whose remaining points are mostly waived. 100 of 1053 points
  // done, 50 of the 154 to measure, in 30 s: 104 measured points left at 0.6 s each.
  EXPECT_EQ(progress_line(100, 1053, 50, 154, 30.0, 62.4),
            "railgauge: progress: 100 of 1053 points (50 of 154 to measure), 30 s so far, about "
            "62 s left at this pace");
  EXPECT_EQ(progress_line(12, 108, 12, 108, 45.0, 360.0),
            "railgauge: progress: 12 of 108 points, 45 s so far, about 360 s left at this pace");
  EXPECT_EQ(progress_line(5, 20, 0, 10, 0.2, std::nullopt),
            "railgauge: progress: 5 of 20 points (0 of 10 to measure), 0 s so far, no pace yet "
            "(no point measured)");
  EXPECT_EQ(
      progress_line(5, 20, 5, 20, 9.6, 30.0, "memory.host_copy size_bytes=1GiB running for 8 s"),
      "railgauge: progress: 5 of 20 points, 10 s so far, about 30 s left at this pace, "
      "memory.host_copy size_bytes=1GiB running for 8 s");
}

class ProgressThroughTheRunner : public testing::FakeRunFixture {
protected:
  ProgressThroughTheRunner()
      : FakeRunFixture({"fake.alpha"}, 0.01),
        dir_(std::filesystem::temp_directory_path() /
             ("railgauge_progress_test_" + std::to_string(::getpid()))) {
    entry_.axes["mode"] = "ok,waive";
    entry_.axis_where["mode"] = "s.yaml:5";
    std::filesystem::create_directories(dir_);
  }
  ~ProgressThroughTheRunner() override { std::filesystem::remove_all(dir_); }

  // The progress lines of a run of the plan (a line before every point), and its records.
  std::vector<std::string> progress_lines(std::function<bool(std::string_view, const Point &)> skip,
                                          double every_s = 1e-9) {
    const auto plan = make_plan(registry_, {entry_}, {parse_axis_override("size_bytes=1K,2K,4K")},
                                std::nullopt, ctx_);
    RecordFile file((dir_ / "records.jsonl").string());
    // The records go to the file only: these tests read the progress lines.
    testing::NullPrinter printer;
    RunnerOutput out{file, printer, false};
    out.skip = std::move(skip);
    out.log_progress_every_s = every_s;
    ::testing::internal::CaptureStderr();
    execute_plan(plan, ctx_, {"run-1", "testhost", 0, dir_.string()}, out);
    std::istringstream text(::testing::internal::GetCapturedStderr());
    std::vector<std::string> lines;
    for (std::string line; std::getline(text, line);)
      lines.push_back(line);
    return lines;
  }

  std::filesystem::path dir_;
};

TEST_F(ProgressThroughTheRunner, WaivedPointsAreNotWork) {
  // 3 sizes x {ok, waive}: six points, three to measure.
  const auto lines = progress_lines({});
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[0].substr(0, lines[0].find(',')),
            "railgauge: progress: 0 of 6 points (0 of 3 to measure)");
  EXPECT_NE(lines[0].find("no pace yet"), std::string::npos) << lines[0];
  // Before the last point, a waived one: every point to measure is done, so no time is left.
  EXPECT_EQ(lines[5].substr(0, lines[5].find(',')),
            "railgauge: progress: 5 of 6 points (3 of 3 to measure)");
  EXPECT_NE(lines[5].find("about 0 s left at this pace"), std::string::npos) << lines[5];
}

TEST_F(ProgressThroughTheRunner, PointsAResumeSkipsAreNeitherCountedNorWork) {
  // The resumed run recorded the two smallest sizes already: two points left, one to measure.
  const auto lines = progress_lines(
      [](std::string_view, const Point &point) { return point.integer("size_bytes") < 4096; });
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].substr(0, lines[0].find(',')),
            "railgauge: progress: 0 of 2 points (0 of 1 to measure)");
  EXPECT_EQ(lines[1].substr(0, lines[1].find(',')),
            "railgauge: progress: 1 of 2 points (1 of 1 to measure)");
  EXPECT_NE(lines[1].find("about 0 s left"), std::string::npos) << lines[1];
}

TEST_F(ProgressThroughTheRunner, APointLongerThanThePeriodIsNamedWhileItRuns) {
  // One point sampling for 1.6 s, lines every 0.5 s: the log names it while it runs instead of
  // staying silent until it ends (37.6 s gaps were seen with --progress-every 5).
  // Calls of 5 ms each: an empty call, batched from one timed call, ended at max_samples in well
  // under the budget wherever a preemption made that one call look long (seen in CI).
  entry_.axes["mode"] = "slow";
  entry_.measure.time_budget_s = 1.6;
  entry_.measure.max_rel_noise = 0;
  const auto lines = progress_lines(
      [](std::string_view, const Point &point) { return point.integer("size_bytes") != 1024; },
      0.5);
  std::vector<std::string> running;
  for (const auto &line : lines)
    if (line.find("running for") != std::string::npos)
      running.push_back(line);
  ASSERT_GE(running.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_NE(running[0].find(", fake.alpha size_bytes=1024 mode=slow running for "),
            std::string::npos)
      << running[0];
  EXPECT_NE(running[0].find("no pace yet"), std::string::npos) << running[0];
}

} // namespace
} // namespace railgauge
