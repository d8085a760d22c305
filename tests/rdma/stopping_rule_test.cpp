// The verbs points' iterations rule (rdma/stopping_rule.h): through the real measurement core,
// exactly the asked number of calls is timed, one call per sample (bandwidth) or all in one batch
// (latency), whatever the base spec's budget, noise target or batching would have done; messages
// round up to whole calls; the serving side's deadline covers the work.
#include "rdma/stopping_rule.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/loop_sampler.h"

namespace railgauge::rdma {
namespace {

using testing::LoopSampler;

// A base spec that would stop after a few samples of long batches, within 1 ms.
MeasureSpec short_base() {
  MeasureSpec base;
  base.warmup_runs = 2;
  base.min_samples = 3;
  base.max_samples = 5;
  base.max_rel_noise = 0.5;
  base.time_budget_s = 1e-3;
  base.min_sample_s = 1.0;
  return base;
}

TEST(StoppingRule, IterationsTimeExactlyThatManyCallsOnePerSample) {
  LoopSampler sampler;
  HostTimer timer;
  int calls = 0;
  const Measurement m = measure(fixed_calls_spec(short_base(), 40), sampler, timer, [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  });
  EXPECT_EQ(m.batch, 1);
  EXPECT_EQ(m.samples_s.size(), 40u);
  EXPECT_EQ(calls, 2 + 1 + 40); // the base's warm-up, the sizing call, the timed calls
  EXPECT_GT(m.elapsed_s, 40 * 200e-6);
}

TEST(StoppingRule, EqualSamplesDoNotStopIterationsEarly) {
  LoopSampler sampler;
  int calls = 0;
  // Every call takes the same time: the noise target is met from the start.
  class Constant final : public Timer {
  public:
    std::string_view name() const override { return "constant"; }
    double time_batch_s(const Operation &op, std::int64_t batch) override {
      for (std::int64_t i = 0; i < batch; ++i)
        op();
      return 1e-6 * static_cast<double>(batch);
    }
  } timer;
  const Measurement m =
      measure(fixed_calls_spec(short_base(), 25), sampler, timer, [&] { ++calls; });
  EXPECT_EQ(m.samples_s.size(), 25u);
  EXPECT_EQ(calls, 2 + 1 + 25);
}

// Records the batch of every timed batch.
class BatchLog final : public Timer {
public:
  std::string_view name() const override { return "batch_log"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override {
    batches.push_back(batch);
    for (std::int64_t i = 0; i < batch; ++i)
      op();
    return 1e-6 * static_cast<double>(batch);
  }
  std::int64_t max_batch() const override { return 1000; }
  std::vector<std::int64_t> batches;
};

TEST(StoppingRule, LatencyIterationsRunBackToBackInOneBatch) {
  LoopSampler sampler;
  BatchLog timer;
  int calls = 0;
  const Measurement m =
      measure(back_to_back_spec(short_base(), 40), sampler, timer, [&] { ++calls; });
  EXPECT_EQ(timer.batches, std::vector<std::int64_t>{40}); // no sizing call, one batch
  EXPECT_EQ(m.batch, 40);
  EXPECT_EQ(m.samples_s.size(), 1u);
  EXPECT_EQ(calls, 2 + 40); // the base's warm-up, the timed calls
  EXPECT_DOUBLE_EQ(m.time_s.median, 1e-6);
}

TEST(StoppingRule, BackToBackBeyondTheTimersBatchIsRefused) {
  LoopSampler sampler;
  BatchLog timer; // at most 1000 calls per batch
  EXPECT_THROW(measure(back_to_back_spec(short_base(), 1001), sampler, timer, [] {}),
               std::invalid_argument);
  EXPECT_THROW(back_to_back_spec(short_base(), 0), std::invalid_argument);
}

TEST(StoppingRule, KeepsTheBaseWarmUp) {
  MeasureSpec base = short_base();
  base.warmup_runs = 7;
  base.warmup_s = 0.25;
  const MeasureSpec spec = fixed_calls_spec(base, 10);
  EXPECT_EQ(spec.warmup_runs, 7);
  EXPECT_DOUBLE_EQ(spec.warmup_s, 0.25);
  EXPECT_EQ(spec.min_samples, 10);
  EXPECT_EQ(spec.max_samples, 10);
}

TEST(StoppingRule, CountsOutOfRangeAreRefused) {
  EXPECT_THROW(fixed_calls_spec(short_base(), 0), std::invalid_argument);
  EXPECT_THROW(fixed_calls_spec(short_base(), std::int64_t{1} << 40), std::invalid_argument);
  EXPECT_THROW(calls_for_messages(10, 0), std::invalid_argument);
}

TEST(StoppingRule, MessagesRoundUpToWholeCalls) {
  EXPECT_EQ(calls_for_messages(2000, 16), 125);
  EXPECT_EQ(calls_for_messages(2001, 16), 126);
  EXPECT_EQ(calls_for_messages(1, 16), 1);
  EXPECT_EQ(calls_for_messages(2000, 1), 2000);
}

TEST(StoppingRule, ServeDeadlineCoversTheWork) {
  EXPECT_DOUBLE_EQ(serve_deadline_s(120, 2, 0), 124);          // twice the budget
  EXPECT_DOUBLE_EQ(serve_deadline_s(120, 2, 2000), 120 + 100); // 50 ms per iteration
}

} // namespace
} // namespace railgauge::rdma
