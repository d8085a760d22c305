#pragma once
// The latency distribution of a ping-pong or read point, from one sample per iteration (not
// per batch), as a fabric engineer reads it: min, p50, p90, p99, p99.9, max, mean and a
// floating-point sample standard deviation (perftest's integer stdev prints sub-microsecond
// jitter as 0). harness/stats.h computes all but p99.9, with the same interpolation between
// closest ranks.
#include <span>

#include "records/rdma_point_fields.h"

namespace railgauge::rdma {

// The summary as a record states it (metrics.latency, latency_idle), every figure set. Throws
// std::invalid_argument on no samples or a non-finite one.
record::LatencyFields summarize_latency(std::span<const double> samples_s);

} // namespace railgauge::rdma
