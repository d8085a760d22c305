#pragma once
// Test doubles for the harness: a benchmark with two axes whose outcome is scripted by the
// point, and a timer that returns times from a script instead of a clock.
#include <chrono>
#include <deque>
#include <thread>

#include "harness/benchmark.h"
#include "harness/run_context.h"

namespace railgauge::testing {

// key "fake.<name>"; axes size_bytes (bytes, default 1K,2K) and mode (text:
// ok|waive|throw|fail|noisy|noisy_once|slow; noisy: an ok point whose samples' p10..p90 spans four
// medians; noisy_once: noisy the first time this object runs it, then quiet (p10 = p90);
// slow: an ok point whose every call sleeps 5 ms, so that its time is the budget's on any machine).
class FakeBenchmark final : public KeyedBenchmark {
public:
  explicit FakeBenchmark(std::string key = "fake.alpha")
      : KeyedBenchmark(std::move(key), "scripted outcome") {}
  std::vector<Axis> axes() const override {
    return {
        {"size_bytes", AxisType::bytes, "bytes", {std::int64_t{1024}, std::int64_t{2048}}, {}},
        {"mode",
         AxisType::text,
         "outcome",
         {std::string("ok")},
         {"ok", "waive", "throw", "fail", "throw_in_supported", "noisy", "noisy_once", "slow"}}};
  }
  std::optional<std::string> supported(const RunContext &, const Point &p) const override {
    if (p.text("mode") == "waive")
      return "scripted waiver";
    if (p.text("mode") == "throw_in_supported")
      throw std::out_of_range("scripted failure inside supported()");
    return std::nullopt;
  }
  Outcome run(RunContext &ctx, const Point &p) override {
    if (p.text("mode") == "throw")
      throw std::runtime_error("scripted failure inside run()");
    Outcome o;
    if (p.text("mode") == "fail") {
      o.status = Status::failed;
      o.reason = "3 wrong elements";
    }
    HostTimer timer;
    const bool slow = p.text("mode") == "slow";
    const auto m = ctx.measure(timer, [slow] {
      if (slow)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    o.metrics = m.to_json();
    o.metrics["bandwidth_gbytes_per_s"] = static_cast<double>(p.integer("size_bytes")) / 1e9;
    if (p.text("mode") == "noisy" || (p.text("mode") == "noisy_once" && noisy_once_runs_++ == 0))
      o.metrics["time_s"].update(
          {{"median", 1e-3}, {"p10", 0.0}, {"p90", 4e-3}, {"mean", 1e-3}, {"stdev", 2e-3}});
    // Measured again, quiet by script: the real times of an empty call spread past a 0.5 bound
    // on a loaded 2-core machine (0.53 seen), which failed the retry test by chance.
    else if (p.text("mode") == "noisy_once")
      o.metrics["time_s"].update(
          {{"median", 1e-3}, {"p10", 1e-3}, {"p90", 1e-3}, {"mean", 1e-3}, {"stdev", 0.0}});
    o.derived_params["threads_used"] = 1;
    return o;
  }

private:
  int noisy_once_runs_ = 0;
};

class ScriptedTimer final : public Timer {
public:
  explicit ScriptedTimer(std::deque<double> batch_times_s) : times_(std::move(batch_times_s)) {}
  std::string_view name() const override { return "scripted"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override {
    for (std::int64_t i = 0; i < batch; ++i)
      op();
    if (times_.empty())
      return last_;
    last_ = times_.front();
    times_.pop_front();
    return last_;
  }

private:
  std::deque<double> times_;
  double last_ = 1e-3;
};

} // namespace railgauge::testing
