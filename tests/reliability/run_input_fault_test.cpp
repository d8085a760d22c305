// The run loader shared by check, compare, report and calibrate on inputs that fail: every run
// given is loaded or named, never dropped, and no bad file stops or hangs the rest. The faults
// are made so that they hold as root too (a FIFO, a directory where a file belongs, a link loop,
// an I/O error from /proc/self/mem); only the permission test needs an unprivileged user.
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/run_completeness.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/record_io.h"
#include "tests/reliability/temp_dir.h"

namespace railgauge::analysis {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A run directory of `records` records from `host`, with the run.json `railgauge run` writes.
fs::path make_run(const fs::path &dir, const std::string &host, int records,
                  json manifest = json::object()) {
  fs::create_directories(dir);
  json m = {{"schema", "railgauge.run/1"}, {"run", "run-" + host}, {"host", host}, {"rank", 0}};
  m.update(manifest);
  std::ofstream(dir / "run.json") << m.dump();
  RecordFile file((dir / "records.jsonl").string());
  for (int i = 0; i < records; ++i) {
    Record r;
    r.run = "run-" + host;
    r.host = host;
    r.key = "memory.host_read";
    r.params = {{"size_bytes", 1 << i}};
    r.time_utc = "2026-01-01T00:00:00.000Z";
    file.append(r);
  }
  return dir;
}

// A one-record run of `host` whose run.json is gone: the path, for a test to put something
// else there.
fs::path run_without_manifest(const fs::path &dir, const std::string &host) {
  make_run(dir, host, 1);
  fs::remove(dir / "run.json");
  return dir / "run.json";
}

bool any_contains(const std::vector<std::string> &lines, const std::string &text) {
  for (const auto &l : lines)
    if (l.find(text) != std::string::npos)
      return true;
  return false;
}

TEST(RunInputFaults, ARunDirectoryReachedThroughASymlinkIsLoaded) {
  testing::TempDir tmp("symlinked_run");
  const fs::path root = tmp.path();
  make_run(root / "rack" / "node01", "node01", 2);
  make_run(root / "elsewhere" / "node02", "node02", 3);
  fs::create_directory_symlink(root / "elsewhere" / "node02", root / "rack" / "node02");
  const auto set = load_runs({(root / "rack").string()});
  ASSERT_EQ(set.runs.size(), 2u);
  EXPECT_EQ(set.record_count(), 5u);
  EXPECT_TRUE(set.unreadable.empty());
}

TEST(RunInputFaults, ALinkBackToAnAncestorIsALoopAndEachRunLoadsOnce) {
  testing::TempDir tmp("loop");
  const fs::path rack = fs::path(tmp.path()) / "rack";
  make_run(rack / "node01", "node01", 2);
  fs::create_directory_symlink(rack, rack / "node01" / "up");
  const auto set = load_runs({rack.string()});
  ASSERT_EQ(set.runs.size(), 1u);
  EXPECT_TRUE(any_contains(set.problems, "symbolic link loop back to"));
  EXPECT_TRUE(set.unreadable.empty());
}

TEST(RunInputFaults, ALinkToItselfIsNamedAsALoopNotAsMissing) {
  testing::TempDir tmp("self_link");
  const fs::path rack = fs::path(tmp.path()) / "rack";
  make_run(rack / "node01", "node01", 1);
  fs::create_symlink(rack / "node02", rack / "node02");
  const auto set = load_runs({rack.string()});
  ASSERT_EQ(set.unreadable.size(), 1u);
  EXPECT_EQ(set.unreadable[0].path, (rack / "node02").string());
  EXPECT_NE(set.unreadable[0].what.find("symbolic link loop"), std::string::npos);
  try {
    load_runs({(rack / "node02").string()});
    FAIL() << "a looping path given was accepted";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link loop"), std::string::npos) << e.what();
  }
}

TEST(RunInputFaults, FifosAndDirectoriesWhereFilesBelongAreNamedWithoutBlocking) {
  testing::TempDir tmp("fifo");
  const fs::path rack = tmp.path();
  make_run(rack / "good", "good", 2);
  // A FIFO named run.json: opening it for reading would wait for a writer forever.
  ASSERT_EQ(::mkfifo(run_without_manifest(rack / "fifo_manifest", "fifo_manifest").c_str(), 0644),
            0);
  fs::create_directories(rack / "fifo_records");
  ASSERT_EQ(::mkfifo((rack / "fifo_records" / "records.jsonl").c_str(), 0644), 0);
  fs::create_directory(run_without_manifest(rack / "dir_manifest", "dir_manifest"));
  fs::create_directories(rack / "dir_records" / "records.jsonl");
  const auto set = load_runs({rack.string()});
  std::vector<std::string> named;
  for (const auto &u : set.unreadable)
    named.push_back(u.path + ": " + u.what);
  EXPECT_TRUE(any_contains(named, "fifo_manifest/run.json: a FIFO"))
      << ::testing::PrintToString(named);
  EXPECT_TRUE(any_contains(named, "fifo_records/records.jsonl: a FIFO"));
  EXPECT_TRUE(any_contains(named, "dir_manifest/run.json: a directory"));
  EXPECT_TRUE(any_contains(named, "dir_records/records.jsonl: a directory"));
  EXPECT_EQ(set.unreadable.size(), 4u);
  // The runs whose records could be read are still judged.
  EXPECT_EQ(set.record_count(), 4u);
}

// A directory where the run's records file belongs, beside its run.json: the run is loaded from
// its run.json and the file named in it, as a FIFO's is. The run was dropped whole, and its
// node's older run alone judged (and passed) it.
TEST(RunInputFaults, ADirectoryForTheRecordsOfARunLeavesTheRunLoaded) {
  testing::TempDir tmp("dirrecords");
  const fs::path run = make_run(fs::path(tmp.path()) / "run", "node01", 2);
  fs::remove(run / "records.jsonl");
  fs::create_directory(run / "records.jsonl");
  const auto set = load_runs({tmp.path()}, {.refused_runs_are_input = true}); // as check
  ASSERT_EQ(set.runs.size(), 1u);
  EXPECT_EQ(set.runs[0].manifest.value("host", ""), "node01");
  ASSERT_EQ(set.unreadable.size(), 1u);
  EXPECT_EQ(set.unreadable[0].path, (run / "records.jsonl").string());
}

TEST(RunInputFaults, AnIoErrorIsOneProblemNamingThePath) {
  testing::TempDir tmp("eio");
  const fs::path rack = tmp.path();
  make_run(rack / "good", "good", 2);
  // Reading /proc/self/mem at offset 0 (never mapped) fails with EIO, as a failing disk does.
  fs::create_symlink("/proc/self/mem", run_without_manifest(rack / "eio", "eio"));
  const auto set = load_runs({rack.string()});
  ASSERT_EQ(set.unreadable.size(), 1u);
  EXPECT_EQ(set.unreadable[0].path, (rack / "eio" / "run.json").string());
  EXPECT_NE(set.unreadable[0].what.find("Input/output error"), std::string::npos)
      << set.unreadable[0].what;
  EXPECT_EQ(set.record_count(), 3u);
}

TEST(RunInputFaults, ADirectoryWithoutPermissionIsNamed) {
  if (::geteuid() == 0)
    GTEST_SKIP() << "root reads a directory of mode 000; the FIFO, loop and EIO tests cover "
                    "unreadable paths as root";
  testing::TempDir tmp("eacces");
  const fs::path rack = tmp.path();
  make_run(rack / "good", "good", 1);
  make_run(rack / "locked" / "node02", "node02", 1);
  fs::permissions(rack / "locked", fs::perms::none);
  const auto set = load_runs({rack.string()});
  fs::permissions(rack / "locked", fs::perms::owner_all);
  ASSERT_EQ(set.unreadable.size(), 1u);
  EXPECT_EQ(set.unreadable[0].path, (rack / "locked").string());
  EXPECT_NE(set.unreadable[0].what.find("Permission denied"), std::string::npos);
}

TEST(RunInputFaults, ACopiedRunIsLoadedOnceAndSaid) {
  testing::TempDir tmp("copy");
  const fs::path rack = tmp.path();
  make_run(rack / "a" / "node01", "node01", 3);
  make_run(rack / "a" / "node02", "node02", 3);
  fs::create_directories(rack / "b");
  fs::copy(rack / "a" / "node01", rack / "b" / "node01", fs::copy_options::recursive);
  const auto set = load_runs({rack.string()});
  EXPECT_EQ(set.runs.size(), 2u);
  EXPECT_EQ(set.record_count(), 6u);
  EXPECT_TRUE(any_contains(set.problems, "a copy of")) << ::testing::PrintToString(set.problems);
  // The same directory given twice is one run too.
  EXPECT_EQ(load_runs({(rack / "a").string(), (rack / "a").string()}).runs.size(), 2u);
}

TEST(RunInputFaults, TwoRunsStartedInTheSameSecondAreTwoRuns) {
  // The run id is the start second and the host: a gemm and a collectives run started together
  // into two --out directories share it, and neither is a copy of the other.
  testing::TempDir tmp("same-second");
  const fs::path out = tmp.path();
  make_run(out / "gemm" / "r", "node01", 3,
           {{"start_utc", "2026-01-01T00:00:00.120Z"}, {"suite", {{"name", "gemm"}}}});
  make_run(out / "coll" / "r", "node01", 2,
           {{"start_utc", "2026-01-01T00:00:00.480Z"}, {"suite", {{"name", "collectives"}}}});
  const auto set = load_runs({(out / "gemm").string(), (out / "coll").string()});
  EXPECT_EQ(set.runs.size(), 2u) << ::testing::PrintToString(set.problems);
  EXPECT_EQ(set.record_count(), 5u);
  EXPECT_FALSE(any_contains(set.problems, "a copy of"));
}

TEST(RunInputFaults, ARunCutShortOrMiscountedIsNotWhole) {
  testing::TempDir tmp("incomplete");
  const fs::path rack = tmp.path();
  // SIGKILLed after 4 of 11 points: run.json still says running.
  make_run(rack / "killed", "killed", 4, {{"status", "running"}, {"points_planned", 11}});
  // Complete by its status, but a failed record's line was cut in half.
  const auto cut = make_run(
      rack / "cut", "cut", 3,
      {{"status", "complete"}, {"points_planned", 4}, {"counts", {{"ok", 3}, {"failed", 1}}}});
  std::ofstream(cut / "records.jsonl", std::ios::app) << R"({"schema":"railgauge.record/1","st)";
  make_run(rack / "whole", "whole", 2,
           {{"status", "complete"}, {"points_planned", 2}, {"counts", {{"ok", 2}}}});
  const auto set = load_runs({rack.string()});
  ASSERT_EQ(set.runs.size(), 3u);
  std::map<std::string, std::vector<std::string>> why;
  for (const auto &run : set.runs)
    why[fs::path(run.dir).filename().string()] = railgauge::check::incompleteness(run);
  EXPECT_TRUE(any_contains(why["killed"], "status 'running'"));
  EXPECT_TRUE(any_contains(why["killed"], "4 of 11 planned points"));
  EXPECT_TRUE(any_contains(why["cut"], "failed 1 in run.json, 0 read"))
      << ::testing::PrintToString(why["cut"]);
  EXPECT_TRUE(why["whole"].empty()) << ::testing::PrintToString(why["whole"]);
}

} // namespace
} // namespace railgauge::analysis
