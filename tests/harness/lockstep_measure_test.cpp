// measure_in_lockstep: ranks as threads agree on the iteration count and on every call's time,
// which is the slowest rank's; a single rank measures alone (nullopt).
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/support/thread_ranks.h"

#include "harness/cpus_given.h"
#include "harness/lockstep_measure.h"
#include "harness/store/memory_store.h"

namespace railgauge {
namespace {

TEST(LockstepMeasure, EveryRankReportsTheSlowestRanksCalls) {
  constexpr int kRanks = 3;
  MemoryStore store;
  MeasureSpec spec = testing::brief_measure_spec();
  spec.min_samples = 4;
  spec.max_samples = 6;
  spec.time_budget_s = 0.005;
  const auto outs = testing::run_ranks_as_threads(kRanks, store, spec, [](RunContext &ctx) {
    // Rank 2 needs 3 ms a call, the others nothing: every call's time is rank 2's.
    const auto m = measure_in_lockstep(ctx, "lockstep/test/point", [&] {
      if (ctx.rank() == 2)
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
    });
    Outcome o;
    if (!m)
      return Outcome::waived("measured alone");
    o.metrics = m->measurement.to_json();
    o.metrics["samples"] = m->measurement.samples_s;
    o.metrics["slowest_rank"] = m->lockstep.slowest_rank;
    o.metrics["own_median_s"] = m->lockstep.own_time_s.median;
    return o;
  });
  for (int r = 0; r < kRanks; ++r) {
    SCOPED_TRACE(r);
    const auto &j = outs[std::size_t(r)].metrics;
    ASSERT_EQ(outs[std::size_t(r)].status, Status::ok) << outs[std::size_t(r)].reason.value_or("");
    EXPECT_EQ(j.at("sampler"), "lockstep");
    EXPECT_EQ(j.at("stop"), "budget");
    // The 5 ms budget holds fewer calls of 3 ms than min_samples, so min_samples it is.
    EXPECT_EQ(j.at("samples").size(), 4u);
    EXPECT_EQ(j.at("samples"), outs[0].metrics.at("samples"));
    EXPECT_EQ(j.at("slowest_rank"), 2);
    for (double s : j.at("samples"))
      EXPECT_GE(s, 3e-3);
  }
  EXPECT_LT(outs[0].metrics.at("own_median_s").get<double>(), 3e-3);
}

// The launcher's count of ranks on this host, set for one test and put back after it.
class LocalRanks {
public:
  explicit LocalRanks(const char *count) {
    if (const char *old = std::getenv(kName))
      old_ = old;
    if (count)
      setenv(kName, count, 1);
    else
      unsetenv(kName);
  }
  ~LocalRanks() {
    if (old_)
      setenv(kName, old_->c_str(), 1);
    else
      unsetenv(kName);
  }

private:
  static constexpr const char *kName = "OMPI_COMM_WORLD_LOCAL_SIZE";
  std::optional<std::string> old_;
};

// Hot where the launcher's ranks here, times the CPUs each may use, fit the physical cores; cold
// where they do not, and where no launcher says how many ranks share the host.
TEST(LockstepMeasure, RanksWaitHotOnlyWithCoresOfTheirOwn) {
  const Topology topology = Topology::load_this_machine();
  const std::size_t cores = host_cores(topology);
  ASSERT_GT(cores, 0u);
  {
    LocalRanks none(nullptr);
    EXPECT_FALSE(lockstep_waits_hot(topology));
  }
  {
    LocalRanks one("1");
    EXPECT_EQ(lockstep_waits_hot(topology), static_cast<std::size_t>(cpus_given()) <= cores);
  }
  {
    LocalRanks many(std::to_string(cores + 1).c_str());
    EXPECT_FALSE(lockstep_waits_hot(topology));
  }
}

// A rank that waits hot (its thread spinning, another on the store) still stops at the peer
// timeout, naming the rank that never came.
TEST(LockstepMeasure, AHotWaitForARankThatNeverComesEndsAtTheTimeout) {
  LocalRanks one("1");
  if (!lockstep_waits_hot(Topology::load_this_machine()))
    GTEST_SKIP() << "this machine's cores do not fit one rank's CPUs: the wait here is cold";
  MemoryStore store;
  const auto start = std::chrono::steady_clock::now();
  const auto outs = testing::run_ranks_as_threads(
      2, store, testing::brief_measure_spec(), [&store](RunContext &ctx) {
        if (ctx.rank() == 1)
          return Outcome::waived("never joins");
        ctx.set_world(2, &store, Milliseconds(200));
        measure_in_lockstep(ctx, "lockstep/test/absent", [] {});
        return Outcome{};
      });
  const double waited_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(outs[0].status, Status::error);
  EXPECT_NE(outs[0].reason.value_or("").find("rank 1 of 2"), std::string::npos) << *outs[0].reason;
  EXPECT_GE(waited_s, 0.2);
  EXPECT_LT(waited_s, 10);
}

TEST(LockstepMeasure, ASingleRankMeasuresAlone) {
  MemoryStore store;
  const auto outs =
      testing::run_ranks_as_threads(1, store, testing::brief_measure_spec(), [](RunContext &ctx) {
        return measure_in_lockstep(ctx, "alone", [] {}) ? Outcome{} : Outcome::waived("alone");
      });
  EXPECT_EQ(outs[0].status, Status::waived);
}

} // namespace
} // namespace railgauge
