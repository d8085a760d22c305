#include "rdma/latency_summary.h"

#include <algorithm>
#include <vector>

#include "harness/stats.h"

namespace railgauge::rdma {

record::LatencyFields summarize_latency(std::span<const double> samples_s) {
  const Summary s = summarize(samples_s);
  std::vector<double> sorted(samples_s.begin(), samples_s.end());
  std::sort(sorted.begin(), sorted.end());
  record::LatencyFields l;
  l.n = s.n;
  l.min_s = s.min;
  l.p50_s = s.median;
  l.p90_s = s.p90;
  l.p99_s = s.p99;
  l.p99_9_s = percentile_of_sorted(sorted, 0.999); // Summary stops at p99; this tail too
  l.max_s = s.max;
  l.mean_s = s.mean;
  l.stdev_s = s.stdev;
  return l;
}

} // namespace railgauge::rdma
