// The pure parts of the all_reduce-beside-a-GEMM benchmarks (collectives/with_gemm.h): how a
// window is balanced, the slowest-rank summary of gathered times, the slowdown and bandwidth
// metrics, the GEMM's data-check message; and that collectives.nccl_all_reduce_with_gemm is
// registered with its axes in every build and waived with a reason where it cannot run.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "tests/support/quick_run_context.h"

#include "collectives/mpi/register_collectives_mpi.h"
#include "collectives/nccl/register_collectives_nccl.h"
#include "collectives/with_gemm.h"
#include "harness/cuda/device.h"
#include "harness/registry.h"
#include "railgauge/config.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {
namespace {

TEST(BalanceWindow, TheShorterOperationFillsOneOfTheLonger) {
  // A GEMM of 1 ms beside all_reduces of 0.3 ms: three all_reduces (3.33 rounded) per GEMM.
  const OverlapWindow a = balance_window(0.3e-3, 1e-3, 128);
  EXPECT_EQ(a.all_reduces, 3);
  EXPECT_EQ(a.gemms, 1);
  // An all_reduce of 1 ms beside GEMMs of 0.15 ms: 6.67 rounds to 7 GEMMs.
  const OverlapWindow b = balance_window(1e-3, 0.15e-3, 128);
  EXPECT_EQ(b.all_reduces, 1);
  EXPECT_EQ(b.gemms, 7);
  const OverlapWindow same = balance_window(2e-3, 2e-3, 128);
  EXPECT_EQ(same.all_reduces, 1);
  EXPECT_EQ(same.gemms, 1);
}

TEST(BalanceWindow, RoundsToAtLeastOneAndStopsAtTheBound) {
  // 1.4: one of each, never zero of the shorter.
  EXPECT_EQ(balance_window(1e-3, 1.4e-3, 128).all_reduces, 1);
  EXPECT_EQ(balance_window(1.4e-3, 1e-3, 128).gemms, 1);
  // A GEMM a million times longer than the all_reduce: the window's bound, not a million.
  const OverlapWindow w = balance_window(1e-9, 1e-3, 128);
  EXPECT_EQ(w.all_reduces, 128);
  EXPECT_EQ(w.gemms, 1);
}

// Each operation pads until the other's timed calls have ended, with half again and one more.
TEST(WindowPadding, EachOperationCoversTheOthersTimedSpan) {
  // 1 all_reduce of 10 ms beside 3 GEMMs of 3 ms: the GEMMs end 1 ms early.
  const OverlapWindow a = window_padding({1, 3}, 10e-3, 3e-3, 64);
  EXPECT_EQ(a.all_reduces, 1) << "nothing to cover, one call of margin";
  EXPECT_EQ(a.gemms, 2) << "ceil(1.5 x 1/3) + 1";
  // The all_reduce slowed to 20 ms: 11 ms to cover at 3 ms a GEMM.
  EXPECT_EQ(window_padding({1, 3}, 20e-3, 3e-3, 64).gemms, 7) << "ceil(1.5 x 11/3) + 1";
  EXPECT_EQ(window_padding({1, 3}, 2.0, 3e-3, 64).gemms, 64) << "capped";
  const OverlapWindow alone = window_padding({1, 0}, 1e-3, 1e-3, 64);
  EXPECT_EQ(alone.all_reduces + alone.gemms, 0) << "nothing to contend with";
  EXPECT_THROW(window_padding({1, 1}, 0.0, 1e-3, 64), std::invalid_argument);
  EXPECT_THROW(window_padding({1, 1}, 1e-3, 1e-3, 0), std::invalid_argument);
}

// A fake measurement whose concurrent times are given: measured again only when the times
// together call for more padding than the times alone gave.
TEST(MeasurePadded, MeasuresAgainOnlyWhenTheOperationsSlowedUnevenly) {
  const auto times = [](double all_reduce_s, double gemm_s) {
    WindowTimes t;
    t.all_reduce.time_s.median = all_reduce_s;
    t.gemm.time_s.median = gemm_s;
    return t;
  };
  OverlapWindow padding;
  std::vector<OverlapWindow> paddings_measured;
  // Alone: 1 all_reduce of 9 ms, 3 GEMMs of 3 ms. Together both slow alike: no second pass.
  WindowTimes both = measure_padded({1, 3}, 9e-3, 3e-3, 64, padding, [&](const OverlapWindow &) {
    paddings_measured.push_back(padding);
    return times(18e-3, 6e-3);
  });
  EXPECT_EQ(paddings_measured.size(), 1u);
  EXPECT_EQ(padding.all_reduces, 1);
  EXPECT_EQ(padding.gemms, 1);
  // Together the all_reduce slows to 20 ms, the GEMMs to 3.3 ms: 10.1 ms to cover, 6 GEMMs.
  paddings_measured.clear();
  both = measure_padded({1, 3}, 9e-3, 3e-3, 64, padding, [&](const OverlapWindow &) {
    paddings_measured.push_back(padding);
    return times(20e-3, 3.3e-3);
  });
  ASSERT_EQ(paddings_measured.size(), 2u);
  EXPECT_EQ(paddings_measured[0].gemms, 1);
  EXPECT_EQ(paddings_measured[1].gemms, 6) << "ceil(1.5 x 10.1/3.3) + 1";
  EXPECT_EQ(padding.gemms, 6);
  EXPECT_DOUBLE_EQ(both.gemm.time_s.median, 3.3e-3);
}

TEST(BalanceWindow, RefusesTimesThatAreNotPositive) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto &[ar, gemm] : {std::pair{0.0, 1e-3}, std::pair{1e-3, 0.0}, std::pair{-1e-3, 1e-3},
                                 std::pair{nan, 1e-3}, std::pair{1e-3, inf}})
    EXPECT_THROW(balance_window(ar, gemm, 128), std::invalid_argument) << ar << " " << gemm;
  EXPECT_THROW(balance_window(1e-3, 1e-3, 0), std::invalid_argument);
}

TEST(SummarizeGathered, MaxOverRanksPerWindowAndTheSlowestRankNamed) {
  // Two ranks, three windows each, rank after rank (what an all-gather returns).
  const std::vector<double> all = {1.0, 5.0, 1.0, /* rank 1: */ 2.0, 3.0, 4.0};
  const LockstepResult r = summarize_gathered(all, 3, {}, 1);
  EXPECT_EQ(r.max_s, (std::vector<double>{2.0, 5.0, 4.0}));
  EXPECT_DOUBLE_EQ(r.time_s.median, 4.0);
  EXPECT_EQ(r.ranks, 2);
  EXPECT_EQ(r.slowest_rank, 1); // slowest in two windows of three
  EXPECT_NEAR(r.slowest_share, 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(r.own_time_s.median, 3.0); // rank 1's own windows
  // Names: the rows are world ranks 4 and 6 of a group.
  const std::vector<int> names = {4, 6};
  EXPECT_EQ(summarize_gathered(all, 3, names, 0).slowest_rank, 6);
}

TEST(SummarizeGathered, RefusesValuesThatAreNotWholeRows) {
  EXPECT_THROW(summarize_gathered({1.0, 2.0, 3.0}, 2, {}, 0), std::invalid_argument);
  EXPECT_THROW(summarize_gathered({}, 2, {}, 0), std::invalid_argument);
  EXPECT_THROW(summarize_gathered({1.0}, 0, {}, 0), std::invalid_argument);
}

TEST(OverlapMetrics, SlowdownsAreConcurrentOverAloneAndBusbwIsTheAllReduces) {
  OverlapTimes t;
  t.all_reduce_alone_s = 1e-3;
  t.all_reduce_concurrent_s = 1.5e-3;
  t.gemm_alone_s = 2e-3;
  t.gemm_concurrent_s = 2.5e-3;
  const std::uint64_t bytes = 16 << 20;
  const auto m = overlap_metrics(t, bytes, 8);
  EXPECT_DOUBLE_EQ(m.at("gemm_slowdown").get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(m.at("collective_slowdown").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(m.at("allreduce_alone_s").get<double>(), 1e-3);
  EXPECT_DOUBLE_EQ(m.at("gemm_concurrent_s").get<double>(), 2.5e-3);
  // all_reduce busbw = size / time * 2(n-1)/n.
  EXPECT_NEAR(m.at("busbw_alone_gbytes_per_s").get<double>(), bytes / 1e-3 / 1e9 * 2 * 7 / 8, 1e-9);
  EXPECT_NEAR(m.at("busbw_concurrent_gbytes_per_s").get<double>(), bytes / 1.5e-3 / 1e9 * 2 * 7 / 8,
              1e-9);
}

TEST(OverlapMetrics, ATimeThatIsNotPositiveGivesNullNotInfinity) {
  OverlapTimes t;
  t.all_reduce_concurrent_s = 1e-3;
  t.gemm_alone_s = 2e-3;
  t.gemm_concurrent_s = 2e-3;
  const auto m = overlap_metrics(t, 1 << 20, 2);
  EXPECT_TRUE(m.at("collective_slowdown").is_null());
  EXPECT_TRUE(m.at("busbw_alone_gbytes_per_s").is_null());
  EXPECT_DOUBLE_EQ(m.at("gemm_slowdown").get<double>(), 1.0);
}

TEST(WindowMetrics, BothBackendsNameTheWindowAndItsPaddingAlike) {
  const auto m = window_metrics({3, 1}, {5, 2});
  EXPECT_EQ(m.at("allreduces_per_window"), 3);
  EXPECT_EQ(m.at("gemms_per_window"), 1);
  EXPECT_EQ(m.at("padding_per_window").at("all_reduces"), 5);
  EXPECT_EQ(m.at("padding_per_window").at("gemms"), 2);
}

TEST(GemmProblem, NamesTheTotalAndThisRanksCount) {
  EXPECT_FALSE(gemm_problem(0, 0).has_value());
  const auto why = gemm_problem(5, 2);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("5 sampled entries over all ranks"), std::string::npos) << *why;
  EXPECT_NE(why->find("this rank: 2"), std::string::npos) << *why;
}

std::vector<std::string> names_of(const std::vector<Axis> &axes) {
  std::vector<std::string> names;
  for (const auto &a : axes)
    names.push_back(a.name);
  return names;
}

TEST(WithGemmAxes, OutOfPlaceOnlyWithGemmMnkAndNcclKeepsItsGroups) {
  const auto nccl = names_of(nccl_all_reduce_with_gemm_axes());
  const auto mpi = names_of(mpi_all_reduce_with_gemm_axes());
  for (const auto *names : {&nccl, &mpi}) {
    EXPECT_EQ(std::count(names->begin(), names->end(), "in_place"), 0);
    EXPECT_EQ(std::count(names->begin(), names->end(), "gemm_mnk"), 1);
    EXPECT_EQ(std::count(names->begin(), names->end(), "size_bytes"), 1);
  }
  // A tp group inside the NVLink domain and a dp group across nodes are separate tiers.
  EXPECT_EQ(std::count(nccl.begin(), nccl.end(), "groups"), 1);
  EXPECT_EQ(std::count(nccl.begin(), nccl.end(), "group_type"), 1);
  EXPECT_EQ(std::count(mpi.begin(), mpi.end(), "groups"), 0);
  for (const auto &a : nccl_all_reduce_with_gemm_axes()) {
    if (a.name == "gemm_mnk") {
      EXPECT_EQ(std::get<std::int64_t>(a.defaults.front()), 4096);
    }
  }
}

class NcclWithGemmHere : public testing::QuickRunContextTest {};

// Registered in every build, with the same axes; waived with a reason on a machine without a
// usable GPU or a build without NCCL (a GPU machine runs it in nccl_gpu_tests instead).
TEST_F(NcclWithGemmHere, IsRegisteredWithItsAxesAndWaivedWithAReasonWithoutAGpu) {
  Registry registry;
  register_collectives_nccl(registry);
  register_collectives_mpi(registry);
  for (const char *key :
       {"collectives.nccl_all_reduce_with_gemm", "collectives.mpi_all_reduce_with_gemm"}) {
    const Benchmark *bench = registry.find(key);
    ASSERT_NE(bench, nullptr) << key;
    const bool nccl = std::string(key).find("nccl") != std::string::npos;
    EXPECT_EQ(names_of(bench->axes()),
              names_of(nccl ? nccl_all_reduce_with_gemm_axes() : mpi_all_reduce_with_gemm_axes()))
        << key;
  }
  const Benchmark *bench = registry.find("collectives.nccl_all_reduce_with_gemm");
  if (!gpu::cuda_unavailable_reason() && RAILGAUGE_HAS_NCCL)
    GTEST_SKIP() << "a CUDA device is usable here: nccl_gpu_tests (label gpu) run it";
  Point p;
  for (const auto &a : bench->axes())
    p.set(a.name, a.defaults.front());
  const auto why = bench->supported(ctx_, p);
  ASSERT_TRUE(why.has_value());
  if constexpr (RAILGAUGE_HAS_NCCL)
    EXPECT_NE(why->find("no usable CUDA device"), std::string::npos) << *why;
  else
    EXPECT_NE(why->find("built without NCCL"), std::string::npos) << *why;
  // gemm_mnk out of range is said before anything about the machine.
  if constexpr (RAILGAUGE_HAS_NCCL) {
    p.set("gemm_mnk", std::int64_t{0});
    const auto bad = bench->supported(ctx_, p);
    ASSERT_TRUE(bad.has_value());
    EXPECT_NE(bad->find("gemm_mnk 0 is outside"), std::string::npos) << *bad;
  }
}

} // namespace
} // namespace railgauge::collectives
