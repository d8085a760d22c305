// run-complete on a two-node run of which one rank was lost: the lost rank's node fails and is
// drained, the survivor's node, stopped by that loss, is not drained and never passes on points
// it never measured; a run.json written before railgauge named the lost ranks fails as before.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/check/evaluate.h"
#include "analysis/run_set.h"
#include "tests/analysis/check/check_test_support.h"

namespace railgauge::check {
namespace {

using namespace support;

constexpr const char *kLost = "rank 1 is lost: its connection to the store (from 10.0.0.2:4242) "
                              "closed at 2026-11-28T02:00:00.000Z (its process ended or was "
                              "killed, or its node went down)";

Record point(const std::string &host, int rank, int size_bytes, Status status = Status::ok,
             std::optional<std::string> reason = std::nullopt) {
  Record r;
  r.run = "two-node";
  r.host = host;
  r.rank = rank;
  r.key = "memory.host_read";
  r.params = {{"size_bytes", size_bytes}};
  r.axes = r.params;
  r.status = status;
  r.reason = std::move(reason);
  if (status == Status::ok)
    r.metrics = {{"bandwidth_gbytes_per_s", 20.0}};
  r.time_utc = "2026-11-28T02:00:00.000Z";
  return r;
}

json manifest_of(const std::string &host, int rank, json extra) {
  json m = {{"schema", "railgauge.run/1"},
            {"run", "two-node"},
            {"host", host},
            {"points_planned", 3},
            {"world", {{"size", 2}, {"rank", rank}}}};
  m.update(extra);
  return m;
}

// Rank 0 on node-a: one point measured, the second broken by rank 1's loss, the third never run.
analysis::LoadedRun survivor(json lost_ranks, int measured = 1) {
  analysis::LoadedRun run;
  run.dir = "two-node/rank-00000";
  const std::string reason =
      std::string("store: ") + kLost + "; a wait that needs it fails at once";
  json extra = {{"status", "failed"},
                {"failure", fmt::format("the run stopped after {} of 3 points ({} never ran): {}; "
                                        "then barrier 'railgauge/end': {}",
                                        measured + 1, 2 - measured, reason, reason)},
                {"counts", {{"ok", measured}, {"error", 1}}}};
  if (!lost_ranks.is_null())
    extra["lost_ranks"] = std::move(lost_ranks);
  run.manifest = manifest_of("node-a", 0, extra);
  for (int i = 0; i < measured; ++i)
    run.records.push_back(point("node-a", 0, 1 << i));
  run.records.push_back(point("node-a", 0, 1 << measured, Status::error, reason));
  return run;
}

// Rank 1 on node-b, SIGKILLed after its first point: its run.json still says running.
analysis::LoadedRun killed() {
  analysis::LoadedRun run;
  run.dir = "two-node/rank-00001";
  run.manifest = manifest_of("node-b", 1, {{"status", "running"}});
  run.records.push_back(point("node-b", 1, 1));
  return run;
}

json lost_on(const std::string &host) {
  return json::array({{{"rank", 1}, {"host", host}, {"reason", kLost}}});
}

CheckResult judge(std::vector<analysis::LoadedRun> runs) {
  analysis::RunSet set;
  set.runs = std::move(runs);
  return evaluate(rules(kHostReadFloorRule), set);
}

TEST(LostRank, OnlyTheLostRanksNodeIsDrained) {
  const auto r = judge({survivor(lost_on("node-b")), killed()});
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node-b"});
  EXPECT_EQ(r.node_verdict("node-b"), Level::fail);
  const auto *b = node_finding(r, "node-b", kRunCompleteRule);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->level, Level::fail);
  EXPECT_NE(b->what.find("rank-00001"), std::string::npos) << b->what;
  // node-a: not a pass (a point never ran there), not a drain.
  EXPECT_EQ(r.node_verdict("node-a"), Level::warn);
  const auto *a = node_finding(r, "node-a", kRunCompleteRule);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->level, Level::warn);
  EXPECT_NE(a->detail.find("not judged: stopped by lost rank 1 on node-b; 2 of 3 planned points "
                           "not measured (not passed)"),
            std::string::npos)
      << a->detail;
  // The point the loss broke is no evidence against node-a; the one it measured is judged.
  const auto *broken = node_finding(r, "node-a", kRecordStatusRule);
  ASSERT_NE(broken, nullptr);
  EXPECT_EQ(broken->level, Level::warn);
  EXPECT_TRUE(broken->missing);
  const auto *part = find_part(r, "node-a", PartKind::node, "");
  EXPECT_EQ(part->rules.at("host-read-floor").passed, 1);
}

TEST(LostRank, ANodeThatMeasuredNothingIsNotAPass) {
  const auto r = judge({survivor(lost_on("node-b"), 0), killed()});
  EXPECT_EQ(r.node_verdict("node-a"), Level::warn);
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node-b"});
}

TEST(LostRank, TheLostRanksNodeIsNamedWhenItsRunIsMissing) {
  // node-b died with its local disk: only node-a's run is given.
  const auto r = judge({survivor(lost_on("node-b"))});
  EXPECT_EQ(r.drain(), std::vector<std::string>{"node-b"});
  const auto *b = node_finding(r, "node-b", kRunCompleteRule);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->detail.find("name the missing ones as lost (rank 1 on node-b)"), std::string::npos)
      << b->detail;
  EXPECT_EQ(r.node_verdict("node-a"), Level::warn);
}

TEST(LostRank, WithoutTheLostRanksHostEveryIncompleteNodeFailsAsBefore) {
  // A run.json of an older railgauge (no lost_ranks), a lost rank whose host is unknown, and one
  // on the survivor's own node: nothing shows the survivor's node healthy.
  for (const json &lost :
       {json(), json::array({{{"rank", 1}, {"reason", kLost}}}), lost_on("node-a")}) {
    const auto r = judge({survivor(lost), killed()});
    EXPECT_EQ(r.drain(), (std::vector<std::string>{"node-a", "node-b"})) << lost.dump();
    const auto *a = node_finding(r, "node-a", kRunCompleteRule);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->level, Level::fail);
    EXPECT_EQ(node_finding(r, "node-a", kRecordStatusRule)->level, Level::fail);
  }
  // Only node-a's run, without lost_ranks: the ranks read fail, as before.
  EXPECT_EQ(judge({survivor(json())}).drain(), std::vector<std::string>{"node-a"});
}

TEST(LostRank, TwoRanksThatNameEachOtherAreBothJudged) {
  // node-b's rank lost rank 0's store while rank 0 lost node-b's connection: the link between
  // them, or either node. Neither is excused, so neither passes.
  auto b = killed();
  b.manifest["status"] = "failed";
  b.manifest["lost_ranks"] = json::array(
      {{{"rank", 0}, {"host", "node-a"}, {"reason", "store: lost the connection to rank 0"}}});
  const auto r = judge({survivor(lost_on("node-b")), b});
  EXPECT_EQ(r.drain(), (std::vector<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(node_finding(r, "node-a", kRunCompleteRule)->level, Level::fail);
  EXPECT_EQ(node_finding(r, "node-b", kRunCompleteRule)->level, Level::fail);
  // run-complete says why the loss excuses neither (the fleet history words it alike).
  EXPECT_TRUE(node_finding(r, "node-a", kRunCompleteRule)
                  ->detail.starts_with("the rank it lost on node-b names this node lost in "
                                       "turn: the link between them, or either node, failed; "
                                       "stopped by lost rank 1 on node-b; 2 of 3 planned points "
                                       "not measured (not passed); run.json says status "))
      << node_finding(r, "node-a", kRunCompleteRule)->detail;
  // One side alone naming the other still excuses the namer.
  EXPECT_EQ(judge({survivor(lost_on("node-b")), killed()}).drain(),
            std::vector<std::string>{"node-b"});
}

} // namespace
} // namespace railgauge::check
