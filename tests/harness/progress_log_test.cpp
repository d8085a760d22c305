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

namespace railgauge {
namespace {

TEST(ProgressLog, TheTimeLeftIsThePaceOfMeasuredPointsTimesThoseLeftToMeasure) {
  EXPECT_FALSE(seconds_left(3.0, 0, 10).has_value()); // no pace before the first measured point
  EXPECT_DOUBLE_EQ(*seconds_left(30.0, 10, 40), 90.0);
  EXPECT_DOUBLE_EQ(*seconds_left(30.0, 40, 40), 0.0);
  EXPECT_DOUBLE_EQ(*seconds_left(30.0, 41, 40), 0.0); // a point measured that was to be waived
}

TEST(ProgressLog, TheLineCountsWaivedPointsAsDoneButNotAsWork) {
  // The case: 95 s of a run whose remaining points are mostly waived. 100 of 1053 points
  // done, 50 of the 154 to measure, in 30 s: 104 measured points left at 0.6 s each.
  EXPECT_EQ(progress_line(100, 1053, 50, 154, 30.0),
            "railgauge: progress: 100 of 1053 points (50 of 154 to measure), 30 s so far, about "
            "62 s left at this pace");
  EXPECT_EQ(progress_line(12, 108, 12, 108, 45.0),
            "railgauge: progress: 12 of 108 points, 45 s so far, about 360 s left at this pace");
  EXPECT_EQ(progress_line(5, 20, 0, 10, 0.2),
            "railgauge: progress: 5 of 20 points (0 of 10 to measure), 0 s so far, no pace yet "
            "(no point measured)");
}

// The records go to the file only: these tests read the progress lines.
class NoPrinter final : public RecordPrinter {
public:
  void on_record(const Record &) override {}
};

class ProgressThroughTheRunner : public ::testing::Test {
protected:
  ProgressThroughTheRunner()
      : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "testhost", 0),
        dir_(std::filesystem::temp_directory_path() /
             ("railgauge_progress_test_" + std::to_string(::getpid()))) {
    registry_.add(std::make_unique<testing::FakeBenchmark>("fake.alpha"));
    entry_.key_glob = "fake.*";
    entry_.where = "s.yaml:3";
    entry_.measure.min_samples = 2;
    entry_.measure.time_budget_s = 0.01;
    entry_.measure.max_rel_noise = 1;
    entry_.axes["mode"] = "ok,waive";
    entry_.axis_where["mode"] = "s.yaml:5";
    std::filesystem::create_directories(dir_);
  }
  ~ProgressThroughTheRunner() override { std::filesystem::remove_all(dir_); }

  // The progress lines of a run of the plan (a line before every point), and its records.
  std::vector<std::string>
  progress_lines(std::function<bool(std::string_view, const Point &)> skip) {
    const auto plan = make_plan(registry_, {entry_}, {parse_axis_override("size_bytes=1K,2K,4K")},
                                std::nullopt, ctx_);
    RecordFile file((dir_ / "records.jsonl").string());
    NoPrinter printer;
    RunnerOutput out{file, printer, false};
    out.skip = std::move(skip);
    out.log_progress_every_s = 1e-9;
    ::testing::internal::CaptureStderr();
    execute_plan(plan, ctx_, {"run-1", "testhost", 0, dir_.string()}, out);
    std::istringstream text(::testing::internal::GetCapturedStderr());
    std::vector<std::string> lines;
    for (std::string line; std::getline(text, line);)
      lines.push_back(line);
    return lines;
  }

  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
  Registry registry_;
  SuiteEntry entry_;
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

} // namespace
} // namespace railgauge
