// The coverage ledger: written as the rounds run, read back, and planning only the links not
// exercised since a time (--cover-since).
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "rdma/fabric/coverage_ledger.h"
#include "rdma/fabric/fabric_acceptance.h"
#include "rdma/fabric/fabric_simulator.h"
#include "rdma/fabric/fat_tree.h"

namespace railgauge::rdma::fabric {
namespace {

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("rg_ledger_" + std::to_string(::getpid()) + "_" +
                                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

TEST(FabricLedger, AnAcceptanceRecordsEveryLinkItCrossedWithItsTime) {
  TempDir dir;
  const auto t = fat_tree({64, 2, 16, 4});
  // A quiet, healthy fabric: no passing disturbance, noise far from the 0.93 line.
  FabricSimulator sim(t, {.noise_sd = 0.01, .transient_share = 0});
  AcceptanceOptions options;
  options.ledger_path = (dir.path / "fabric_ledger.jsonl").string();
  options.now_s = [] { return 1000.0; };
  const auto r = run_acceptance(
      t, options, [&](const PlannedRound &round, int index) { return sim.run(round, index); });
  const auto ledger = read_ledger(options.ledger_path);
  std::set<std::string> links;
  for (const auto &l : ledger) {
    links.insert(l.link);
    EXPECT_EQ(l.time_s, 1000.0);
    EXPECT_EQ(l.bad, 0) << l.link;
  }
  EXPECT_EQ(links.size(), t.links.size());
  EXPECT_TRUE(links_not_exercised_since(t, ledger, 999).empty());
  EXPECT_EQ(links_not_exercised_since(t, ledger, 1001).size(), t.links.size());
  EXPECT_EQ(r.links_short, 0);
}

// A canary: only rail 1 was exercised lately, so only rail 0's links are planned, and the
// rounds pair rail 0's NICs only.
TEST(FabricLedger, CoverSincePlansOnlyTheLinksNotExercisedSinceThen) {
  const auto t = fat_tree({64, 2, 16, 4});
  std::vector<LedgerLine> ledger;
  for (const auto &l : t.links)
    ledger.push_back(
        {l.label, "", "coverage",
         l.rail == 1 || (l.rail < 0 && l.label.find("-r1-") != std::string::npos) ? 5000.0 : 100.0,
         0, 8, 0});
  const auto stale = links_not_exercised_since(t, ledger, 4000);
  ASSERT_EQ(stale.size(), t.links.size() / 2);
  const auto plan = plan_coverage(t, {}, stale);
  ASSERT_FALSE(plan.rounds.empty());
  FabricSimulator sim(t, {});
  std::vector<FlowObservation> flows;
  for (const auto &round : plan.rounds) {
    for (const auto &[a, b] : round.pairs)
      EXPECT_EQ(a % t.rails, 0);
    const auto more = sim.run(round, 0);
    flows.insert(flows.end(), more.begin(), more.end());
  }
  const auto crossed = crossings(t, flows);
  for (int l : stale)
    EXPECT_GE(crossed[l], 2) << t.links[l].label;
}

// Two passes on the simulated fabric: a canary over rail 0 writes its ledger; an hour later a
// pass with cover_since 90m plans only what the first did not exercise, and covers it.
TEST(FabricLedger, ASecondPassWithCoverSinceSkipsTheLinksTheFirstCovered) {
  TempDir dir;
  const auto t = fat_tree({64, 2, 16, 4});
  FabricSimulator sim(t, {.noise_sd = 0.01, .transient_share = 0});
  const auto measure = [&](const PlannedRound &round, int index) { return sim.run(round, index); };
  std::vector<int> rail0;
  for (int l = 0; l < static_cast<int>(t.links.size()); ++l)
    if (t.links[l].rail == 0 ||
        (t.links[l].rail < 0 && t.links[l].label.find("-r0-") != std::string::npos))
      rail0.push_back(l);
  AcceptanceOptions first;
  first.ledger_path = (dir.path / "fabric_ledger.jsonl").string();
  first.now_s = [] { return 1000.0; };
  const auto one = run_acceptance(t, first, measure, rail0);
  EXPECT_EQ(one.links_short, 0);
  std::set<std::string> covered;
  for (const auto &l : read_ledger(first.ledger_path))
    covered.insert(l.link);
  ASSERT_FALSE(covered.empty());

  const double now_s = 1000.0 + 3600;
  const double since_s = now_s - parse_duration_s("90m", "--cover-since");
  const auto stale = links_not_exercised_since(t, read_ledger(first.ledger_path), since_s);
  EXPECT_EQ(stale.size() + covered.size(), t.links.size());
  std::vector<char> stale_nic(t.endpoint_count(), 0);
  for (int l : stale) {
    EXPECT_FALSE(covered.contains(t.links[l].label)) << t.links[l].label;
    if (t.links[l].kind == LinkKind::nic_leaf)
      stale_nic[t.endpoint(t.links[l].node, t.links[l].rail)] = 1;
  }
  AcceptanceOptions second = first;
  second.now_s = [=] { return now_s; };
  const auto two = run_acceptance(t, second, measure, stale);
  EXPECT_EQ(two.links_short, 0);
  int pairs = 0;
  for (const auto &round : two.plan.rounds)
    for (const auto &[a, b] : round.pairs) {
      ++pairs;
      EXPECT_TRUE(stale_nic[a] || stale_nic[b]) << "a pair of two NICs the first pass covered";
    }
  EXPECT_GT(pairs, 0);
  // Both passes together: every link exercised within the 90 minutes.
  EXPECT_TRUE(links_not_exercised_since(t, read_ledger(first.ledger_path), since_s).empty());
}

TEST(FabricLedger, DurationsAndBadLedgerLinesAreClearErrors) {
  EXPECT_EQ(parse_duration_s("7d", "--cover-since"), 7 * 86400.0);
  EXPECT_EQ(parse_duration_s("90", "--cover-since"), 90.0);
  EXPECT_EQ(parse_duration_s("1.5h", "--cover-since"), 5400.0);
  for (const char *bad : {"", "d", "7x", "-3h", "7dd"})
    EXPECT_THROW(parse_duration_s(bad, "--cover-since"), InputError) << bad;
  TempDir dir;
  const auto path = (dir.path / "ledger.jsonl").string();
  std::ofstream(path) << "{\"link\":\"a\",\"time_s\":1}\nnot json\n";
  try {
    read_ledger(path);
    FAIL();
  } catch (const InputError &e) {
    EXPECT_EQ(e.where(), path + ":2");
  }
  EXPECT_TRUE(read_ledger((dir.path / "none.jsonl").string()).empty());
}

} // namespace
} // namespace railgauge::rdma::fabric
