#pragma once
// The latency distribution of a ping-pong or read point, from one sample per iteration (not
// per batch), as a fabric engineer reads it: min, p50, p90, p99, p99.9, max, mean and a
// floating-point sample standard deviation (perftest's integer stdev prints sub-microsecond
// jitter as 0). Percentiles interpolate between closest ranks like harness/stats.h.
#include <span>

#include "records/rdma_point_fields.h"

namespace railgauge::rdma {

struct LatencySummary {
  std::size_t n = 0;
  double min_s = 0, p50_s = 0, p90_s = 0, p99_s = 0, p999_s = 0, max_s = 0;
  double mean_s = 0, stdev_s = 0;
};

// Throws std::invalid_argument on no samples or a non-finite one.
LatencySummary summarize_latency(std::span<const double> samples_s);

// The summary as a record states it (metrics.latency, latency_idle): every figure set.
record::LatencyFields latency_fields(const LatencySummary &s);

} // namespace railgauge::rdma
