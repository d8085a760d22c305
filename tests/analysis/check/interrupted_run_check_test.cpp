// run-complete on a run that a signal from outside stopped (Slurm at a job's time limit, scancel,
// Ctrl-C): the node did nothing wrong, so it is not drained, and the points it never measured are
// not passed (a warning). What it did measure is judged as ever, and a run that lost evidence
// besides (its records disagree with its counts) fails as before.
#include <gtest/gtest.h>

#include "analysis/check/evaluate.h"
#include "analysis/run_set.h"
#include "tests/analysis/check/check_test_support.h"

namespace railgauge::check {
namespace {

using namespace support;

constexpr const char *kCut = "interrupted by SIGTERM while running memory.host_read size_bytes=4, "
                             "2.1 s in (--point-timeout 600 s): the run was stopped (a job's time "
                             "limit, scancel, Ctrl-C)";

Record point(int size_bytes, Status status = Status::ok, double gbytes_per_s = 20.0) {
  Record r;
  r.run = "cut";
  r.host = "node-a";
  r.key = "memory.host_read";
  r.params = {{"size_bytes", size_bytes}};
  r.axes = r.params;
  r.status = status;
  if (status == Status::ok)
    r.metrics = {{"bandwidth_gbytes_per_s", gbytes_per_s}};
  else
    r.reason = kCut;
  r.time_utc = "2026-12-01T02:00:00.000Z";
  return r;
}

// Two points measured, the third cut by SIGTERM, two more never run.
analysis::LoadedRun interrupted(double second_gbytes_per_s = 20.0) {
  analysis::LoadedRun run;
  run.dir = "runs/cut";
  run.manifest = {{"schema", "railgauge.run/1"},
                  {"run", "cut"},
                  {"host", "node-a"},
                  {"points_planned", 5},
                  {"status", "interrupted"},
                  {"interrupted", "SIGTERM"},
                  {"counts", {{"ok", 2}, {"error", 1}}}};
  run.records = {point(1), point(2, Status::ok, second_gbytes_per_s), point(4, Status::error)};
  return run;
}

// The host read floor, and a host copy floor that no run of these tests measures but one.
RuleSet host_read_and_copy_rules() {
  return rules(std::string(kHostReadFloorRule) + R"(
  - id: host-copy-floor
    category: memory
    severity: fail
    select: {key: "memory.host_copy"}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 1
)");
}

CheckResult judge(analysis::LoadedRun run, std::string cut_short = "") {
  analysis::RunSet set;
  set.runs.push_back(std::move(run));
  set.cut_short = std::move(cut_short);
  return evaluate(host_read_and_copy_rules(), set);
}

TEST(InterruptedRun, IsNotAPassAndNotADrain) {
  const auto r = judge(interrupted());
  EXPECT_EQ(r.node_verdict("node-a"), Level::warn);
  EXPECT_TRUE(r.drain().empty());
  const auto *complete = node_finding(r, "node-a", kRunCompleteRule);
  ASSERT_NE(complete, nullptr);
  EXPECT_EQ(complete->level, Level::warn);
  EXPECT_TRUE(complete->missing);
  EXPECT_NE(complete->detail.find("not judged: stopped by SIGTERM from outside the run (a job's "
                                  "time limit, scancel, Ctrl-C); 3 of 5 planned points not "
                                  "measured (not passed): give it the time it needs, or continue "
                                  "it with `railgauge run ... --resume runs/cut`"),
            std::string::npos)
      << complete->detail;
  // The point the signal cut is not a failed point; the two measured are judged.
  const auto *cut = node_finding(r, "node-a", kRecordStatusRule);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->level, Level::warn);
  EXPECT_TRUE(cut->missing);
  EXPECT_EQ(find_part(r, "node-a", PartKind::node, "")->rules.at("host-read-floor").passed, 2);
  // The host copies were planned after the cut: not measured, so not passed, and not failed.
  const auto *never_ran = node_finding(r, "node-a", "host-copy-floor");
  ASSERT_NE(never_ran, nullptr);
  EXPECT_EQ(never_ran->level, Level::warn);
  EXPECT_TRUE(never_ran->missing);
  EXPECT_TRUE(never_ran->detail.starts_with("not judged: a run of this node was stopped from "
                                            "outside (run-complete says by what); "))
      << never_ran->detail;
}

TEST(InterruptedRun, WhatItMeasuredStillFails) {
  const auto r = judge(interrupted(0.5));
  EXPECT_EQ(r.node_verdict("node-a"), Level::fail);
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node-a"});
  EXPECT_EQ(node_finding(r, "node-a", kRunCompleteRule)->level, Level::warn);
}

TEST(InterruptedRun, LostEvidenceOrAnotherEndFailsAsBefore) {
  // A record line lost besides (run.json counts one more ok than is read): not excused.
  auto lost_line = interrupted();
  lost_line.manifest["counts"]["ok"] = 3;
  // A run that failed (a fault, the watchdog) whose cut point says "interrupted by": the reason
  // alone excuses nothing.
  auto failed = interrupted();
  failed.manifest["status"] = "failed";
  failed.manifest.erase("interrupted");
  for (const auto &run : {lost_line, failed}) {
    const auto r = judge(run);
    EXPECT_EQ(r.drain(), std::vector<std::string>{"node-a"}) << run.manifest.dump();
    EXPECT_EQ(node_finding(r, "node-a", kRunCompleteRule)->level, Level::fail);
    EXPECT_EQ(node_finding(r, "node-a", "host-copy-floor")->level, Level::fail);
  }
  EXPECT_EQ(node_finding(judge(failed), "node-a", kRecordStatusRule)->level, Level::fail);
}

// A point cut long after it should have ended may have hung short of --point-timeout (a job's
// time limit comes first): past half its timeout, past twice its planned duration and a minute,
// or with no time said (an older railgauge), neither it nor its run is excused.
TEST(InterruptedRun, ACutPointThatMayHaveHungIsNotExcused) {
  const auto cut_after = [](const std::string &in, json params) {
    auto run = interrupted();
    auto &cut = run.records.back();
    cut.reason = "interrupted by SIGTERM while running memory.host_read size_bytes=4" + in +
                 ": the run was stopped (a job's time limit, scancel, Ctrl-C)";
    cut.params.update(params);
    return run;
  };
  for (const auto &run : {cut_after(", 590.2 s in (--point-timeout 600 s)", json::object()),
                          cut_after(", 301.0 s in (--point-timeout 0 s)", json::object()),
                          cut_after(", 95.0 s in (--point-timeout 600 s)", {{"duration_s", 15}}),
                          cut_after("", json::object())}) {
    const auto r = judge(run);
    EXPECT_EQ(r.drain(), std::vector<std::string>{"node-a"}) << run.records.back().reason.value();
    EXPECT_EQ(node_finding(r, "node-a", kRecordStatusRule)->level, Level::fail);
    EXPECT_EQ(node_finding(r, "node-a", kRunCompleteRule)->level, Level::fail);
  }
  // Within its bounds: a burn of 60 s cut 90 s in, 299 s in with no timeout.
  for (const auto &run : {cut_after(", 90.0 s in (--point-timeout 600 s)", {{"duration_s", 60}}),
                          cut_after(", 299.0 s in (--point-timeout 0 s)", json::object())})
    EXPECT_TRUE(judge(run).drain().empty()) << run.records.back().reason.value();
}

TEST(InterruptedRun, BetweenPointsAndWithoutASignalName) {
  // Stopped between points (no cut record), by a run.json that does not name the signal.
  auto run = interrupted();
  run.records.pop_back();
  run.manifest["counts"] = {{"ok", 2}};
  run.manifest.erase("interrupted");
  const auto r = judge(run);
  EXPECT_EQ(r.node_verdict("node-a"), Level::warn);
  EXPECT_NE(node_finding(r, "node-a", kRunCompleteRule)
                ->detail.find("stopped by a signal from outside the run"),
            std::string::npos);
  EXPECT_NE(node_finding(r, "node-a", kRunCompleteRule)
                ->detail.find("3 of 5 planned points not measured"),
            std::string::npos);
}

// The two points measured, as a run that ended whole.
analysis::LoadedRun whole_run() {
  auto whole = interrupted();
  whole.records.pop_back();
  whole.manifest["status"] = "complete";
  whole.manifest["points_planned"] = 2;
  whole.manifest["counts"] = {{"ok", 2}};
  whole.manifest.erase("interrupted");
  return whole;
}

// A job whose time limit came between two steps (slurm_burnin.sbatch's --cut-short): the run of
// the step that ran is whole, and what the steps never run would have measured warns, saying why.
TEST(InterruptedRun, AJobCutShortWarnsOnWhatNoStepMeasured) {
  auto whole = whole_run();
  EXPECT_EQ(node_finding(judge(whole), "node-a", "host-copy-floor")->level, Level::fail);
  const auto r = judge(whole, "the job's time limit ended the burn-in (steps collectives)");
  EXPECT_EQ(r.node_verdict("node-a"), Level::warn);
  EXPECT_TRUE(r.drain().empty());
  EXPECT_TRUE(node_finding(r, "node-a", "host-copy-floor")
                  ->detail.starts_with("not judged: the job's time limit ended the burn-in "
                                       "(steps collectives); "))
      << node_finding(r, "node-a", "host-copy-floor")->detail;
  // What was measured is judged as ever.
  EXPECT_EQ(judge(interrupted(0.5), "cut").drain(), std::vector<std::string>{"node-a"});
}

// A record that another node holds came from a step that ran: a node whose whole run lacks it is
// not excused by the job's cut (its GPU point never planned, a benchmark it could not run).
TEST(InterruptedRun, AJobCutShortExcusesNoNodeForWhatAnotherMeasured) {
  auto whole = whole_run();
  auto other = whole;
  other.dir = "runs/other";
  other.manifest["run"] = "other";
  other.manifest["host"] = "node-b";
  other.manifest["points_planned"] = 3;
  other.manifest["counts"] = {{"ok", 3}};
  for (auto &r : other.records) {
    r.run = "other";
    r.host = "node-b";
  }
  auto copy = other.records.front();
  copy.key = "memory.host_copy";
  other.records.push_back(copy);
  analysis::RunSet set;
  set.runs = {whole, other};
  set.cut_short = "the job's time limit ended the burn-in (steps collectives)";
  const auto r = evaluate(host_read_and_copy_rules(), set);
  EXPECT_EQ(node_finding(r, "node-a", "host-copy-floor")->level, Level::fail);
  EXPECT_EQ(r.node_verdict("node-b"), Level::pass);
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node-a"});
  // An imported log that holds the record says nothing of the job's steps: still excused.
  set.runs[1].manifest["imported"] = {{"tool", "nccl-tests"}};
  const auto imported = evaluate(host_read_and_copy_rules(), set);
  EXPECT_EQ(node_finding(imported, "node-a", "host-copy-floor")->level, Level::warn);
  EXPECT_TRUE(imported.drain().empty());
}

} // namespace
} // namespace railgauge::check
