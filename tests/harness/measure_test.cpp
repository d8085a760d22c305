#include "harness/measure.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fake_benchmark.h"
#include "tests/support/loop_sampler.h"

namespace railgauge {
namespace {

using testing::LoopSampler;
using testing::ScriptedTimer;

TEST(Measure, QuietSamplesStopOnNoiseAfterMinSamples) {
  MeasureSpec spec;
  spec.warmup_runs = 3;
  spec.min_samples = 8;
  spec.max_rel_noise = 0.01;
  spec.min_sample_s = 0; // no batching
  ScriptedTimer timer({/*sizing call*/ 1e-3});
  LoopSampler sampler;
  int calls = 0;
  const auto m = measure(spec, sampler, timer, [&] { ++calls; });
  EXPECT_EQ(m.stop_reason, "noise");
  EXPECT_EQ(m.time_s.n, 8u);
  EXPECT_EQ(sampler.rounds, 1);
  EXPECT_EQ(calls, 3 + 1 + 8); // warm-up, sizing call, samples
  EXPECT_DOUBLE_EQ(m.time_s.median, 1e-3);
  EXPECT_EQ(m.timer, "scripted");
  EXPECT_EQ(m.sampler, "loop");
}

TEST(Measure, NoisySamplesStopAtMaxSamples) {
  MeasureSpec spec;
  spec.min_samples = 4;
  spec.max_samples = 12;
  spec.max_rel_noise = 0.001;
  spec.time_budget_s = 1000;
  spec.min_sample_s = 0;
  std::deque<double> times = {1e-3};
  for (int i = 0; i < 100; ++i)
    times.push_back(i % 2 ? 1e-3 : 2e-3);
  ScriptedTimer timer(times);
  LoopSampler sampler;
  const auto m = measure(spec, sampler, timer, [] {});
  EXPECT_EQ(m.stop_reason, "max_samples");
  EXPECT_EQ(m.time_s.n, 12u);
  EXPECT_GT(sampler.rounds, 1);
}

// A spec that only its 20 ms budget can stop: no noise is low enough, no sample count high enough.
MeasureSpec budget_bound_spec() {
  MeasureSpec spec;
  spec.min_samples = 2;
  spec.max_samples = 1 << 20;
  spec.max_rel_noise = 0;
  spec.time_budget_s = 0.02;
  spec.min_sample_s = 0;
  return spec;
}

TEST(Measure, NoisySamplesStopOnTimeBudget) {
  const MeasureSpec spec = budget_bound_spec();
  HostTimer timer;
  LoopSampler sampler;
  // Calls alternate between 100 and 300 microseconds, so the noise can never reach the
  // (zero) bound even on a coarse clock, and the budget runs out long before max_samples.
  bool slow = false;
  const auto m = measure(spec, sampler, timer, [&] {
    slow = !slow;
    std::this_thread::sleep_for(std::chrono::microseconds(slow ? 300 : 100));
  });
  EXPECT_EQ(m.stop_reason, "budget");
  EXPECT_GE(m.elapsed_s, 0.02);
  EXPECT_LT(m.elapsed_s, 1.0);
}

TEST(Measure, TimedWarmupLoadsFirstAndIsNotChargedToTheBudget) {
  MeasureSpec spec = budget_bound_spec();
  spec.warmup_runs = 0;
  spec.warmup_s = 0.05;
  HostTimer timer;
  LoopSampler sampler;
  int calls = 0;
  bool slow = false;
  const auto m = measure(spec, sampler, timer, [&] {
    ++calls;
    slow = !slow;
    std::this_thread::sleep_for(std::chrono::microseconds(slow ? 300 : 100));
  });
  EXPECT_EQ(m.stop_reason, "budget");
  // The loop runs until 50 ms have passed since the point began (the untimed calls and the
  // batch-sizing call come first, so the loop itself may be a little shorter).
  EXPECT_GT(m.warmup_s, 0.0);
  EXPECT_GE(m.elapsed_s, 0.05);
  // The budget's 20 ms of sampling came after the 50 ms of warm-up, not out of it.
  EXPECT_GE(m.elapsed_s - m.warmup_s, 0.02);
  EXPECT_GT(static_cast<std::size_t>(calls), m.time_s.n + 50) << "warm-up calls ran";
  EXPECT_EQ(m.to_json().at("warmup_s"), m.warmup_s);
  EXPECT_EQ(spec.to_json().at("warmup_s"), 0.05);
  spec.warmup_s = -1;
  EXPECT_THROW(measure(spec, sampler, timer, [] {}), std::invalid_argument);
}

TEST(Measure, TheSpecStatesNoiseRetriesOnlyWhenSet) {
  // The spec is part of the resume plan's digest: a suite without retries keeps the digest a build
  // before the setting gave it, and one with retries plans differently.
  MeasureSpec spec;
  EXPECT_FALSE(spec.to_json().contains(measure_setting::kNoiseRetries));
  spec.noise_retries = 2;
  EXPECT_EQ(spec.to_json().at(measure_setting::kNoiseRetries), 2);
}

// Settles after `after` questions, or never (-1); counts the batches run in between.
class CountingProbe final : public SettleProbe {
public:
  explicit CountingProbe(int after) : after_(after) {}
  std::string_view method() const override { return "counting"; }
  bool settled() override { return after_ >= 0 && ++asked_ > after_; }
  nlohmann::json last_reading() const override { return {{"asked", asked_}}; }
  int asked_ = 0;

private:
  int after_;
};

TEST(Measure, WarmUpGoesOnUntilTheProbeSaysSettledAndTheRecordSaysSo) {
  MeasureSpec spec = budget_bound_spec();
  spec.gpu_min_timed_s = 0; // the window has its own test
  HostTimer timer;
  LoopSampler sampler;
  int calls = 0;
  const Operation op = [&] { ++calls; };
  CountingProbe settles(5); // settled at the 6th question: 5 warm-up batches between
  const auto m = measure(spec, sampler, timer, op, &settles);
  EXPECT_EQ(settles.asked_, 7); // and once more after the last sample
  EXPECT_EQ(m.steady_state.at("method"), "counting");
  EXPECT_TRUE(m.steady_state.at("settled").get<bool>());
  EXPECT_EQ(m.steady_state.at("last_reading").at("asked"), 6);
  EXPECT_EQ(m.to_json().at("steady_state"), m.steady_state);

  // A device that never settles is measured anyway after settle_max_s, and the record says it
  // did not settle.
  spec.settle_max_s = 0.05;
  CountingProbe never(-1);
  const auto cold = measure(spec, sampler, timer, op, &never);
  EXPECT_FALSE(cold.steady_state.at("settled").get<bool>());
  EXPECT_GE(cold.warmup_s, 0.04);
  // Without a probe, or with settling off, the warm-up is as before.
  EXPECT_EQ(measure(spec, sampler, timer, op).steady_state.at("method"), "none");
  spec.settle_max_s = 0;
  CountingProbe unused(3);
  EXPECT_EQ(measure(spec, sampler, timer, op, &unused).steady_state.at("method"), "none");
  EXPECT_EQ(unused.asked_, 0);
  spec.settle_max_s = -1;
  EXPECT_THROW(measure(spec, sampler, timer, op, &unused), std::invalid_argument);
}

// Says settled while `until` questions have not been asked, then not: a device that drifts.
class DriftingProbe final : public SettleProbe {
public:
  explicit DriftingProbe(int until) : until_(until) {}
  std::string_view method() const override { return "drifting"; }
  bool settled() override { return ++asked_ <= until_; }
  nlohmann::json last_reading() const override { return {{"asked", asked_}}; }
  int asked_ = 0;

private:
  int until_;
};

// A GPU point (one with a settle probe) samples its sustained window whatever the noise rule and
// the budget say, states the window, and asks the probe again after its last sample (issue 55:
// on a power-capped H200 the rounds the noise rule stopped after 2.5 ms read 4-5 % fast).
TEST(Measure, GpuPointSamplesItsSustainedWindowAndAsksTheProbeAfter) {
  MeasureSpec spec;
  spec.min_samples = 10;
  spec.min_sample_s = 0;
  spec.batch = 1;
  spec.time_budget_s = 1e-6;           // spent at once
  spec.gpu_min_timed_s = 200.0 / 1024; // 200 batches of 1/1024 s, added without rounding
  LoopSampler sampler;
  ScriptedTimer quiet({1.0 / 1024}); // every batch: no noise, the noise rule alone stops at 10
  DriftingProbe steady(100);
  const auto m = measure(
      spec, sampler, quiet, [] {}, &steady);
  EXPECT_EQ(m.stop_reason, "noise");
  EXPECT_EQ(m.time_s.n, 200u); // 10, 20, 40, 80, 160, then the 40 the window still lacked
  EXPECT_EQ(m.steady_state.at("timed_s"), 200.0 / 1024);
  EXPECT_EQ(m.steady_state.at("least_timed_s"), 200.0 / 1024);
  EXPECT_TRUE(m.steady_state.at("settled").get<bool>());
  EXPECT_TRUE(m.steady_state.at("settled_after").get<bool>());
  EXPECT_EQ(m.steady_state.at("last_reading_after").at("asked"), 2);

  // Settled before sampling, not after: the record says so.
  DriftingProbe drifts(1);
  const auto drifted = measure(
      spec, sampler, quiet, [] {}, &drifts);
  EXPECT_TRUE(drifted.steady_state.at("settled").get<bool>());
  EXPECT_FALSE(drifted.steady_state.at("settled_after").get<bool>());

  // A CPU point (no probe) stops at 10 samples, as before.
  const auto cpu = measure(spec, sampler, quiet, [] {});
  EXPECT_EQ(cpu.time_s.n, 10u);
  EXPECT_EQ(cpu.steady_state.at("least_timed_s"), 0.0);
  EXPECT_FALSE(cpu.steady_state.contains("settled_after"));
  // The window off, a GPU point stops at 10 too.
  spec.gpu_min_timed_s = 0;
  DriftingProbe again(100);
  EXPECT_EQ(measure(
                spec, sampler, quiet, [] {}, &again)
                .time_s.n,
            10u);
  spec.gpu_min_timed_s = -1;
  EXPECT_THROW(measure(
                   spec, sampler, quiet, [] {}, &again),
               std::invalid_argument);
  EXPECT_EQ(MeasureSpec{}.to_json().at("gpu_min_timed_s"), 0.2);
}

TEST(Measure, ShortOperationsAreBatchedAndReportedPerCall) {
  MeasureSpec spec;
  spec.min_samples = 3;
  spec.max_rel_noise = 1;
  spec.min_sample_s = 1e-3;
  // Sizing call takes 1e-5 s, so 100 calls per sample; each batch takes 1e-3 s.
  ScriptedTimer timer({1e-5, 1e-3, 1e-3, 1e-3});
  LoopSampler sampler;
  int calls = 0;
  const auto m = measure(spec, sampler, timer, [&] { ++calls; });
  EXPECT_EQ(m.batch, 100);
  EXPECT_DOUBLE_EQ(m.time_s.median, 1e-5);
  EXPECT_EQ(calls, spec.warmup_runs + 1 + 3 * 100);
}

TEST(Measure, ImpossibleSpecIsRejected) {
  MeasureSpec spec;
  spec.max_samples = 1;
  spec.min_samples = 5;
  HostTimer timer;
  LoopSampler sampler;
  EXPECT_THROW(measure(spec, sampler, timer, [] {}), std::invalid_argument);
}

TEST(Measure, GoogleBenchmarkDrivesTheRepetitions) {
  MeasureSpec spec;
  spec.min_samples = 6;
  spec.max_rel_noise = 1;
  spec.min_sample_s = 0;
  ScriptedTimer timer({2e-3, 1e-3, 2e-3, 3e-3, 4e-3, 5e-3, 6e-3});
  GBenchSampler sampler;
  const auto m = measure(spec, sampler, timer, [] {});
  ASSERT_EQ(m.samples_s.size(), 6u);
  // The manual times come back through the reporter in order, unchanged.
  EXPECT_DOUBLE_EQ(m.samples_s[0], 1e-3);
  EXPECT_DOUBLE_EQ(m.samples_s[5], 6e-3);
  EXPECT_DOUBLE_EQ(m.time_s.median, 3.5e-3);
  EXPECT_EQ(m.sampler, "google_benchmark");
  // A second point reuses the sampler with a fresh registration.
  ScriptedTimer again({1e-3});
  const auto m2 = measure(spec, sampler, again, [] {});
  EXPECT_EQ(m2.samples_s.size(), 6u);
}

TEST(Measure, JsonNamesTimerAndStopReason) {
  MeasureSpec spec;
  spec.min_samples = 2;
  spec.max_rel_noise = 1;
  ScriptedTimer timer({1e-3});
  GBenchSampler sampler;
  const auto j = measure(spec, sampler, timer, [] {}).to_json();
  EXPECT_EQ(j["timer"], "scripted");
  EXPECT_EQ(j["stop"], "noise");
  EXPECT_EQ(j["time_s"]["n"], 2);
}

} // namespace
} // namespace railgauge

namespace railgauge {
namespace {

class SmallQueueTimer final : public Timer {
public:
  std::string_view name() const override { return "small_queue"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override {
    largest = std::max(largest, batch);
    for (std::int64_t i = 0; i < batch; ++i)
      op();
    return 1e-7 * static_cast<double>(batch);
  }
  std::int64_t max_batch() const override { return 8; }
  std::int64_t largest = 0;
};

// A timer that logs what measure() asks of it, in order.
class LoggingTimer final : public Timer {
public:
  std::string_view name() const override { return "logging"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override {
    log.push_back("batch");
    for (std::int64_t i = 0; i < batch; ++i)
      op();
    return 1e-3 * static_cast<double>(batch);
  }
  void prime(const Operation &op) override {
    log.push_back("prime");
    op();
  }
  std::vector<std::string> log;
};

// A GPU timer's first gated batch must not be the first launch of its kernels: prime comes
// first, once, even with no warm-up runs.
TEST(Measure, TheTimerIsPrimedOnceBeforeAnythingIsTimed) {
  for (const int warmup_runs : {0, 2}) {
    MeasureSpec spec;
    spec.warmup_runs = warmup_runs;
    spec.min_samples = 3;
    spec.max_rel_noise = 1;
    LoggingTimer timer;
    GBenchSampler sampler;
    int calls = 0;
    measure(spec, sampler, timer, [&] { ++calls; });
    ASSERT_GE(timer.log.size(), 2u);
    EXPECT_EQ(timer.log.front(), "prime") << warmup_runs;
    EXPECT_EQ(std::count(timer.log.begin(), timer.log.end(), "prime"), 1) << warmup_runs;
    EXPECT_GE(calls, 1 + warmup_runs + 1) << "prime, warm-up runs, the sizing call";
  }
}

TEST(Measure, BatchNeverExceedsTheTimersLimit) {
  MeasureSpec spec;
  spec.min_samples = 3;
  spec.max_rel_noise = 1;
  spec.min_sample_s = 1e-3; // would ask for 10000 calls per batch
  SmallQueueTimer timer;
  GBenchSampler sampler;
  const auto m = measure(spec, sampler, timer, [] {});
  EXPECT_EQ(m.batch, 8);
  EXPECT_EQ(timer.largest, 8);
}

} // namespace
} // namespace railgauge

namespace railgauge {
namespace {

TEST(Measure, BandwidthFromMedianAndFastestSample) {
  Measurement m;
  const std::vector<double> samples = {2e-3, 1e-3, 4e-3};
  m.time_s = summarize(samples);
  const auto j = m.bandwidth_metrics(4'000'000);
  EXPECT_EQ(j["bytes_per_call"], 4'000'000);
  EXPECT_DOUBLE_EQ(j["bandwidth_gbytes_per_s"].get<double>(), 2.0); // 4e6 B / 2e-3 s / 1e9
  EXPECT_DOUBLE_EQ(j["bandwidth_max_gbytes_per_s"].get<double>(), 4.0);
  EXPECT_TRUE(j.contains("time_s"));
}

} // namespace
} // namespace railgauge
