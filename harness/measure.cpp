#include "harness/measure.h"
#include "harness/byte_rates.h"
#include "harness/metric_names.h"
#include "harness/seconds_since.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

namespace railgauge {
namespace {

using Clock = std::chrono::steady_clock;

// Collects the time of every repetition of the one benchmark registered for a round. With
// manual time and one iteration per repetition, real_accumulated_time is that batch's time.
class RepetitionCollector final : public benchmark::BenchmarkReporter {
public:
  explicit RepetitionCollector(std::vector<double> &out) : out_(out) {}
  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const auto &run : runs) {
      if (run.run_type != Run::RT_Iteration)
        continue;
      if (run.error_occurred)
        throw std::runtime_error("google benchmark repetition failed: " + run.error_message);
      out_.push_back(run.real_accumulated_time / static_cast<double>(run.iterations));
    }
  }

private:
  std::vector<double> &out_;
};

} // namespace

nlohmann::json MeasureSpec::to_json() const {
  namespace m = measure_setting;
  nlohmann::json out = {{m::kWarmupRuns, warmup_runs},
                        {m::kWarmupS, warmup_s},
                        {m::kSettleMaxS, settle_max_s},
                        {m::kGpuMinTimedS, gpu_min_timed_s},
                        {m::kMinSamples, min_samples},
                        {m::kMaxSamples, max_samples},
                        {m::kMaxRelNoise, max_rel_noise},
                        {m::kNoiseBound, noise_bound},
                        {m::kTimeBudgetS, time_budget_s},
                        {m::kMinSampleS, min_sample_s},
                        {m::kBatch, batch}};
  // Only when set: a plan without retries keeps the digest it had before the setting existed,
  // so `--resume` still finds a run planned by an older build (harness/resume.cpp).
  if (noise_retries > 0)
    out[m::kNoiseRetries] = noise_retries;
  return out;
}

double HostTimer::time_batch_s(const Operation &op, std::int64_t batch) {
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < batch; ++i)
    op();
  return seconds_since(start);
}

nlohmann::json Measurement::to_json() const {
  return {{metric::kTimeS, railgauge::to_json(time_s)},
          {metric::kBatch, batch},
          {metric::kTimer, timer},
          {metric::kSampler, sampler},
          {metric::kStop, stop_reason},
          {metric::kElapsedS, elapsed_s},
          {metric::kWarmupS, warmup_s},
          {metric::kSteadyState, steady_state}};
}

nlohmann::json Measurement::bandwidth_metrics(std::uint64_t bytes_per_call) const {
  nlohmann::json j = to_json();
  const auto bytes = static_cast<double>(bytes_per_call);
  j[metric::kBytesPerCall] = bytes_per_call;
  j[metric::kBandwidthGbytesPerS] = gbytes_per_s_of(bytes, time_s.median);
  j[metric::kBandwidthMaxGbytesPerS] = gbytes_per_s_of(bytes, time_s.min);
  return j;
}

GBenchSampler::GBenchSampler() {
  // Google Benchmark wants Initialize() before it runs anything; no flags are passed, so its
  // own command-line options never leak into railgauge's.
  static char arg0[] = "railgauge";
  static char *argv[] = {arg0, nullptr};
  int argc = 1;
  benchmark::Initialize(&argc, argv);
}

std::vector<double> GBenchSampler::take(Timer &timer, const Operation &op, std::int64_t batch,
                                        int n) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(n));
  benchmark::ClearRegisteredBenchmarks();
  benchmark::RegisterBenchmark("point",
                               [&](benchmark::State &state) {
                                 for (auto _ : state)
                                   state.SetIterationTime(timer.time_batch_s(op, batch));
                               })
      ->UseManualTime()
      ->Iterations(1)
      ->Repetitions(n)
      ->ReportAggregatesOnly(false);
  RepetitionCollector collector(times);
  benchmark::RunSpecifiedBenchmarks(&collector);
  benchmark::ClearRegisteredBenchmarks();
  if (static_cast<int>(times.size()) != n)
    throw std::runtime_error(
        fmt::format("google benchmark reported {} repetitions, expected {}", times.size(), n));
  return times;
}

namespace {

// Whole calls per sample: the spec's, else sized from one timed call so that one sample lasts
// at least min_sample_s. `unsized` is what a Measurement starts with.
std::int64_t batch_size(const MeasureSpec &spec, Timer &timer, const Operation &op,
                        std::int64_t unsized) {
  if (spec.batch > 0)
    return spec.batch;
  std::int64_t batch = unsized;
  const double one_call_s = timer.time_batch_s(op, 1);
  if (one_call_s > 0 && one_call_s < spec.min_sample_s)
    batch = static_cast<std::int64_t>(std::ceil(spec.min_sample_s / one_call_s));
  return std::clamp<std::int64_t>(batch, 1, std::max<std::int64_t>(timer.max_batch(), 1));
}

// The samples of the next round, `have` taken since `sampling_start`. First round: min_samples.
// Later rounds: what the remaining budget allows at the observed sample time, at most as many as
// taken so far (so the noise is re-checked at least at every doubling), and at least one.
int samples_wanted(const MeasureSpec &spec, int have, Clock::time_point sampling_start,
                   double timed_s, double least_timed_s) {
  int want = spec.min_samples;
  if (have > 0) {
    const double per_sample_s =
        std::max(seconds_since(sampling_start) / static_cast<double>(have), 1e-9);
    const double left_s = spec.time_budget_s - seconds_since(sampling_start);
    // Clamp in floating point first: a long budget over short samples exceeds int.
    const double affordable = std::clamp(left_s / per_sample_s, 1.0, static_cast<double>(have));
    want = static_cast<int>(affordable);
    if (timed_s < least_timed_s) {
      // Enough to reach the window at the observed batch time, at most doubling.
      const double per_batch_s = std::max(timed_s / static_cast<double>(have), 1e-12);
      const double short_by = std::ceil((least_timed_s - timed_s) / per_batch_s);
      want = std::max(want, static_cast<int>(std::clamp(short_by, 1.0, double(have))));
    }
  }
  return std::min(want, spec.max_samples - have);
}

} // namespace

Measurement measure(const MeasureSpec &spec, Sampler &sampler, Timer &timer, const Operation &op,
                    SettleProbe *settle) {
  if (spec.min_samples < 1 || spec.max_samples < spec.min_samples || spec.time_budget_s <= 0 ||
      spec.max_rel_noise < 0 || spec.warmup_runs < 0 || !(spec.warmup_s >= 0) ||
      !(spec.settle_max_s >= 0) || !(spec.gpu_min_timed_s >= 0) || spec.batch < 0 ||
      spec.batch > timer.max_batch())
    throw std::invalid_argument(
        fmt::format("measurement spec cannot be met: {}", spec.to_json().dump()));
  const auto start = Clock::now();
  Measurement m;
  m.timer = std::string(timer.name());
  m.sampler = std::string(sampler.name());

  timer.prime(op);
  for (int i = 0; i < spec.warmup_runs; ++i)
    op();

  m.batch = batch_size(spec, timer, op, m.batch);
  // Whole batches through the timer, which waits for each (a GPU operation only enqueues).
  // The sampling budget does not count this loop.
  const auto warm_from = Clock::now();
  while (seconds_since(start) < spec.warmup_s)
    timer.time_batch_s(op, m.batch);
  m.steady_state = {{metric::steady::kMethod, spec.warmup_s > 0 ? "timed" : "none"}};
  if (settle && spec.settle_max_s > 0) {
    // Then until the probe says the device settled, each batch's load keeping it busy.
    bool settled = settle->settled();
    while (!settled && seconds_since(start) < spec.settle_max_s) {
      timer.time_batch_s(op, m.batch);
      settled = settle->settled();
    }
    m.steady_state = {{metric::steady::kMethod, std::string(settle->method())},
                      {metric::steady::kSettled, settled},
                      {metric::steady::kLastReading, settle->last_reading()}};
  }
  m.warmup_s = seconds_since(warm_from);
  m.steady_state[metric::steady::kWarmupS] = m.warmup_s;
  const auto sampling_start = start + (Clock::now() - warm_from);

  // A GPU point (one with a probe) samples at least its sustained window.
  const double least_timed_s = settle ? spec.gpu_min_timed_s : 0.0;
  double timed_s = 0; // the batches' time added
  std::vector<double> batches;
  while (true) {
    const int have = static_cast<int>(batches.size());
    const int want = samples_wanted(spec, have, sampling_start, timed_s, least_timed_s);
    auto round = sampler.take(timer, op, m.batch, want);
    batches.insert(batches.end(), round.begin(), round.end());
    for (double b : round)
      timed_s += b;
    const bool window_full = timed_s >= least_timed_s;

    std::vector<double> per_call;
    per_call.reserve(batches.size());
    for (double b : batches)
      per_call.push_back(b / static_cast<double>(m.batch));
    m.time_s = summarize(per_call);
    m.samples_s = std::move(per_call);

    if (window_full && m.time_s.relative_stdev() <= spec.max_rel_noise) {
      m.stop_reason = "noise";
      break;
    }
    if (static_cast<int>(batches.size()) >= spec.max_samples) {
      m.stop_reason = "max_samples";
      break;
    }
    if (window_full && seconds_since(sampling_start) >= spec.time_budget_s) {
      m.stop_reason = "budget";
      break;
    }
  }
  if (settle && spec.settle_max_s > 0) {
    // Asked again right after the last sample: a device that drifted while it was measured
    // shows as settled before and not after.
    m.steady_state[metric::steady::kSettledAfter] = settle->settled();
    m.steady_state[metric::steady::kLastReadingAfter] = settle->last_reading();
  }
  m.steady_state[metric::steady::kTimedS] = timed_s;
  m.steady_state[metric::steady::kLeastTimedS] = least_timed_s;
  m.elapsed_s = seconds_since(start);
  return m;
}

} // namespace railgauge
