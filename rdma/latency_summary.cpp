#include "rdma/latency_summary.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "harness/stats.h"

namespace railgauge::rdma {

LatencySummary summarize_latency(std::span<const double> samples_s) {
  if (samples_s.empty())
    throw std::invalid_argument("latency summary of no samples");
  std::vector<double> sorted(samples_s.begin(), samples_s.end());
  for (double v : sorted)
    if (!std::isfinite(v))
      throw std::invalid_argument("latency summary: non-finite sample");
  std::sort(sorted.begin(), sorted.end());
  LatencySummary s;
  s.n = sorted.size();
  s.min_s = sorted.front();
  s.max_s = sorted.back();
  s.p50_s = percentile_of_sorted(sorted, 0.50);
  s.p90_s = percentile_of_sorted(sorted, 0.90);
  s.p99_s = percentile_of_sorted(sorted, 0.99);
  s.p999_s = percentile_of_sorted(sorted, 0.999);
  // Two passes (mean, then squared deviations): no cancellation for tightly clustered samples.
  double sum = 0;
  for (double v : sorted)
    sum += v;
  s.mean_s = sum / static_cast<double>(s.n);
  double squares = 0;
  for (double v : sorted)
    squares += (v - s.mean_s) * (v - s.mean_s);
  s.stdev_s = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0.0;
  return s;
}

record::LatencyFields latency_fields(const LatencySummary &s) {
  record::LatencyFields l;
  l.n = s.n;
  l.min_s = s.min_s;
  l.p50_s = s.p50_s;
  l.p90_s = s.p90_s;
  l.p99_s = s.p99_s;
  l.p99_9_s = s.p999_s;
  l.max_s = s.max_s;
  l.mean_s = s.mean_s;
  l.stdev_s = s.stdev_s;
  return l;
}

} // namespace railgauge::rdma
