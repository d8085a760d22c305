#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "harness/lockstep.h"
#include "harness/store/memory_store.h"

namespace railgauge {
namespace {

TEST(Lockstep, PerIterationMaxOverRanksAndTheSlowestRankNamed) {
  // Rank 2 is slowest in iterations 0, 1 and 3; rank 0 in iteration 2.
  const std::vector<std::vector<double>> t = {{1, 1, 9, 1}, {2, 2, 2, 2}, {3, 4, 5, 6}};
  const std::vector<int> names = {10, 11, 12};
  const auto r = summarize_lockstep(t, names, 1);
  EXPECT_EQ(r.max_s, (std::vector<double>{3, 4, 9, 6}));
  EXPECT_EQ(r.slowest_rank, 12);
  EXPECT_DOUBLE_EQ(r.slowest_share, 0.75);
  EXPECT_DOUBLE_EQ(r.time_s.max, 9);
  EXPECT_DOUBLE_EQ(r.time_s.median, 5);
  EXPECT_DOUBLE_EQ(r.own_time_s.median, 2);
  EXPECT_EQ(r.ranks, 3);
  const auto j = r.to_json();
  EXPECT_EQ(j["slowest_rank"], 12);
  EXPECT_EQ(j["iterations"], 4);
  EXPECT_FALSE(j.contains("wall_time_s"));
}

TEST(Lockstep, TheRankTheOthersWaitedForIsNamedAsTheLastToArrive) {
  // Rank 2 enters each collective 5 units late; every call ends when its data is in, so the
  // others' own times include the wait and rank 2's is the shortest.
  const std::vector<std::vector<double>> t = {{7, 7.2, 7}, {7.1, 7, 7.1}, {2, 2.1, 2}};
  const std::vector<int> names = {20, 21, 22};
  const auto r = summarize_lockstep(t, names, 0);
  EXPECT_EQ(r.last_arrival_rank, 22);
  EXPECT_DOUBLE_EQ(r.last_arrival_share, 1.0);
  EXPECT_NE(r.slowest_rank, 22) << "the longest time is a rank that waited";
  const auto j = r.to_json();
  EXPECT_EQ(j["last_arrival_rank"], 22);
  EXPECT_EQ(j["last_arrival_rank_share"], 1.0);
}

TEST(Lockstep, TiesGoToTheLowestRankAndBadInputThrows) {
  const auto r = summarize_lockstep({{1, 1}, {1, 1}}, {}, 0);
  EXPECT_EQ(r.slowest_rank, 0);
  EXPECT_DOUBLE_EQ(r.slowest_share, 1.0);
  EXPECT_EQ(r.last_arrival_rank, 0);
  EXPECT_THROW(summarize_lockstep({{1, 2}, {1}}, {}, 0), std::invalid_argument);
  EXPECT_THROW(summarize_lockstep({}, {}, 0), std::invalid_argument);
  EXPECT_THROW(summarize_lockstep({{1}}, {}, 1), std::invalid_argument);
}

// A timer that reports a fixed time per rank, so the test needs no clock.
class FakeTimer final : public IterationTimer {
public:
  explicit FakeTimer(double s) : s_(s) {}
  std::string_view name() const override { return "fake"; }
  double time_one_s(const Operation &op) override {
    op();
    return s_;
  }
  double time_back_to_back_s(const Operation &op, int n) override {
    for (int i = 0; i < n; ++i)
      op();
    return s_ * n;
  }

private:
  double s_;
};

// Ranks as threads on a MemoryStore: every rank gets the same summary, the operation ran
// warmup + iterations + back-to-back times on each rank, and rank 3 (the slow one) is named.
TEST(Lockstep, RanksAsThreadsOnAStoreAgree) {
  constexpr int kRanks = 4;
  MemoryStore store;
  std::vector<LockstepResult> results(kRanks);
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < kRanks; ++r)
    threads.emplace_back([&, r] {
      StoreLockstepGroup group(store, "t", r, kRanks, std::chrono::seconds(20));
      FakeTimer timer(r == 3 ? 2e-3 : 1e-3);
      LockstepSpec spec;
      spec.warmup = 1;
      spec.iterations = 5;
      results[static_cast<std::size_t>(r)] = run_lockstep(group, timer, spec, [&] { ++calls; });
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(calls.load(), kRanks * (1 + 5 + 5));
  for (const auto &r : results) {
    EXPECT_EQ(r.slowest_rank, 3);
    EXPECT_DOUBLE_EQ(r.time_s.median, 2e-3);
    EXPECT_DOUBLE_EQ(r.back_to_back_s, 2e-3);
    EXPECT_EQ(r.time_s.n, 5u);
    EXPECT_EQ(r.timer, "fake");
  }
  EXPECT_DOUBLE_EQ(results[0].own_time_s.median, 1e-3);
}

// A rank that never joins: the others' barrier times out naming it, instead of hanging.
TEST(Lockstep, ARankThatNeverJoinsIsNamed) {
  MemoryStore store;
  std::vector<std::string> errors(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      StoreLockstepGroup group(store, "late", r, 3, std::chrono::milliseconds(200));
      HostIterationTimer timer;
      try {
        run_lockstep(group, timer, {}, [] {});
      } catch (const StoreTimeout &e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    });
  for (auto &t : threads)
    t.join();
  for (const auto &e : errors)
    EXPECT_NE(e.find("rank 2 of 3 did not arrive"), std::string::npos) << e;
}

} // namespace
} // namespace railgauge
