#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/record_io.h"

namespace railgauge::analysis {
namespace {

namespace fs = std::filesystem;

class RunSetTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("run_set_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A run directory with `n` records from `host`.
  fs::path make_run(const std::string &name, const std::string &host, int n) {
    const fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "run.json") << R"({"schema":"railgauge.run/1","host":")" << host << "\"}";
    RecordFile file((dir / "records.jsonl").string());
    for (int i = 0; i < n; ++i) {
      Record r;
      r.run = name;
      r.host = host;
      r.key = "memory.host_read";
      r.params = {{"size_bytes", 1 << i}};
      r.time_utc = utc_timestamp_now();
      file.append(r);
    }
    return dir;
  }

  fs::path root_;
};

TEST_F(RunSetTest, LoadsARunDirectory) {
  const auto dir = make_run("a", "node017", 3);
  const auto set = load_runs({dir.string()});
  ASSERT_EQ(set.runs.size(), 1u);
  EXPECT_EQ(set.record_count(), 3u);
  EXPECT_EQ(set.runs[0].manifest["host"], "node017");
  EXPECT_TRUE(set.problems.empty());
}

TEST_F(RunSetTest, MergesEveryRunUnderADirectoryInSortedOrder) {
  make_run("rack/node002", "node002", 2);
  make_run("rack/node001", "node001", 1);
  const auto set = load_runs({(root_ / "rack").string()});
  ASSERT_EQ(set.runs.size(), 2u);
  EXPECT_EQ(set.records().front()->host, "node001");
  EXPECT_EQ(set.record_count(), 3u);
}

TEST_F(RunSetTest, KeepsUnreadableLinesAsProblems) {
  const auto dir = make_run("a", "n", 2);
  std::ofstream(dir / "records.jsonl", std::ios::app) << "{\"truncated\n";
  const auto set = load_runs({dir.string()});
  EXPECT_EQ(set.record_count(), 2u);
  ASSERT_EQ(set.problems.size(), 1u);
  EXPECT_NE(set.problems[0].find(":3:"), std::string::npos) << set.problems[0];
}

TEST_F(RunSetTest, MissingPathAndEmptyDirectoryAreInputErrors) {
  EXPECT_THROW(load_runs({(root_ / "nope").string()}), InputError);
  fs::create_directories(root_ / "empty");
  EXPECT_THROW(load_runs({(root_ / "empty").string()}), InputError);
}

} // namespace
} // namespace railgauge::analysis
