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
