#pragma once
// The one measurement core: warm-up, batching, repetition, statistics and the stopping rule.
// Benchmarks never time anything themselves; they hand an operation and a Timer to
// RunContext::measure() and get a Measurement back.
//
// A *sample* is one timed batch of `batch` calls of the operation; its time divided by `batch`
// is one per-operation sample. Batching keeps a sample above `min_sample_s`, so that
// microsecond operations are not lost in timer resolution.
//
// Stopping rule: after `min_samples`, sampling stops as soon as the relative standard deviation
// of the samples is at most `max_rel_noise` ("noise"), or the point has spent `time_budget_s`
// ("budget"), or `max_samples` were taken ("max_samples").
//
// Plug-in points: a Timer says how one batch is timed (HostTimer here; the CUDA-event timer
// gates the batch behind a blocking kernel and reads events), a Sampler says who drives the
// repetitions (GBenchSampler: Google Benchmark with manual time; the lockstep multi-rank loop
// takes the max over ranks per iteration). Neither changes a benchmark.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/stats.h"

namespace railgauge {

// The names of MeasureSpec's settings, as a suite's `measure:` and `--measure NAME=VALUE` give
// them (harness/suite.cpp) and MeasureSpec::to_json writes them. Settings, not record fields.
namespace measure_setting {
inline constexpr const char *kTimeBudgetS = "time_budget_s";
inline constexpr const char *kMaxRelNoise = "max_rel_noise";
inline constexpr const char *kNoiseBound = "noise_bound";
inline constexpr const char *kNoiseRetries = "noise_retries";
inline constexpr const char *kMinSamples = "min_samples";
inline constexpr const char *kMaxSamples = "max_samples";
inline constexpr const char *kWarmupRuns = "warmup_runs";
inline constexpr const char *kWarmupS = "warmup_s";
inline constexpr const char *kSettleMaxS = "settle_max_s";
inline constexpr const char *kGpuMinTimedS = "gpu_min_timed_s";
inline constexpr const char *kMinSampleS = "min_sample_s";
inline constexpr const char *kBatch = "batch";
// Every setting, in the order an error lists them
inline constexpr const char *kAll[] = {kTimeBudgetS, kMaxRelNoise,  kNoiseBound, kNoiseRetries,
                                       kMinSamples,  kMaxSamples,   kWarmupRuns, kWarmupS,
                                       kSettleMaxS,  kGpuMinTimedS, kMinSampleS, kBatch};
} // namespace measure_setting

inline constexpr int kMostNoiseRetries = 3;

struct MeasureSpec {
  int warmup_runs = 2; // untimed calls of the operation before sampling
  // Then untimed batches until the point has run this long: a GPU reaches its power and thermal
  // steady state only after seconds of load, and its boost clock flatters a short point. The
  // sampling budget starts after it.
  double warmup_s = 0;
  // With a settle probe (a GPU point's clocks and power), untimed batches go on after warmup_s
  // until the probe says the device settled, or until the point has run this long: a hot GPU
  // settles at once, a cold one in seconds. 0: no settling. Records say which happened
  // (Measurement::steady_state).
  double settle_max_s = 5.0;
  // With a settle probe (a GPU point), sampling goes on until its timed batches add up to at
  // least this span, whatever the noise rule and the budget say: a GPU at its power limit runs
  // the first milliseconds after an untimed prelude faster than it can sustain, until its power
  // controller pulls the clock down. On one H200 (2026-11-27, issue 55; docs/gemm.md, "Sustained
  // window") the GEMM rounds that the noise rule stopped, 2.5 ms of timed samples at the median,
  // read 1.042 of torch's rate (1.050 where the GPU was power-capped, 0.981 where not), and the
  // rounds that sampled the full 0.2 s read 0.999: 0.2 s is the shortest window those data show
  // sustained. 0: off.
  double gpu_min_timed_s = 0.2;
  int min_samples = 10;        // never stop before this many samples
  int max_samples = 2000;      // never take more
  double max_rel_noise = 0.02; // stop when stdev/mean of the samples is at most this
  // The most noise (relative_noise: the half-width of the samples' p10..p90 over their median)
  // an ok point may end with: past it the run names the point in its summary
  // and exits 1 (harness/noise_bound.h), for a point whose budget ran out far from
  // max_rel_noise (a machine busy with other work) has a median that judges nothing. 0: no
  // bound, the default for a family's own command; a suite states its own.
  double noise_bound = 0;
  // A point past noise_bound is measured again up to this many times, in a run of one rank, and
  // the record keeps the last measurement and the noise of each earlier one
  // (metrics.noise_before_remeasure): one process of a busy machine's neighbours preempting a
  // 2-core VM for a second scatters one point, and a node is not judged by that second alone. A
  // point noisy every time is still named and exits 1. Many ranks measure a point in lockstep, so
  // one rank cannot measure it again alone: there it is 0 whatever the suite says. 0: never.
  int noise_retries = 0;
  // ... at most this many (harness/suite.cpp refuses more): each measurement has its own
  // --point-timeout, so a point may take 1 + noise_retries times as long.
  double time_budget_s = 1.0; // stop sampling once the point has spent this long
  double min_sample_s = 2e-4; // batch calls so that one sample lasts at least this long
  // Calls per sample, fixed: no call is spent sizing the batch, and min_sample_s is not used. 0:
  // sized from one timed call. A latency point that stamps each call (rdma/per_call_timer.h)
  // runs its calls back to back in one batch this way, with no sampler code between them.
  std::int64_t batch = 0;

  nlohmann::json to_json() const;
};

using Operation = std::function<void()>;

// Says when a device under load has reached its steady state (its clocks and power stopped
// moving): measure() asks it between warm-up batches. Implemented for GPUs over NVML
// (harness/inventory/gpu_settle.h).
class SettleProbe {
public:
  virtual ~SettleProbe() = default;
  // Recorded as steady_state.method, e.g. "gpu_clocks".
  virtual std::string_view method() const = 0;
  // Takes a reading (at most one per its own period) and says whether the device has settled.
  virtual bool settled() = 0;
  // What the last readings were, for the record: {"sm_clock_mhz": .., "power_w": ..}.
  virtual nlohmann::json last_reading() const = 0;
};

// Times one batch of calls of an operation and returns the elapsed seconds for the batch.
class Timer {
public:
  virtual ~Timer() = default;
  // Recorded as metrics.timer: what clock the numbers come from.
  virtual std::string_view name() const = 0;
  virtual double time_batch_s(const Operation &op, std::int64_t batch) = 0;
  // The most calls one batch may hold (a GPU timer is bounded by the launch queue that the
  // blocking kernel holds back).
  virtual std::int64_t max_batch() const { return std::int64_t{1} << 24; }
  // Runs `op` once, untimed, and waits for it: measure() calls it before anything is timed. A GPU
  // timer gates its batches behind a spinning kernel, and with lazy module loading (CUDA's
  // default since 12.2) a kernel's first launch may wait for the context that kernel holds; the
  // warm-up runs would load it first, but warmup_runs may be 0. Host timers need nothing.
  virtual void prime(const Operation &op) { (void)op; }
};

// std::chrono::steady_clock around the batch, on the calling thread.
class HostTimer final : public Timer {
public:
  std::string_view name() const override { return "host_steady_clock"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override;
};

struct Measurement {
  Summary time_s;                // per call of the operation
  std::vector<double> samples_s; // per call, one per sample, in the order taken
  std::int64_t batch = 1;        // calls per sample
  std::string timer;             // Timer::name()
  std::string sampler;           // Sampler::name()
  std::string stop_reason;       // "noise" | "budget" | "max_samples"
  double elapsed_s = 0;          // wall time the point spent, warm-up included
  double warmup_s = 0;           // of which the timed warm-up (MeasureSpec::warmup_s)
  // How the measurement began and what its window was: {"method": "none" | "timed" | a probe's
  // method, "warmup_s", "settled": true/false (with a probe: whether it said so before
  // settle_max_s), the probe's "last_reading"; with a probe also "settled_after" and
  // "last_reading_after", asked again right after the last sample; "timed_s": the samples' timed
  // span (the batches' time added), "least_timed_s": the span sampling had to reach}.
  nlohmann::json steady_state = nlohmann::json::object();

  // {"time_s": {...summary...}, "batch": .., "timer": .., "sampler": .., "stop": ..}
  nlohmann::json to_json() const;
  // to_json() plus the bandwidth of a call that moves `bytes_per_call` bytes, in GB/s (1e9):
  // bandwidth_gbytes_per_s from the median time, bandwidth_max_gbytes_per_s from the fastest
  // sample (BabelStream's figure), and bytes_per_call itself.
  nlohmann::json bandwidth_metrics(std::uint64_t bytes_per_call) const;
};

// Drives the repetitions of one point. `take(n)` must time n more samples and return them
// (seconds per batch); the core does warm-up, batch sizing and the stopping rule around it.
class Sampler {
public:
  virtual ~Sampler() = default;
  virtual std::string_view name() const = 0;
  virtual std::vector<double> take(Timer &timer, const Operation &op, std::int64_t batch,
                                   int n) = 0;
};

// Google Benchmark runs each round of samples as repetitions of one benchmark with manual time
// (one iteration per repetition = one batch), and a reporter hands back each repetition's
// time. Google Benchmark keeps its registry in the process, so use one sampler at a time.
class GBenchSampler final : public Sampler {
public:
  GBenchSampler();
  std::string_view name() const override { return "google_benchmark"; }
  std::vector<double> take(Timer &timer, const Operation &op, std::int64_t batch, int n) override;
};

// Measures `op` under `spec`, after the device settled when `settle` is given. Throws
// std::invalid_argument for a spec that cannot be met.
Measurement measure(const MeasureSpec &spec, Sampler &sampler, Timer &timer, const Operation &op,
                    SettleProbe *settle = nullptr);

} // namespace railgauge
