#include "harness/runner.h"

#include <filesystem>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "fake_benchmark.h"
#include "harness/did_you_mean.h"
#include "harness/error.h"
#include "harness/store/store.h"
#include "harness/waived_benchmark.h"
#include "tests/support/fake_run_fixture.h"

namespace railgauge {
namespace {

class RunnerTest : public testing::FakeRunFixture {
protected:
  RunnerTest() : FakeRunFixture({"fake.alpha", "fake.beta"}, 0.01) {}
};

// A benchmark of a backend this build lacks keeps the real one's key and axes, so a suite plans
// the same points on every build, and each of them is waived with the reason.
TEST_F(RunnerTest, AWaivedBenchmarkPlansTheRealAxesAndWaivesEachPoint) {
  Registry registry;
  registry.add(make_waived_benchmark("fake.gamma", "gamma (needs X)",
                                     registry_.find("fake.alpha")->axes(), "built without X"));
  entry_.key_glob = "fake.gamma";
  const auto plan = make_plan(registry, {entry_}, {}, std::nullopt, ctx_);
  ASSERT_EQ(plan.items.size(), 1u);
  EXPECT_EQ(plan.point_count(), 2u); // fake.alpha's 2 sizes x 1 mode
  Benchmark &waived = *plan.items[0].benchmark;
  EXPECT_EQ(waived.key(), "fake.gamma");
  EXPECT_EQ(waived.description(), "gamma (needs X)");
  for (const Point &point : plan.items[0].points) {
    EXPECT_EQ(waived.supported(ctx_, point), "built without X");
    const Outcome out = waived.run(ctx_, point);
    EXPECT_EQ(out.status, Status::waived);
    EXPECT_EQ(out.reason, "built without X");
  }
}

TEST_F(RunnerTest, PlanSweepsDefaultsSuiteAxesAndOverrides) {
  auto plan = make_plan(registry_, {entry_}, {}, std::nullopt, ctx_);
  ASSERT_EQ(plan.items.size(), 2u);
  EXPECT_EQ(plan.point_count(), 4u); // 2 sizes x 1 mode, two benchmarks

  entry_.axes["mode"] = "ok,fail";
  entry_.axis_where["mode"] = "s.yaml:5";
  plan = make_plan(registry_, {entry_}, {parse_axis_override("size_bytes=1K:8K:*2")},
                   std::string("fake.beta"), ctx_);
  ASSERT_EQ(plan.items.size(), 1u);
  EXPECT_EQ(plan.items[0].benchmark->key(), "fake.beta");
  EXPECT_EQ(plan.point_count(), 8u);
}

// A glob takes a benchmark once; entries that name it exactly each add their points (a burn-in's
// GEMM in bf16, then in fp64), and an exact entry after a glob that planned it adds nothing.
TEST_F(RunnerTest, ExactEntriesOfOneKeyEachPlanTheirPoints) {
  SuiteEntry first = entry_, second = entry_;
  first.key_glob = second.key_glob = "fake.alpha";
  first.axes["mode"] = "ok";
  second.axes["mode"] = "fail";
  first.axis_where["mode"] = second.axis_where["mode"] = "s.yaml:4";
  auto plan = make_plan(registry_, {first, second}, {}, std::nullopt, ctx_);
  ASSERT_EQ(plan.items.size(), 2u);
  EXPECT_EQ(plan.items[0].points.at(0).text("mode"), "ok");
  EXPECT_EQ(plan.items[1].points.at(0).text("mode"), "fail");
  plan = make_plan(registry_, {entry_, second}, {}, std::nullopt, ctx_);
  EXPECT_EQ(plan.items.size(), 2u) << "fake.* planned alpha and beta; alpha is not repeated";
  plan = make_plan(registry_, {second, entry_}, {}, std::nullopt, ctx_);
  ASSERT_EQ(plan.items.size(), 2u) << "the glob adds only beta";
  EXPECT_EQ(plan.items[1].benchmark->key(), "fake.beta");
}

TEST_F(RunnerTest, PlanErrorsNameWhatWhereAndFix) {
  EXPECT_THROW(parse_axis_override("size_bytes"), InputError);
  try {
    make_plan(registry_, {entry_}, {parse_axis_override("sizes=1K")}, std::nullopt, ctx_);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "--axis sizes=1K");
    EXPECT_NE(e.fix().find("size_bytes"), std::string::npos) << e.fix();
  }
  try {
    make_plan(registry_, {entry_}, {}, std::string("fake.gamma"), ctx_);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_NE(e.fix().find("fake.alpha"), std::string::npos) << e.fix();
  }
  SuiteEntry bad = entry_;
  bad.axes["colour"] = "red";
  bad.axis_where["colour"] = "s.yaml:9";
  try {
    make_plan(registry_, {bad}, {}, std::nullopt, ctx_);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "s.yaml:9");
  }
  bad = entry_;
  bad.axes["mode"] = "sideways";
  bad.axis_where["mode"] = "s.yaml:6";
  try {
    make_plan(registry_, {bad}, {}, std::nullopt, ctx_);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), "s.yaml:6");
  }
  bad = entry_;
  bad.key_glob = "fake.alfa";
  EXPECT_THROW(make_plan(registry_, {bad}, {}, std::nullopt, ctx_), InputError);
}

class NullPrinter final : public RecordPrinter {
public:
  void on_record(const Record &r) override { seen.push_back(r); }
  std::vector<Record> seen;
};

// A misspelt axis is answered with the axis it most likely meant: `size` typed for `size_bytes`,
// on the command line and in a suite.
TEST_F(RunnerTest, AnUnknownAxisNamesTheOneItMostLikelyMeant) {
  try {
    make_plan(registry_, {entry_}, {parse_axis_override("size=1K")}, std::nullopt, ctx_);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_TRUE(e.fix().starts_with("did you mean 'size_bytes'? ")) << e.fix();
  }
  SuiteEntry bad = entry_;
  bad.axes["mdoe"] = "ok";
  bad.axis_where["mdoe"] = "s.yaml:9";
  try {
    make_plan(registry_, {bad}, {}, std::nullopt, ctx_);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_TRUE(e.fix().starts_with("did you mean 'mode'? ")) << e.fix();
  }
}

TEST(DidYouMean, ANameTypedShortOrWithATypoButNeverAGuessAtRandom) {
  const std::vector<std::string> axes = {"numa_node", "threads", "size_bytes"};
  EXPECT_EQ(likely_meant("size", axes), std::vector<std::string>{"size_bytes"});
  EXPECT_EQ(likely_meant("thraeds", axes), std::vector<std::string>{"threads"});
  EXPECT_TRUE(likely_meant("colour", axes).empty());
  const std::vector<std::string> suites = {"burnin-gpu", "collectives", "node", "quick"};
  EXPECT_EQ(did_you_mean("nodes", suites), "did you mean 'node'? ");
  EXPECT_EQ(did_you_mean("h200", {"h100-sxm", "h200-sxm", "h200-sxm-1gpu"}),
            "did you mean 'h200-sxm' or 'h200-sxm-1gpu'? ");
  EXPECT_EQ(did_you_mean("zzz", suites), "");
}

TEST_F(RunnerTest, EveryPointBecomesOneRecordWhateverItsOutcome) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("railgauge_runner_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  entry_.axes["mode"] = "ok,waive,throw,fail,throw_in_supported";
  entry_.axis_where["mode"] = "s.yaml:5";
  const auto plan = make_plan(registry_, {entry_}, {parse_axis_override("size_bytes=1K")},
                              std::string("fake.alpha"), ctx_);
  RecordFile file((dir / "records.jsonl").string());
  NullPrinter printer;
  const RunIdentity id{"run-1", "testhost", 0, dir.string()};
  const auto counts = execute_plan(plan, ctx_, id, {file, printer, false});
  EXPECT_EQ(counts.at("ok"), 1);
  EXPECT_EQ(counts.at("waived"), 1);
  EXPECT_EQ(counts.at("error"), 2);
  EXPECT_EQ(counts.at("failed"), 1);

  const auto read = read_records((dir / "records.jsonl").string());
  ASSERT_EQ(read.records.size(), 5u);
  EXPECT_EQ(read.records[4].reason, "scripted failure inside supported()");
  EXPECT_EQ(read.records[0].params["threads_used"], 1); // derived params merged
  EXPECT_EQ(read.records[0].params["size_bytes"], 1024);
  EXPECT_EQ(read.records[1].reason, "scripted waiver");
  EXPECT_EQ(read.records[2].reason, "scripted failure inside run()");
  EXPECT_EQ(read.records[3].status, Status::failed);
  EXPECT_EQ(read.records[3].run, "run-1");
  EXPECT_EQ(printer.seen.size(), 5u);
  std::filesystem::remove_all(dir);
}

// A multi-rank point whose peer never arrives: every later point would wait the store timeout
// for it again (7 error records 15 s apart, once), so the run stops after it and says why.
class SilentPeerBenchmark final : public Benchmark {
public:
  std::string_view key() const override { return "fake.silent_peer"; }
  std::string_view description() const override { return "a peer that never arrives"; }
  std::vector<Axis> axes() const override {
    return {{"size_bytes", AxisType::bytes, "bytes", {std::int64_t{1024}, std::int64_t{2048}}, {}}};
  }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return std::nullopt;
  }
  Outcome run(RunContext &, const Point &) override {
    ++runs;
    throw StoreTimeout("barrier 'x': rank 1 of 2 did not arrive within 3 s", {"barrier/x/1"});
  }
  int runs = 0;
};

TEST_F(RunnerTest, APeerSilentPastTheStoreTimeoutStopsTheRun) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("railgauge_runner_silent_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Registry registry;
  auto bench = std::make_unique<SilentPeerBenchmark>();
  const auto &silent = *bench;
  registry.add(std::move(bench));
  SuiteEntry entry = entry_;
  entry.key_glob = "fake.silent_peer";
  const auto plan = make_plan(registry, {entry}, {}, std::nullopt, ctx_);
  ASSERT_EQ(plan.point_count(), 2u);
  RecordFile file((dir / "records.jsonl").string());
  NullPrinter printer;
  std::string stopped_early;
  RunnerOutput out{file, printer, false};
  out.stopped_early = &stopped_early;
  const auto counts = execute_plan(plan, ctx_, {"run-1", "testhost", 0, dir.string()}, out);
  EXPECT_EQ(silent.runs, 1);
  EXPECT_EQ(counts.at("error"), 1);
  const auto read = read_records((dir / "records.jsonl").string());
  ASSERT_EQ(read.records.size(), 1u);
  EXPECT_EQ(read.records[0].reason, "barrier 'x': rank 1 of 2 did not arrive within 3 s");
  EXPECT_EQ(stopped_early, "barrier 'x': rank 1 of 2 did not arrive within 3 s");
  std::filesystem::remove_all(dir);
}

// Runs the plan into `records`; the records per status and the points named noisier than their
// bound.
struct NoisyRun {
  std::map<std::string, int> counts;
  std::vector<NoisyPoint> noisy;
};
NoisyRun run_collecting_noisy(const RunPlan &plan, RunContext &ctx,
                              const std::filesystem::path &records) {
  RecordFile file(records.string());
  NullPrinter printer;
  NoisyRun run;
  RunnerOutput out{file, printer, false};
  out.noisy = &run.noisy;
  run.counts =
      execute_plan(plan, ctx, {"run-1", "testhost", 0, records.parent_path().string()}, out);
  return run;
}

// A point noisier than its entry's noise_bound is handed back for the summary and the exit
// status; with no bound (0, the default) none is, however noisy.
TEST_F(RunnerTest, PointsNoisierThanTheirBoundAreCollected) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("railgauge_runner_noise_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  entry_.axes["mode"] = "ok,noisy";
  entry_.axis_where["mode"] = "s.yaml:5";
  for (const double bound : {0.5, 0.0}) {
    entry_.measure.noise_bound = bound;
    const auto plan = make_plan(registry_, {entry_}, {parse_axis_override("size_bytes=1K")},
                                std::string("fake.alpha"), ctx_);
    const auto [counts, noisy] = run_collecting_noisy(plan, ctx_, dir / "records.jsonl");
    EXPECT_EQ(counts.at("ok"), 2);
    if (bound == 0) {
      EXPECT_TRUE(noisy.empty());
      continue;
    }
    ASSERT_EQ(noisy.size(), 1u);
    EXPECT_EQ(noisy[0].key, "fake.alpha");
    EXPECT_NE(noisy[0].point.find("mode=noisy"), std::string::npos) << noisy[0].point;
    EXPECT_DOUBLE_EQ(noisy[0].noise, 2.0);
    EXPECT_DOUBLE_EQ(noisy[0].bound, 0.5);
    EXPECT_NE(noisy_points_line(noisy).find("exits 1"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

// With noise_retries, a point past its bound is measured again: one noisy once is kept from its
// second measurement, with the first's noise in the record, and is not named; one noisy every
// time is measured 1 + retries times and still named. Many ranks never measure again alone.
TEST_F(RunnerTest, ANoisyPointIsMeasuredAgainUpToItsRetries) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("railgauge_runner_retry_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  entry_.axes["mode"] = "noisy_once,noisy";
  entry_.axis_where["mode"] = "s.yaml:5";
  entry_.measure.noise_bound = 0.5;
  entry_.measure.noise_retries = 2;
  const auto plan = make_plan(registry_, {entry_}, {parse_axis_override("size_bytes=1K")},
                              std::string("fake.alpha"), ctx_);
  const auto [counts, noisy] = run_collecting_noisy(plan, ctx_, dir / "records.jsonl");
  EXPECT_EQ(counts.at("ok"), 2);
  ASSERT_EQ(noisy.size(), 1u);
  EXPECT_NE(noisy[0].point.find("mode=noisy"), std::string::npos) << noisy[0].point;
  EXPECT_EQ(noisy[0].point.find("noisy_once"), std::string::npos) << noisy[0].point;
  const auto read = read_records((dir / "records.jsonl").string());
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.records[0].metrics.at("noise_before_remeasure"), nlohmann::json({2.0}));
  EXPECT_EQ(read.records[1].metrics.at("noise_before_remeasure"), nlohmann::json({2.0, 2.0}));

  // Two ranks: the noisy point is measured once and named.
  ctx_.set_world(2, nullptr);
  const auto one_point = make_plan(registry_, {entry_}, {parse_axis_override("mode=noisy")},
                                   std::string("fake.beta"), ctx_);
  EXPECT_EQ(run_collecting_noisy(one_point, ctx_, dir / "ranks.jsonl").noisy.size(),
            2u); // size_bytes 1K and 2K
  for (const auto &record : read_records((dir / "ranks.jsonl").string()).records)
    EXPECT_FALSE(record.metrics.contains("noise_before_remeasure"));
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace railgauge
