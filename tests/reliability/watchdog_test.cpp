// A point that never finishes (harness/watchdog.h): the watchdog records it as `error` and
// calls the run's handler; with the command line's handler (end_hung_run) the process marks
// run.json and exits with kWatchdogExitCode. The hang here is a host wait, standing in for a GPU
// kernel that never finishes (tests/reliability/hang_gpu_test.cpp has the real one).
#include "harness/watchdog.h"

#include <filesystem>
#include <fstream>
#include <future>

#include <gtest/gtest.h>

#include "harness/record_io.h"
#include "harness/run_failure.h"
#include "harness/runner.h"
#include "tests/harness/fake_benchmark.h"
#include "tests/reliability/temp_dir.h"
#include "tests/support/null_printer.h"

namespace railgauge {
namespace {

// key "fake.hang": the point hang=1 blocks until release() is called; hang=0 returns at once.
class HangBenchmark final : public Benchmark {
public:
  std::string_view key() const override { return "fake.hang"; }
  std::string_view description() const override { return "blocks until released"; }
  std::vector<Axis> axes() const override {
    return {{"hang", AxisType::integer, "1: never finishes on its own", {std::int64_t{0}}, {}}};
  }
  std::optional<std::string> supported(const RunContext &, const Point &) const override {
    return std::nullopt;
  }
  Outcome run(RunContext &, const Point &p) override {
    if (p.integer("hang") == 1)
      released_.get_future().wait();
    Outcome o;
    o.metrics["verified"] = true;
    return o;
  }
  void release() { released_.set_value(); }

private:
  std::promise<void> released_;
};

TEST(Watchdog, FiresOnlyWhenTheDeadlinePasses) {
  std::promise<std::string> fired;
  Watchdog dog([&](const std::string &what, double waited_s) {
    fired.set_value(what + " " + std::to_string(waited_s));
  });
  dog.arm("quick", 60);
  EXPECT_FALSE(dog.disarm());
  dog.arm("slow", 0.05);
  auto report = fired.get_future();
  report.wait(); // without the watchdog this test hangs until ctest's timeout
  EXPECT_EQ(report.get().substr(0, 4), "slow");
  EXPECT_TRUE(dog.disarm());
}

class HungPoint : public ::testing::Test {
protected:
  HungPoint() : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "testhost", 0) {
    auto bench = std::make_unique<HangBenchmark>();
    hang_ = bench.get();
    registry_.add(std::move(bench));
    SuiteEntry entry;
    entry.key_glob = "fake.hang";
    entry.where = "s.yaml:1";
    entry.axes["hang"] = "0,1,0";
    entry.axis_where["hang"] = "s.yaml:2";
    plan_ = make_plan(registry_, {entry}, {}, std::nullopt, ctx_);
  }
  std::string records_path() const { return dir_.path() + "/records.jsonl"; }

  testing::TempDir dir_{"watchdog"};
  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
  Registry registry_;
  HangBenchmark *hang_ = nullptr;
  RunPlan plan_;
};

TEST_F(HungPoint, BecomesAnErrorRecordAndTheHandlerRuns) {
  RecordFile file(records_path());
  testing::NullPrinter printer;
  RunnerOutput out{file, printer, false};
  out.point_timeout_s = 0.1;
  std::vector<Record> hung;
  out.on_point_hung = [&](const Record &r) {
    hung.push_back(r);
    hang_->release(); // a test can let the point go; a hung GPU kernel cannot be
  };
  const RunIdentity id{"run-1", "testhost", 0, dir_.path()};
  const auto counts = execute_plan(plan_, ctx_, id, out);
  EXPECT_EQ(counts, (std::map<std::string, int>{{"ok", 2}, {"error", 1}}));
  ASSERT_EQ(hung.size(), 1u);
  EXPECT_EQ(hung[0].params["hang"], 1);
  const auto read = read_records(records_path());
  ASSERT_EQ(read.records.size(), 3u) << "one record per point: the watchdog's, not a second";
  EXPECT_EQ(read.records[1].status, Status::error);
  EXPECT_NE(read.records[1].reason->find("did not finish within 0.1 s"), std::string::npos)
      << *read.records[1].reason;
  EXPECT_NE(read.records[1].reason->find("fake.hang hang=1"), std::string::npos);
}

// The command line's handler: run.json marked failed with the point, exit status 4.
TEST_F(HungPoint, CommandLineHandlerMarksTheRunAndExits) {
  const RunIdentity id{"run-1", "testhost", 0, dir_.path()};
  {
    Manifest manifest(id, {"railgauge", "run"});
    manifest.write();
  }
  const auto hang_until_the_watchdog_ends_it = [&] {
    Manifest manifest = Manifest::load(dir_.path());
    RecordFile file(records_path());
    testing::NullPrinter printer;
    RunnerOutput out{file, printer, false};
    out.point_timeout_s = 0.2;
    out.on_point_hung = [&](const Record &r) {
      end_hung_run(manifest, r, records_path(), "resume with --resume");
    };
    execute_plan(plan_, ctx_, id, out);
  };
  EXPECT_EXIT(hang_until_the_watchdog_ends_it(), ::testing::ExitedWithCode(kWatchdogExitCode),
              "watchdog: fake.hang: did not finish");
  auto manifest = Manifest::load(dir_.path());
  EXPECT_EQ(manifest.data()["status"], "failed") << manifest.data().dump();
  EXPECT_NE(manifest.data()["failure"].get<std::string>().find("fake.hang"), std::string::npos);
  EXPECT_EQ(manifest.data()["counts"], (nlohmann::json{{"ok", 1}, {"error", 1}}));
  const auto read = read_records(records_path());
  EXPECT_EQ(read.problems, std::vector<std::string>{});
  EXPECT_EQ(read.records.size(), 2u);
}

} // namespace
} // namespace railgauge
