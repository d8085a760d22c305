// The data check over ranks: per-rank counts become one total and the list of ranks that saw
// wrong elements, the same on every rank (ranks as threads on a MemoryStore, gathered the way
// the NCCL benchmarks gather them).
#include <stdexcept>
#include <thread>

#include <gtest/gtest.h>

#include "collectives/wrong_elements.h"
#include "harness/lockstep.h"
#include "harness/store/memory_store.h"

namespace railgauge::collectives {
namespace {

TEST(WrongAcrossRanks, SumsAndNamesTheRanks) {
  const auto w = wrong_across_ranks({0, 3, 0, 0, 0, 9});
  EXPECT_EQ(w.total, 12u);
  EXPECT_EQ(w.ranks, (std::vector<int>{1, 5}));
  EXPECT_EQ(describe(w), "12 elements wrong over all ranks (ranks 1, 5)");
  EXPECT_EQ(describe(wrong_across_ranks({0, 1})), "1 element wrong over all ranks (rank 1)");
}

TEST(WrongAcrossRanks, NoneWrongIsEmpty) {
  const auto w = wrong_across_ranks({0, 0, 0});
  EXPECT_EQ(w.total, 0u);
  EXPECT_TRUE(w.ranks.empty());
  EXPECT_EQ(describe(w), "");
  nlohmann::json m;
  add_wrong_elements(m, w);
  EXPECT_EQ(m["wrong_elements"], 0);
  EXPECT_EQ(m["wrong_element_ranks"], nlohmann::json::array());
}

TEST(WrongAcrossRanks, TheProblemNamesTheRanksThenThisProcess) {
  CheckResult right;
  EXPECT_FALSE(wrong_problem(wrong_across_ranks({0, 0}), right));
  // Rank 0 is right, rank 1 is not: rank 0's record still has a problem.
  const auto on_rank0 = wrong_problem(wrong_across_ranks({0, 2}), right);
  ASSERT_TRUE(on_rank0.has_value());
  EXPECT_EQ(*on_rank0,
            "2 elements wrong over all ranks (rank 1); this process's outputs are right");
  CheckResult wrong;
  wrong.checked = 8;
  wrong.wrong = 2;
  const auto on_rank1 = wrong_problem(wrong_across_ranks({0, 2}), wrong);
  ASSERT_TRUE(on_rank1.has_value());
  EXPECT_NE(on_rank1->find("; this process: 2 of 8 elements wrong"), std::string::npos)
      << *on_rank1;
}

TEST(WrongAcrossRanks, ACorruptedCountThrows) {
  EXPECT_THROW(wrong_across_ranks({0, -1}), std::runtime_error);
  EXPECT_THROW(wrong_across_ranks({0.5}), std::runtime_error);
}

// Rank 0's own outputs are right; rank 2's are not: every rank's record says 5, on rank 2.
TEST(WrongAcrossRanks, EveryRankSeesTheTotalThroughTheStore) {
  constexpr int kRanks = 4;
  MemoryStore store;
  std::vector<WrongAcrossRanks> seen(kRanks);
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      StoreLockstepGroup group(store, "check", r, kRanks, Milliseconds(10'000));
      const double mine = r == 2 ? 5 : 0;
      seen[r] = wrong_across_ranks(group.all_gather({mine}));
    });
  for (auto &t : threads)
    t.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(seen[r].total, 5u) << "rank " << r;
    EXPECT_EQ(seen[r].ranks, (std::vector<int>{2})) << "rank " << r;
  }
}

} // namespace
} // namespace railgauge::collectives
