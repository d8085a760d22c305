#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/run_points.h"
#include "analysis/run_set.h"
#include "harness/record_io.h"

namespace railgauge::analysis {
namespace {

namespace fs = std::filesystem;

// A record of point `size_bytes` of memory.host_read, as the runner writes it (axes set).
Record point_record(int size_bytes, Status status = Status::ok) {
  Record r;
  r.run = "r";
  r.host = "node01";
  r.key = "memory.host_read";
  r.axes = {{"size_bytes", size_bytes}, {"duration_s", 1.0}};
  r.params = r.axes;
  r.status = status;
  return r;
}

TEST(RunPoints, EachPointIsCountedOncePerRecordAndAWaivedOneNotAtAll) {
  const auto points = *measured_points(
      {point_record(1), point_record(1), point_record(2), point_record(3, Status::waived)});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points.begin()->second + std::next(points.begin())->second, 3);
  // A longer run of the same point (a burn-in at another budget) measures it again.
  auto longer = point_record(1);
  longer.axes["duration_s"] = 60.0;
  EXPECT_EQ(measured_points({longer})->begin()->first,
            measured_points({point_record(1)})->begin()->first);
}

// A point that broke (an error record: a lost peer cut it) measured nothing again; a record
// without axes (an older railgauge's: its params hold derived values) leaves the points unknown;
// two efforts of one point on 4 GPUs measured 4 GPUs, not 8.
TEST(RunPoints, ErrorsMeasureNothingAndUnplannedRecordsLeaveThePointsUnknown) {
  EXPECT_EQ(measured_points({point_record(1, Status::error)}), PointCounts{});
  auto old = point_record(1);
  old.axes = nullptr;
  EXPECT_FALSE(measured_points({point_record(2), old}));
  std::vector<Record> two_efforts;
  for (const double duration_s : {30.0, 60.0})
    for (int gpu = 0; gpu < 4; ++gpu) {
      auto r = point_record(1);
      r.axes["duration_s"] = duration_s;
      two_efforts.push_back(r);
    }
  EXPECT_EQ(measured_points(two_efforts)->begin()->second, 4);
}

// A pair point's server end (rdma mode=ranks) holds none of the pair's figure: a host that was
// the server end of a retest did not measure again what it measured as the measuring end.
TEST(RunPoints, APairsServerEndIsAnotherPointThanItsMeasuringEnd) {
  auto measuring = point_record(1);
  auto server = point_record(1);
  server.metrics["role"] = "server";
  EXPECT_NE(point_of(measuring), point_of(server));
  EXPECT_EQ(point_of(server), point_of(server));
}

TEST(RunPoints, TheStoredTextReadsBackAndJunkDoesNot) {
  const auto points = *measured_points({point_record(1), point_record(1), point_record(2)});
  const auto text = points_text(points);
  EXPECT_EQ(parse_points_text(text), points);
  EXPECT_EQ(parse_points_text(""), PointCounts{});
  for (const auto *junk : {"x", "0123456789abcdef", "0123456789abcdef:0", "0123456789abcdef:2x",
                           "0123:2", "0123456789abcdeg:1"})
    EXPECT_FALSE(parse_points_text(junk)) << junk;
}

// The most any one newer run measured a point covers it: two retests of GPU 3 are not GPU 3 and
// GPU 5; a newer run that was stopped covers nothing; an unfinished run needs a whole run of its
// plan; a run whose points are not known (stored before they were) is superseded by any newer.
TEST(RunPoints, AnOlderRunIsSupersededOnlyWhereNewerRunsMeasuredAllItDid) {
  const PointCounts eight{{7, 8}}, one{{7, 1}}, other{{9, 8}};
  const auto judged = [](const std::vector<RunToSupersede> &runs) {
    std::vector<bool> out;
    for (const auto &o : supersede(runs))
      out.push_back(o.judged);
    return out;
  };
  EXPECT_EQ(judged({{.points = eight}, {.points = eight}}), (std::vector{true, false}));
  // The older retest of one GPU is covered by the newer; the run of eight is not.
  EXPECT_EQ(judged({{.points = one}, {.points = one}, {.points = eight}}),
            (std::vector{true, false, true}));
  EXPECT_EQ(judged({{.points = other}, {.points = eight}}), (std::vector{true, true}));
  EXPECT_EQ(judged({{.points = eight, .stopped = true}, {.points = eight}}),
            (std::vector{true, true}));
  EXPECT_EQ(judged({{.points = eight, .plan = "q"}, {.points = one, .whole = false, .plan = "p"}}),
            (std::vector{true, true}));
  EXPECT_EQ(judged({{.points = eight, .plan = "p"}, {.points = one, .whole = false, .plan = "p"}}),
            (std::vector{true, false}));
  // A whole run that planned as many points (the same burn-in at another budget) repeats it.
  EXPECT_EQ(judged({{.points = eight, .plan = "q", .planned = 12},
                    {.points = one, .whole = false, .plan = "p", .planned = 12}}),
            (std::vector{true, false}));
  EXPECT_EQ(judged({{.points = eight, .plan = "q", .planned = 11},
                    {.points = one, .whole = false, .plan = "p", .planned = 12}}),
            (std::vector{true, true}));
  // An unfinished run of an older railgauge names no plan: any newer whole run repeats it.
  EXPECT_EQ(judged({{.points = eight, .plan = "q"}, {.points = one, .whole = false}}),
            (std::vector{true, false}));
  EXPECT_EQ(
      judged({{.points = eight, .whole = false, .plan = "q"}, {.points = one, .whole = false}}),
      (std::vector{true, true}));
  EXPECT_EQ(judged({{.points = one}, {.points_unknown = true}}), (std::vector{true, false}));
  EXPECT_EQ(judged({{.points_unknown = true}, {.points = eight}}), (std::vector{true, false}));
  EXPECT_EQ(judged({{.points = one, .stopped = true}, {.points_unknown = true}}),
            (std::vector{true, true}));
  EXPECT_EQ(kept_beside_text(supersede({{.points = one, .stopped = true}, {.points = one}}).at(1)),
            "judged beside newer runs of its host and suite for the 1 of its 1 points they did "
            "not measure again (1 newer run that a signal stopped measured nothing again)");
  const auto outcome = supersede({{.points = one}, {.points = eight}}).at(1);
  EXPECT_EQ(kept_beside_text(outcome), "judged beside newer runs of its host and suite for the 7 "
                                       "of its 8 points they did not measure again");
  EXPECT_TRUE(outcome.measured_again.empty()); // one GPU of eight measured again is not the point
  const auto other_point = supersede({{.points = {{9, 1}}}, {.points = eight}}).at(1);
  EXPECT_EQ(other_point.measured_again, std::set<std::uint64_t>{9});
}

class RetestTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("run_points_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Run `name` of node01's suite "node", started on `day`, of plan `plan`, with `status`: a
  // record of each of `points` (sizes), `failed` of them failed, `waived` waived.
  void run(const std::string &name, int day, const std::string &plan, std::vector<int> points,
           const std::string &status = "complete", std::vector<int> failed = {},
           std::vector<int> waived = {}) {
    const auto dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "run.json") << nlohmann::json{
        {"schema", "railgauge.run/1"},
        {"host", "node01"},
        {"run", name},
        {"status", status},
        {"suite", {{"name", "node"}}},
        {"plan", {{"digest", plan}, {"points", points.size()}}},
        {"start_utc", fmt::format("2026-01-{:02d}T00:00:00Z",
                                  day)}}.dump();
    RecordFile file((dir / "records.jsonl").string());
    for (const int size : points) {
      const auto in = [&](const std::vector<int> &v) {
        return std::find(v.begin(), v.end(), size) != v.end();
      };
      auto r = point_record(size, in(failed)   ? Status::failed
                                  : in(waived) ? Status::waived
                                               : Status::ok);
      r.run = name;
      file.append(r);
    }
  }

  // The runs judged, each with the sizes of the points judged in it (a point a newer run
  // measured again is not): "burnin 1 2".
  std::vector<std::string> kept(std::vector<std::string> *beside = nullptr) {
    auto set = load_runs({root_.string()});
    keep_latest_per_host(
        set, [](const LoadedRun &r) { return r.manifest.value("status", "") == "complete"; },
        beside);
    std::vector<std::string> names;
    for (const auto &r : set.runs) {
      names.push_back(fs::path(r.dir).filename().string());
      for (const auto &record : r.records)
        names.back() += " " + record.axes["size_bytes"].dump();
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path root_;
};

// A burn-in failed one point; a retest with --filter ran another point and passed. It once
// superseded the burn-in, and the node passed on a point it never ran again.
TEST_F(RetestTest, ARetestOfOtherPointsLeavesTheFailedRunJudged) {
  run("burnin", 1, "all", {1, 2, 3}, "complete", {3});
  run("retest", 2, "one", {1});
  std::vector<std::string> beside;
  EXPECT_EQ(kept(&beside), (std::vector<std::string>{"burnin 2 3", "retest 1"}));
  ASSERT_EQ(beside.size(), 1u);
  EXPECT_EQ(beside[0], "node01: run burnin (started 2026-01-01T00:00:00Z) is judged beside newer "
                       "runs of its host and suite for the 2 of its 3 points they did not "
                       "measure again");
  // A retest of the failed point judges it again, and the burn-in is judged for point 2 alone.
  run("retest3", 3, "three", {3});
  EXPECT_EQ(kept(), (std::vector<std::string>{"burnin 2", "retest 1", "retest3 3"}));
  // Retests of every point cover it: the burn-in and the older retests are superseded.
  run("retest23", 4, "two", {2, 3});
  EXPECT_EQ(kept(), (std::vector<std::string>{"retest 1", "retest23 2 3"}));
  run("again", 5, "all", {1, 2, 3});
  EXPECT_EQ(kept(), (std::vector<std::string>{"again 1 2 3"}));
}

// A retest whose point was waived (it could not run) measured nothing again; a run that failed
// part way is superseded only by a whole run of its plan, as its unmeasured points are unknown.
TEST_F(RetestTest, AWaivedRetestOrAnotherPlanDoesNotSupersedeWhatItDidNotMeasure) {
  run("pattern", 1, "all", {1, 2}, "complete", {2});
  run("waived", 2, "all", {1, 2}, "complete", {}, {2});
  EXPECT_EQ(kept(), (std::vector<std::string>{"pattern 2", "waived 1 2"}));
  fs::remove_all(root_ / "pattern");
  fs::remove_all(root_ / "waived");
  run("burnin", 1, "all", {1, 2}, "failed", {2});
  run("retest", 2, "one", {1, 2});
  std::vector<std::string> beside;
  EXPECT_EQ(kept(&beside), (std::vector<std::string>{"burnin", "retest 1 2"}));
  ASSERT_EQ(beside.size(), 1u);
  EXPECT_NE(beside[0].find("judged beside newer runs of its host and suite: it did not finish its "
                           "plan, and no newer run of that plan did (they measured all 2 of its "
                           "points again)"),
            std::string::npos)
      << beside[0];
  run("whole", 3, "all", {1, 2});
  EXPECT_EQ(kept(), (std::vector<std::string>{"whole 1 2"}));
}

} // namespace
} // namespace railgauge::analysis
