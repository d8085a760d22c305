#include "analysis/calibrate/processor_usage.h"

#include <algorithm>
#include <vector>

#include "analysis/calibrate/table_fit.h"
#include "harness/stats.h"

namespace railgauge::calibrate {

Sourced tier_processor_usage(const Calibration &c, const NetworkTier &tier,
                             const std::string &net) {
  std::vector<double> slowdowns;
  for (const auto &o : c.samples.overlap)
    if (o.family == "collectives" && o.tier == tier.name)
      slowdowns.push_back(o.gemm_slowdown);
  if (auto u = c.assumptions.user(net + ".processor_usage"))
    return {*u, kUserSource, false};
  if (!slowdowns.empty())
    return measured(std::clamp(1.0 - 1.0 / median(slowdowns), 0.0, 0.99),
                    "1 - 1/(median GEMM slowdown under a concurrent collective)");
  return *c.assumptions.value(net + ".processor_usage");
}

void fit_offload_overlap(Calibration &c) {
  std::vector<double> offload_slowdown;
  for (const auto &o : c.samples.overlap)
    if (o.family == "offload")
      offload_slowdown.push_back(o.gemm_slowdown);
  if (!offload_slowdown.empty()) {
    const double m = median(offload_slowdown);
    c.overlap["offload"] = {{"points", offload_slowdown.size()},
                            {"gemm_slowdown_median", m},
                            {"processor_usage", std::clamp(1.0 - 1.0 / m, 0.0, 0.99)}};
  }
}

} // namespace railgauge::calibrate
