#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "analysis/run_machines.h"
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

  // Rank `rank` of run `name` on node01 (one record), dated `start`, of `suite` on `world` ranks.
  void make_rank_run(const std::string &name, const std::string &start, int rank,
                     const std::string &suite, int world) {
    const nlohmann::json m = {{"schema", "railgauge.run/1"},
                              {"host", "node01"},
                              {"run", name},
                              {"rank", rank},
                              {"start_utc", start},
                              {"suite", {{"name", suite}}},
                              {"world", {{"size", world}, {"rank", rank}}}};
    std::ofstream(make_run(name + "/rank-" + std::to_string(rank), "node01", 1) / "run.json")
        << m.dump();
  }

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

  // A run of host "vm" whose inventory has machine id `id` (32 times its first letter; none
  // when empty) and one GPU of UUID `gpu`.
  void make_machine_run(const std::string &name, const std::string &id, const std::string &gpu,
                        const std::string &start) {
    const auto dir = make_run(name, "vm", 1);
    nlohmann::json inventory = {{"nvml", {{"gpus", {{{"uuid", gpu}}}}}}};
    if (!id.empty())
      inventory["machine_id"] = std::string(32, id[0]);
    std::ofstream(dir / "run.json") << nlohmann::json{
        {"schema", "railgauge.run/1"},
        {"host", "vm"},
        {"run", name},
        {"start_utc", start},
        {"inventory", inventory}}.dump();
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

// A retest supersedes the run of the same host, suite and world size; a run of another world
// size (a node's 8 ranks against 16 across two nodes) measures something else and stays.
TEST_F(RunSetTest, NewestRunPerHostSuiteAndWorldSizeIsKept) {
  const auto manifest = [&](const std::string &name, const std::string &start, int world) {
    nlohmann::json m = {{"schema", "railgauge.run/1"},
                        {"host", "node01"},
                        {"run", name},
                        {"start_utc", start},
                        {"suite", {{"name", "burnin-h100"}}}};
    if (world > 0)
      m["world"] = {{"size", world}};
    std::ofstream(make_run(name, "node01", 1) / "run.json") << m.dump();
  };
  manifest("old8", "2026-01-01T00:00:00Z", 8);
  manifest("new8", "2026-01-02T00:00:00Z", 8);
  manifest("wide16", "2026-01-01T12:00:00Z", 16);
  auto set = load_runs({root_.string()});
  ASSERT_EQ(set.runs.size(), 3u);
  const auto said = superseded_runs(set);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0], "node01 has 2 runs of suite 'burnin-h100' on 8 ranks");
  const auto dropped = keep_latest_per_host(set);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_NE(dropped[0].find("old8"), std::string::npos);
  ASSERT_EQ(set.runs.size(), 2u);
}

// Two imports of one host's logs (a slow run, then a healthy retest): imports are never
// superseded, so no note may point at --latest-per-host, which would change nothing.
TEST_F(RunSetTest, ImportsOfOneHostAreNotSaidToBeSuperseded) {
  for (const auto &[name, start] :
       {std::pair{"slow", "2026-01-01T00:00:00Z"}, std::pair{"retest", "2026-01-02T00:00:00Z"}}) {
    const nlohmann::json m = {{"schema", "railgauge.run/1"},
                              {"host", "fs-207+fs-208"},
                              {"run", name},
                              {"start_utc", start},
                              {"imported", {{"tool", "nccl-tests"}}},
                              {"suite", {{"name", "import.nccl-tests"}}}};
    std::ofstream(make_run(name, "fs-207+fs-208", 1) / "run.json") << m.dump();
  }
  auto set = load_runs({root_.string()});
  ASSERT_EQ(set.runs.size(), 2u);
  EXPECT_TRUE(superseded_runs(set).empty());
  EXPECT_TRUE(keep_latest_per_host(set).empty());
}

// A burn-in of eight 8-GPU nodes: the node step runs one rank per node (world 8, one rank on
// node01) and the per-node NCCL step runs 8 ranks on node01 (world 8 too). The NCCL step, newer,
// once superseded the node step and its points went missing from the check.
TEST_F(RunSetTest, AStepOfAllRanksOnOneNodeDoesNotSupersedeOneRankPerNode) {
  const auto rank_run = [&](const std::string &name, const std::string &start, int rank) {
    make_rank_run(name, start, rank, "burnin-h100", 8);
  };
  rank_run("node-step", "2026-01-01T00:00:00Z", 0);
  for (int rank = 0; rank < 8; ++rank)
    rank_run("nccl-step", "2026-01-01T00:10:00Z", rank);
  auto set = load_runs({root_.string()});
  ASSERT_EQ(set.runs.size(), 9u);
  EXPECT_TRUE(superseded_runs(set).empty());
  EXPECT_TRUE(keep_latest_per_host(set).empty());
  EXPECT_EQ(set.runs.size(), 9u);
}

// A retest that a signal stopped (scancelled, past its time limit) supersedes nothing: the run
// before it, which failed, is judged beside it (it once passed the node as a mere warning). A
// complete run after both supersedes them.
TEST_F(RunSetTest, ARunASignalStoppedSupersedesNothing) {
  const auto run = [&](const std::string &name, const std::string &start, const char *status) {
    const nlohmann::json m = {
        {"schema", "railgauge.run/1"}, {"host", "node01"}, {"run", name},
        {"start_utc", start},          {"status", status}, {"suite", {{"name", "gemm"}}},
        {"plan", {{"digest", "p"}}}};
    std::ofstream(make_run(name, "node01", 1) / "run.json") << m.dump();
  };
  run("failed", "2026-01-01T00:00:00Z", "complete");
  run("cut", "2026-01-02T00:00:00Z", "interrupted");
  auto set = load_runs({root_.string()});
  EXPECT_TRUE(keep_latest_per_host(set).empty());
  EXPECT_EQ(set.runs.size(), 2u);
  run("retest", "2026-01-03T00:00:00Z", "complete");
  set = load_runs({root_.string()});
  EXPECT_EQ(keep_latest_per_host(set).size(), 2u);
  ASSERT_EQ(set.runs.size(), 1u);
  EXPECT_NE(set.runs[0].dir.find("retest"), std::string::npos);
}

// Each rank of an mpirun run dates its own directory to the millisecond: every rank of the newest
// run is kept, not only the one that started last (a slow GPU on rank 0 was dropped unjudged).
// Two imports of one tool on one node are two measurements: neither supersedes the other.
TEST_F(RunSetTest, EveryRankOfTheNewestRunIsKeptAndImportsAreNeverSuperseded) {
  const auto rank_run = [&](const std::string &name, const std::string &start, int rank) {
    make_rank_run(name, start, rank, "gemm", 2);
  };
  rank_run("old", "2026-01-01T00:00:00.100Z", 0);
  rank_run("old", "2026-01-01T00:00:00.101Z", 1);
  rank_run("new", "2026-01-02T00:00:00.337Z", 0);
  rank_run("new", "2026-01-02T00:00:00.338Z", 1);
  const auto import = [&](const std::string &name, const std::string &start) {
    const nlohmann::json m = {{"schema", "railgauge.run/1"},
                              {"host", "node01"},
                              {"run", name},
                              {"start_utc", start},
                              {"suite", {{"name", "import.nccl-tests"}}},
                              {"imported", {{"tool", "nccl-tests"}}}};
    std::ofstream(make_run(name, "node01", 1) / "run.json") << m.dump();
  };
  import("all-reduce-log", "2026-01-03T00:00:00Z");
  import("all-gather-log", "2026-01-03T01:00:00Z");
  auto set = load_runs({root_.string()});
  ASSERT_EQ(set.runs.size(), 6u);
  const auto dropped = keep_latest_per_host(set);
  ASSERT_EQ(dropped.size(), 2u) << ::testing::PrintToString(dropped);
  for (const auto &dir : dropped)
    EXPECT_NE(dir.find("old"), std::string::npos) << dir;
  EXPECT_EQ(set.runs.size(), 4u);
}

// A run.json written by hand without start_utc is dated by its first record, as the fleet
// history dates it (it once sorted first, and a run whose records were older was kept instead).
TEST_F(RunSetTest, ARunJsonWithoutAStartIsDatedByItsFirstRecord) {
  for (const auto &[name, day] :
       {std::pair{"zz-older", "2026-01-01"}, {"aa-newer", "2026-01-02"}}) {
    const auto dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream(dir / "run.json")
        << nlohmann::json{{"schema", "railgauge.run/1"}, {"host", "node01"}, {"run", name}}.dump();
    RecordFile file((dir / "records.jsonl").string());
    Record r;
    r.run = name;
    r.host = "node01";
    r.key = "memory.host_read";
    r.params = {{"size_bytes", 1}};
    r.time_utc = std::string(day) + "T00:00:00.000Z";
    file.append(r);
  }
  auto set = load_runs({root_.string()});
  const auto dropped = keep_latest_per_host(set);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_NE(dropped[0].find("zz-older"), std::string::npos) << dropped[0];
}

// Runs of one host name are of one machine when their machine ids agree (an RMA changed a GPU)
// or they share a GPU (the node was reinstalled, a new machine id); a machine with another id and
// other GPUs is another machine, and is never superseded by the first's newer run.
TEST_F(RunSetTest, RunsOfOneHostNameAreToldApartByMachine) {
  make_machine_run("first", "a", "GPU-x", "2026-01-01T00:00:00Z");
  make_machine_run("rma", "a", "GPU-y", "2026-01-02T00:00:00Z");
  make_machine_run("reinstalled", "b", "GPU-y", "2026-01-03T00:00:00Z");
  make_machine_run("other", "c", "GPU-z", "2026-01-04T00:00:00Z");
  auto set = load_runs({root_.string()});
  const auto machines = machine_of_runs(set);
  const std::string a(32, 'a'), c(32, 'c');
  for (const auto *name : {"first", "rma", "reinstalled"})
    EXPECT_EQ(machines.at((root_ / name).string()), a) << name;
  EXPECT_EQ(machines.at((root_ / "other").string()), c);
  const auto shared = shared_host_names(set);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].host, "vm");
  ASSERT_EQ(shared[0].machines.size(), 2u);
  EXPECT_EQ(shared[0].machines[0], std::pair(a, (root_ / "first").string()));
  EXPECT_EQ(shared[0].machines[1], std::pair(c, (root_ / "other").string()));
  const auto dropped = keep_latest_per_host(set);
  EXPECT_EQ(dropped.size(), 2u) << ::testing::PrintToString(dropped); // first and rma
  ASSERT_EQ(set.runs.size(), 2u);
}

// A run written before inventories carried a machine id (or where /etc/machine-id could not be
// read) is of its host's one machine: the retest with an id supersedes it (it once stood as a
// machine of its own, and the older failing run stayed judged).
TEST_F(RunSetTest, ARunWithoutAMachineIdIsOfItsHostsOneMachine) {
  make_machine_run("old", "", "GPU-x", "2026-01-01T00:00:00Z");
  make_machine_run("new", "a", "GPU-x", "2026-01-02T00:00:00Z");
  auto set = load_runs({root_.string()});
  EXPECT_TRUE(shared_host_names(set).empty());
  const auto dropped = keep_latest_per_host(set);
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_NE(dropped[0].find("old"), std::string::npos) << dropped[0];
}

// A run.json of a newer railgauge's schema is not read as ours (its counts and inventory could
// pass what they do not say): it is an unreadable input, named, and its records stay.
TEST_F(RunSetTest, ARunJsonOfAnotherSchemaIsUnreadable) {
  const auto dir = make_run("newer", "node01", 2);
  std::ofstream(dir / "run.json") << R"({"schema":"railgauge.run/9","host":"node01"})";
  const auto set = load_runs({root_.string()});
  ASSERT_EQ(set.runs.size(), 1u);
  EXPECT_TRUE(set.runs[0].manifest.is_null());
  EXPECT_EQ(set.runs[0].records.size(), 2u);
  ASSERT_EQ(set.unreadable.size(), 1u);
  EXPECT_EQ(set.unreadable[0].path, (dir / "run.json").string());
  EXPECT_NE(set.unreadable[0].what.find("schema \"railgauge.run/9\" is not railgauge.run/1"),
            std::string::npos)
      << set.unreadable[0].what;
}

// A run stopped by SIGTERM and resumed: the interrupted point's error record holds only the axes
// in its params, and the resume's ok record of the same point adds the params it derived. The
// ok record is the point's result, so no command reads the error (check once failed the node on
// it). Records without axes (an import's) are points of their own, even with equal params.
TEST_F(RunSetTest, APointsLastRecordIsItsResultMatchedOnItsAxes) {
  const fs::path dir = root_ / "resumed";
  fs::create_directories(dir);
  std::ofstream(dir / "run.json") << R"({"schema":"railgauge.run/1","host":"node01"})";
  RecordFile file((dir / "records.jsonl").string());
  const auto point = [&](int size_bytes, Status status, bool derived) {
    Record r;
    r.run = "resumed";
    r.host = "node01";
    r.key = "memory.host_copy";
    r.params = {{"size_bytes", size_bytes}, {"threads", 1}};
    r.axes = r.params;
    if (derived)
      r.params["threads_used"] = 1;
    r.status = status;
    if (status == Status::error)
      r.reason = "interrupted by SIGTERM while running memory.host_copy";
    r.time_utc = utc_timestamp_now();
    file.append(r);
  };
  point(64, Status::ok, true);
  point(256, Status::error, false); // the signal
  point(256, Status::ok, true);     // the resume
  point(1024, Status::ok, true);
  Record imported;
  imported.run = "resumed";
  imported.host = "node01";
  imported.key = "memory.host_read";
  imported.params = {{"size_bytes", 8}};
  imported.time_utc = utc_timestamp_now();
  file.append(imported);
  file.append(imported);

  const auto set = load_runs({dir.string()});
  ASSERT_EQ(set.runs.size(), 1u);
  const auto &run = set.runs[0];
  EXPECT_EQ(run.replaced_records, 1u);
  EXPECT_EQ(run.records_written(), 6u);
  ASSERT_EQ(run.records.size(), 5u);
  std::vector<std::pair<int, Status>> kept;
  for (const auto &r : run.records)
    kept.emplace_back(r.params["size_bytes"].get<int>(), r.status);
  const std::vector<std::pair<int, Status>> want = {
      {64, Status::ok}, {256, Status::ok}, {1024, Status::ok}, {8, Status::ok}, {8, Status::ok}};
  EXPECT_EQ(kept, want);
}

TEST_F(RunSetTest, KeepsUnreadableLinesAsProblems) {
  const auto dir = make_run("a", "n", 2);
  std::ofstream(dir / "records.jsonl", std::ios::app) << "{\"truncated\n";
  const auto set = load_runs({dir.string()});
  EXPECT_EQ(set.record_count(), 2u);
  ASSERT_EQ(set.problems.size(), 1u);
  EXPECT_NE(set.problems[0].find(":3:"), std::string::npos) << set.problems[0];
}

// A node whose run wrote run.json and no record (it stopped before its first point) is a run of
// the fleet with its records named missing, not a directory walked past: left out, its node would
// be in no verdict at all.
TEST_F(RunSetTest, ARunWithoutRecordsIsLoadedAndItsRecordsNamedMissing) {
  make_run("rack/node001", "node001", 2);
  const fs::path stopped = root_ / "rack/node002";
  fs::create_directories(stopped);
  std::ofstream(stopped / "run.json")
      << R"({"schema":"railgauge.run/1","host":"node002","status":"running"})";
  const auto set = load_runs({(root_ / "rack").string()});
  ASSERT_EQ(set.runs.size(), 2u);
  EXPECT_EQ(set.runs[1].manifest["host"], "node002");
  EXPECT_TRUE(set.runs[1].records.empty());
  ASSERT_EQ(set.unreadable.size(), 1u);
  EXPECT_EQ(set.unreadable[0].path, (stopped / "records.jsonl").string());
  EXPECT_NE(set.unreadable[0].what.find("missing beside its run.json (run status 'running')"),
            std::string::npos)
      << set.unreadable[0].what;
}

TEST_F(RunSetTest, MissingPathAndEmptyDirectoryAreInputErrors) {
  EXPECT_THROW(load_runs({(root_ / "nope").string()}), InputError);
  fs::create_directories(root_ / "empty");
  EXPECT_THROW(load_runs({(root_ / "empty").string()}), InputError);
}

} // namespace
} // namespace railgauge::analysis
