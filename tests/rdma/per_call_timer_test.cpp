// The latency points' per-call timer (rdma/per_call_timer.h): calls stamped with the CPU's
// cycle counter come out in seconds that agree with the steady clock, call by call and summed
// over a batch; the kept calls are bounded; nothing measured gives nothing.
#include "rdma/per_call_timer.h"

#include <chrono>
#include <numeric>
#include <thread>

#include <gtest/gtest.h>

namespace railgauge::rdma {
namespace {

using namespace std::chrono_literals;

TEST(PerCallTimer, CallsInSecondsAgreeWithTheSteadyClock) {
  PerCallTimer timer;
  int call = 0;
  // Alternating 2 ms and 6 ms calls: sleep only ever overshoots, by scheduling delays.
  const Operation op = [&] { std::this_thread::sleep_for(call++ % 2 ? 6ms : 2ms); };
  double batches_s = timer.time_batch_s(op, 4);
  batches_s += timer.time_batch_s(op, 6);
  const std::vector<double> calls = timer.calls_s();
  ASSERT_EQ(calls.size(), 10u);
  EXPECT_EQ(timer.measured(), 10u);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const double asked = i % 2 ? 6e-3 : 2e-3;
    EXPECT_GE(calls[i], asked * 0.99) << "call " << i;
    EXPECT_LT(calls[i], asked + 20e-3) << "call " << i;
  }
  // The calls fill their batches: the sum differs from the steady clock's batch times only by
  // the clock reads at the batches' edges.
  const double sum = std::accumulate(calls.begin(), calls.end(), 0.0);
  EXPECT_NEAR(sum, batches_s, 0.01 * batches_s);
  EXPECT_GT(timer.seconds_per_tick(), 0);
}

TEST(PerCallTimer, KeepsAtMostMaxKeptCallsButCountsAll) {
  PerCallTimer timer(3);
  timer.time_batch_s([] { std::this_thread::sleep_for(100us); }, 5);
  EXPECT_EQ(timer.calls_s().size(), 3u);
  EXPECT_EQ(timer.measured(), 5u);
}

TEST(PerCallTimer, NothingMeasuredGivesNothing) {
  PerCallTimer timer;
  EXPECT_TRUE(timer.calls_s().empty());
  EXPECT_EQ(timer.seconds_per_tick(), 0);
}

} // namespace
} // namespace railgauge::rdma
