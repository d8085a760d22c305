#pragma once
// A Timer (harness/measure.h) that also keeps the time of every single call: latency points
// need the distribution of individual round trips (p99.9, max), which the measurement core's
// per-batch samples average away. The core still drives warm-up, batching and the stopping
// rule; this only records finer. Memory is bounded: at most `max_kept` calls are kept (the
// first ones), and the record says how many were measured.
//
// Each call is stamped with the CPU's cycle counter (rdma/cycle_counter.h), not the steady
// clock, so that no clock_gettime() lies between one call and the next: where that is a system
// call (a TCG guest's HPET) it would lengthen every round trip it sits between. The counter's
// ticks become seconds by the steady clock over the whole point (from the first batch's start
// to the last batch's end, read next to the counter): seconds over hundreds of calls, so the
// two clock reads' own cost is a negligible part of the scale.
#include <chrono>
#include <cstdint>
#include <vector>

#include "harness/measure.h"
#include "rdma/cycle_counter.h"

namespace railgauge::rdma {

class PerCallTimer final : public Timer {
public:
  explicit PerCallTimer(std::size_t max_kept = 1u << 22) : max_kept_(max_kept) {}
  std::string_view name() const override { return "cpu_cycle_counter_per_call"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override {
    const auto wall_start = Clock::now();
    std::uint64_t start = read_cycle_counter();
    if (measured_ == 0 && !started_) {
      first_wall_ = wall_start;
      first_ticks_ = start;
      started_ = true;
    }
    for (std::int64_t i = 0; i < batch; ++i) {
      op();
      const std::uint64_t end = read_cycle_counter();
      if (ticks_.size() < max_kept_)
        ticks_.push_back(end > start ? end - start : 0); // never backwards (invariant TSC)
      ++measured_;
      start = end;
    }
    last_ticks_ = start;
    last_wall_ = Clock::now();
    return std::chrono::duration<double>(last_wall_ - wall_start).count();
  }
  // Seconds per kept call.
  std::vector<double> calls_s() const {
    std::vector<double> out;
    out.reserve(ticks_.size());
    const double s_per_tick = seconds_per_tick();
    for (std::uint64_t t : ticks_)
      out.push_back(static_cast<double>(t) * s_per_tick);
    return out;
  }
  // The counter's scale over the point so far; 0 before two distinct readings.
  double seconds_per_tick() const {
    if (!started_ || last_ticks_ <= first_ticks_)
      return 0;
    return std::chrono::duration<double>(last_wall_ - first_wall_).count() /
           static_cast<double>(last_ticks_ - first_ticks_);
  }
  std::uint64_t measured() const { return measured_; }

private:
  using Clock = std::chrono::steady_clock;
  std::size_t max_kept_;
  std::vector<std::uint64_t> ticks_;
  std::uint64_t measured_ = 0;
  bool started_ = false;
  Clock::time_point first_wall_{}, last_wall_{};
  std::uint64_t first_ticks_ = 0, last_ticks_ = 0;
};

} // namespace railgauge::rdma
