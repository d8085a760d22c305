#pragma once
// A Timer (harness/measure.h) that also keeps the time of every single call: latency points
// need the distribution of individual round trips (p99.9, max), which the measurement core's
// per-batch samples average away. The core still drives warm-up, batching and the stopping
// rule; this only records finer. Memory is bounded: at most `max_kept` calls are kept (the
// first ones), and the record says how many were measured.
#include <chrono>
#include <cstdint>
#include <vector>

#include "harness/measure.h"

namespace railgauge::rdma {

class PerCallTimer final : public Timer {
public:
  explicit PerCallTimer(std::size_t max_kept = 1u << 22) : max_kept_(max_kept) {}
  std::string_view name() const override { return "host_steady_clock_per_call"; }
  double time_batch_s(const Operation &op, std::int64_t batch) override {
    using Clock = std::chrono::steady_clock;
    const auto batch_start = Clock::now();
    auto start = batch_start;
    for (std::int64_t i = 0; i < batch; ++i) {
      op();
      const auto end = Clock::now();
      if (calls_.size() < max_kept_)
        calls_.push_back(std::chrono::duration<double>(end - start).count());
      ++measured_;
      start = end;
    }
    return std::chrono::duration<double>(start - batch_start).count();
  }
  const std::vector<double> &calls_s() const { return calls_; }
  std::uint64_t measured() const { return measured_; }

private:
  std::size_t max_kept_;
  std::vector<double> calls_;
  std::uint64_t measured_ = 0;
};

} // namespace railgauge::rdma
