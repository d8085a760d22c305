#include "offload/all_gpus_figures.h"

#include "records/offload_record.h"

namespace railgauge::offload {

void write_all_gpus_figures(const std::vector<AllGpusCopy> &gpus, double aggregate_gbytes_per_s,
                            nlohmann::json &metrics) {
  double sum = 0, expected_sum = 0;
  bool all_expected = true;
  std::size_t slowest = 0;
  for (const auto &g : gpus)
    sum += g.bandwidth_gbytes_per_s;
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t d = 0; d < gpus.size(); ++d) {
    const auto &g = gpus[d];
    if (g.bandwidth_gbytes_per_s < gpus[slowest].bandwidth_gbytes_per_s)
      slowest = d;
    nlohmann::json entry = nlohmann::json::object();
    g.placement.write(entry);
    g.placement_check.write(entry);
    g.link.write(entry);
    entry[record::kBandwidthGbytesPerS] = g.bandwidth_gbytes_per_s;
    entry[record::kPerGpuShare] = sum > 0 ? g.bandwidth_gbytes_per_s / sum : 0.0;
    g.part.write(entry);
    if (g.link.rates && g.link.rates->expected_gbytes_per_s)
      expected_sum += *g.link.rates->expected_gbytes_per_s;
    else
      all_expected = false;
    list.push_back(std::move(entry));
  }
  metrics[record::kSumOfGpusGbytesPerS] = sum;
  metrics[record::kPerGpu] = std::move(list);
  metrics[record::kSlowestGpu] = slowest;
  metrics[record::kSlowestGpuShare] = sum > 0 ? gpus[slowest].bandwidth_gbytes_per_s / sum : 0.0;
  // The links' sum is an upper bound: GPUs behind one switch or root port share its uplink.
  metrics[record::kExpectedGbytesPerS] = all_expected ? nlohmann::json(expected_sum) : nullptr;
  if (all_expected && expected_sum > 0)
    metrics[record::kEfficiency] = aggregate_gbytes_per_s / expected_sum;
}

} // namespace railgauge::offload
