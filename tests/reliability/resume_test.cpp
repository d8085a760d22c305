// --resume (harness/resume.h): which points an interrupted run directory already holds, what is
// run again, and every refusal.
#include "harness/resume.h"
#include "harness/run_failure.h"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/record_io.h"
#include "tests/harness/fake_benchmark.h"
#include "tests/reliability/temp_dir.h"
#include "tests/support/fake_run_fixture.h"
#include "tests/support/null_printer.h"

namespace railgauge {
namespace {

namespace fs = std::filesystem;

class ResumeTest : public testing::FakeRunFixture {
protected:
  ResumeTest() : FakeRunFixture({"fake.alpha", "fake.beta"}, 0.001) {
    entry_.axes["mode"] = "ok,waive,throw,fail";
    entry_.axis_where["mode"] = "s.yaml:5";
    manifest_ = {{"schema", kRunSchema},
                 {"run", "run-1"},
                 {"host", "testhost"},
                 {"rank", 0},
                 {"status", "running"},
                 {"suite", suite_},
                 {"argv", {"railgauge", "run", "s.yaml"}}};
  }

  RunPlan plan(const std::vector<AxisOverride> &overrides = {}) {
    return make_plan(registry_, {entry_}, overrides, std::nullopt, ctx_);
  }
  RunIdentity id() const { return {"run-1", "testhost", 0, dir_.path()}; }
  std::string records_path() const { return dir_.path() + "/records.jsonl"; }

  // Runs `p` (less what `skip` says is done) into the run directory's records file.
  std::map<std::string, int> run(const RunPlan &p, const ResumeState *state = nullptr) {
    RecordFile file(records_path());
    testing::NullPrinter printer;
    RunnerOutput out{file, printer, false};
    if (state)
      out.skip = [state](std::string_view key, const Point &point) {
        return state->skip(key, point);
      };
    return execute_plan(p, ctx_, id(), out);
  }
  ResumeState resume(const RunPlan &p, ResumeOptions options = {}) {
    manifest_["plan"] = plan_summary(p);
    return ResumeState(dir_.path(), manifest_, p, suite_, "testhost", 0, options);
  }
  // Keeps the first `lines` lines of records.jsonl, as if the run had been killed after them.
  void keep_lines(std::size_t lines) {
    std::ifstream in(records_path());
    std::string kept, line;
    for (std::size_t i = 0; i < lines && std::getline(in, line); ++i)
      kept += line + "\n";
    in.close();
    std::ofstream(records_path(), std::ios::trunc) << kept;
  }

  testing::TempDir dir_{"resume"};
  nlohmann::json suite_ = {{"name", "s"}, {"path", "s.yaml"}};
  nlohmann::json manifest_;
};

TEST_F(ResumeTest, PlanDigestFollowsKeysAxesAndMeasurementSettings) {
  const auto base = plan_summary(plan());
  EXPECT_EQ(base, plan_summary(plan())) << "the same command plans the same digest";
  EXPECT_EQ(base["points"], 16);
  EXPECT_NE(base["digest"], plan_summary(plan({parse_axis_override("size_bytes=4K")}))["digest"]);
  entry_.measure.time_budget_s = 0.002;
  EXPECT_NE(base["digest"], plan_summary(plan())["digest"]);
}

TEST_F(ResumeTest, SkipsRecordedPointsAndRunsTheRestOnce) {
  const auto p = plan();
  run(p);
  keep_lines(5); // killed after five points
  // A record cut short by a power loss: no newline at the end.
  std::ofstream(records_path(), std::ios::app) << R"({"schema":"railgauge.record/1","run":"ru)";

  const ResumeState state = resume(p);
  ASSERT_EQ(state.notes().size(), 1u);
  EXPECT_NE(state.notes()[0].find("incomplete last line"), std::string::npos) << state.notes()[0];
  EXPECT_EQ(state.skipped_points(), 5u);
  EXPECT_EQ(state.kept_counts(),
            (std::map<std::string, int>{{"ok", 2}, {"waived", 1}, {"error", 1}, {"failed", 1}}));
  const auto counts = run(p, &state);
  int ran = 0;
  for (const auto &[status, n] : counts)
    ran += n;
  EXPECT_EQ(ran, 11);

  // Every planned point exactly once, every line a whole record.
  const auto read = read_records(records_path());
  EXPECT_EQ(read.problems, std::vector<std::string>{});
  ASSERT_EQ(read.records.size(), 16u);
  std::set<std::string> seen;
  for (const auto &r : read.records)
    EXPECT_TRUE(seen.insert(point_identity(r.key, r.axes)).second) << r.key << r.axes.dump();
}

TEST_F(ResumeTest, ErrorPointsRunAgainOnlyWithRetryErrors) {
  const auto p = plan();
  run(p);
  const ResumeState keep = resume(p);
  EXPECT_EQ(keep.skipped_points(), 16u);
  EXPECT_EQ(run(p, &keep), (std::map<std::string, int>{}));

  const ResumeState retry = resume(p, {false, true});
  EXPECT_EQ(retry.skipped_points(), 12u) << "4 error points (mode=throw) run again";
  EXPECT_EQ(run(p, &retry), (std::map<std::string, int>{{"error", 4}}));
  // Appended after the old ones, never rewritten: a point's last record is its result.
  EXPECT_EQ(read_records(records_path()).records.size(), 20u);
}

TEST_F(ResumeTest, RecordsWithoutAxesMatchOnTheirParams) {
  const auto p = plan();
  run(p);
  keep_lines(3);
  // Strip "axes" as an older railgauge wrote them.
  auto read = read_records(records_path());
  std::ofstream(records_path(), std::ios::trunc);
  {
    RecordFile file(records_path());
    for (auto &r : read.records) {
      r.axes = nullptr;
      file.append(r);
    }
  }
  EXPECT_EQ(resume(p).skipped_points(), 3u);
}

TEST_F(ResumeTest, RefusesWhatCannotBeResumed) {
  const auto p = plan();
  const auto expect_refused = [&](const char *fragment, ResumeOptions options = {}) {
    try {
      ResumeState(dir_.path(), manifest_, p, suite_, "testhost", 0, options);
      ADD_FAILURE() << "resumed although " << fragment;
    } catch (const InputError &e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
      EXPECT_FALSE(e.fix().empty());
    }
  };
  expect_refused("no plan digest");
  manifest_["plan"] = plan_summary(plan({parse_axis_override("size_bytes=4K")}));
  expect_refused("differ from the run's 8");
  manifest_["plan"] = plan_summary(p);
  manifest_["suite"] = {{"name", "other"}, {"path", nullptr}};
  expect_refused("made by suite");
  manifest_["suite"] = suite_;
  manifest_["host"] = "elsewhere";
  expect_refused("host elsewhere");
  manifest_["host"] = "testhost";
  manifest_["status"] = "complete";
  run(p); // a record for every planned point: complete indeed
  expect_refused("complete");
  EXPECT_NO_THROW(ResumeState(dir_.path(), manifest_, p, suite_, "testhost", 0, {true, false}))
      << "--force resumes a complete run";
}

TEST_F(ResumeTest, ARunMarkedCompleteWithPointsNeverRunResumesWithoutForce) {
  // An older railgauge marked a run complete when a lost peer had stopped it after 3 points.
  const auto p = plan();
  run(p);
  keep_lines(3);
  manifest_["status"] = "complete";
  const auto state = resume(p);
  EXPECT_EQ(state.skipped_points(), 3u);
  ASSERT_FALSE(state.notes().empty());
  EXPECT_NE(
      state.notes().back().find("run.json says complete, but 13 of its 16 planned points have "
                                "no record"),
      std::string::npos)
      << state.notes().back();
}

TEST(RunFailure, ARunWithPointsNeverRunIsNotComplete) {
  EXPECT_EQ(points_never_run({{"ok", 3}, {"error", 1}}, 7, "pair with rank 1 failed"),
            "the run stopped after 4 of 7 points (3 never ran): pair with rank 1 failed");
  EXPECT_EQ(points_never_run({{"ok", 6}, {"waived", 1}}, 7, ""), std::nullopt);
}

TEST_F(ResumeTest, OneProcessAtATimeHoldsARun) {
  RunDirLock first(dir_.path());
  try {
    RunDirLock second(dir_.path());
    FAIL() << "two writers of one run";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("still writing"), std::string::npos) << e.what();
  }
}

TEST_F(ResumeTest, ManifestRecordsEachResume) {
  // The rank a lost peer's run named is not the resumed run's: check would excuse it by them.
  manifest_["lost_ranks"] = {{{"rank", 1}, {"host", "node-b"}, {"reason", "rank 1 is lost"}}};
  std::ofstream(dir_.path() + "/run.json") << manifest_.dump();
  Manifest manifest = Manifest::load(dir_.path());
  const auto p = plan();
  run(p);
  keep_lines(4);
  const ResumeState state = resume(p);
  mark_resumed(manifest, {"railgauge", "run", "--resume", dir_.path()}, state, p.point_count());
  const auto &resumes = manifest.data()["resumes"];
  ASSERT_EQ(resumes.size(), 1u);
  EXPECT_EQ(resumes[0]["points_skipped"], 4);
  EXPECT_EQ(resumes[0]["points_to_run"], 12);
  EXPECT_EQ(resumes[0]["previous_status"], "running");
  EXPECT_EQ(manifest.data()["status"], "running");
  EXPECT_FALSE(manifest.data().contains("lost_ranks"));

  std::ofstream(dir_.path() + "/run.json", std::ios::trunc) << "{\"schema\": 1";
  EXPECT_THROW(Manifest::load(dir_.path()), InputError);
  fs::remove(dir_.path() + "/run.json");
  EXPECT_THROW(Manifest::load(dir_.path()), InputError);
}

} // namespace
} // namespace railgauge
