// A pair point run across ranks (analysis/check/pair_ends.h) on the committed Soft-RoCE pair
// runs (results/reference/softroce-2026-11-29/rep1/runs_ranks: rdma.*_lat and *_bw with
// mode=ranks, rank 0 measuring, rank 1 the server end), with rank 1 moved to a host of its own
// as on two nodes: the server end is not missing the pair's figure, and a violation of the
// figure, or a failed measuring end, is charged to the server end's NIC too.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "analysis/check/evaluate.h"
#include "analysis/check/rules.h"
#include "analysis/run_set.h"
#include "railgauge/config.h"
#include "tests/analysis/check/check_test_support.h"

namespace railgauge::check {
namespace {

const std::string kPairRuns =
    std::string(RAILGAUGE_SOURCE_DIR) + "/results/reference/softroce-2026-11-29/rep1/runs_ranks";

// The committed runs with rank 1 on host "nodeB".
analysis::RunSet two_node_pair() {
  auto runs = analysis::load_runs({kPairRuns});
  for (auto &run : runs.runs)
    for (auto &r : run.records)
      if (r.rank == 1)
        r.host = "nodeB";
  return runs;
}

RuleSet roce_rules() {
  return load_rules_file(std::string(RAILGAUGE_SOURCE_DIR) + "/results/rules/h100-sxm-roce.yaml");
}

TEST(PairEnds, TheServerEndIsNotMissingThePairsFigure) {
  const auto result = evaluate(roce_rules(), two_node_pair());
  for (const auto &p : result.parts) {
    if (p.key.host != "nodeB")
      continue;
    for (const auto &f : p.findings)
      if (f.missing && f.level >= Level::warn)
        EXPECT_EQ(f.detail.find("no such metric"), std::string::npos) << describe(f);
  }
  int notes = 0;
  for (const auto &f : find_part(result, "nodeB", PartKind::node, "")->findings)
    notes += f.not_applicable && f.detail.find("server end of a pair") != std::string::npos;
  EXPECT_GT(notes, 0);
}

TEST(PairEnds, AViolationOfThePairsFigureIsChargedToBothEnds) {
  const auto result = evaluate(roce_rules(), two_node_pair());
  const auto *measuring = find_part(result, "softroce-guest", PartKind::nic, "rxe0");
  const auto *server = find_part(result, "nodeB", PartKind::nic, "rxe0");
  ASSERT_NE(measuring, nullptr);
  ASSERT_NE(server, nullptr);
  int violations = 0;
  for (const auto &f : measuring->findings) {
    if (f.missing || f.level < Level::warn || f.key.rfind("rdma.", 0) != 0)
      continue;
    ++violations;
    bool charged = false;
    for (const auto &g : server->findings)
      charged |= g.rule_id == f.rule_id && g.key == f.key && g.value == f.value &&
                 g.level == f.level &&
                 g.detail.find("measured from softroce-guest/rxe0") != std::string::npos;
    EXPECT_TRUE(charged) << describe(f);
  }
  EXPECT_GT(violations, 0); // the Soft-RoCE latency tails warn
}

TEST(PairEnds, AFailedMeasuringEndFailsTheServerEndToo) {
  auto runs = two_node_pair();
  for (auto &run : runs.runs)
    for (auto &r : run.records)
      if (r.rank == 0 && r.key == "rdma.write_lat") {
        r.status = Status::failed;
        r.reason = "IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded)";
      }
  const auto result = evaluate(roce_rules(), runs);
  const auto *server = find_part(result, "nodeB", PartKind::nic, "rxe0");
  ASSERT_NE(server, nullptr);
  bool failed = false;
  for (const auto &f : server->findings)
    failed |= f.rule_id == kRecordStatusRule && f.level == Level::fail &&
              f.key == "rdma.write_lat" && f.detail.find("RETRY_EXC") != std::string::npos;
  EXPECT_TRUE(failed);
  const auto drained = result.drain();
  EXPECT_NE(std::find(drained.begin(), drained.end(), "nodeB"), drained.end());
}

// Review: the measuring end's own port counters (its NIC's link went down) were charged to the
// server end, whose own counters are on its own record and clean.
TEST(PairEnds, TheMeasuringEndsOwnCountersStayItsOwn) {
  auto runs = two_node_pair();
  for (auto &run : runs.runs)
    for (auto &r : run.records)
      if (r.rank == 0 && r.key == "rdma.write_lat")
        r.metrics["port_counter_deltas"]["hw_counters"]["link_downed"] = 1;
  const auto result = evaluate(roce_rules(), runs);
  for (const auto &f : find_part(result, "nodeB", PartKind::nic, "rxe0")->findings)
    EXPECT_NE(f.rule_id, "link-downed-during-point") << describe(f);
  bool own = false;
  for (const auto &f : find_part(result, "softroce-guest", PartKind::nic, "rxe0")->findings)
    own |= f.rule_id == "link-downed-during-point" && f.level == Level::fail;
  EXPECT_TRUE(own);
}

// Review: a charged finding was filed in the measuring end's run, so the server host's stored
// verdict stayed pass; and a pair point whose measuring end left no record passed its server end.
TEST(PairEnds, AChargeIsFiledInTheServersRunAndAnUnmeasuredPairFailsIt) {
  auto runs = two_node_pair();
  std::string server_dir;
  for (auto &run : runs.runs)
    for (auto &r : run.records)
      if (r.rank == 1 && r.key == "rdma.read_lat")
        server_dir = run.dir;
  for (auto &run : runs.runs)
    std::erase_if(run.records,
                  [](const Record &r) { return r.rank == 0 && r.key == "rdma.read_lat"; });
  const auto result = evaluate(roce_rules(), runs);
  const auto *server = find_part(result, "nodeB", PartKind::nic, "rxe0");
  ASSERT_NE(server, nullptr);
  bool unmeasured = false, charged_here = false;
  for (const auto &f : server->findings) {
    unmeasured |= f.key == "rdma.read_lat" && f.level == Level::fail && f.missing &&
                  f.detail.find("left no record") != std::string::npos && f.run == server_dir;
    charged_here |= f.detail.find("measured from") != std::string::npos && f.run == server_dir;
  }
  EXPECT_TRUE(unmeasured);
  EXPECT_TRUE(charged_here);
  const auto drained = result.drain();
  EXPECT_NE(std::find(drained.begin(), drained.end(), "nodeB"), drained.end());
}

TEST(PairEnds, BothEndsOnOneNicAreChargedOnce) {
  const auto result = evaluate(roce_rules(), analysis::load_runs({kPairRuns}));
  for (const auto &p : result.parts)
    for (const auto &f : p.findings)
      EXPECT_EQ(f.detail.find("the pair's point, measured from"), std::string::npos) << describe(f);
}

} // namespace
} // namespace railgauge::check
