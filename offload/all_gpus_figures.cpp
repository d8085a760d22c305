#include "offload/all_gpus_figures.h"

#include "records/offload_rates.h"
#include "records/offload_record.h"

namespace railgauge::offload {

void write_all_gpus_figures(const std::vector<AllGpusCopy> &gpus, double aggregate_gbytes_per_s,
                            nlohmann::json &metrics) {
  std::vector<double> rates;
  std::vector<std::optional<double>> expected;
  for (const auto &g : gpus) {
    rates.push_back(g.bandwidth_gbytes_per_s);
    expected.push_back(g.link.rates ? g.link.rates->expected_gbytes_per_s : std::nullopt);
  }
  const auto figures = record::AllGpusRates::of(rates, expected, aggregate_gbytes_per_s);
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t d = 0; d < gpus.size(); ++d) {
    const auto &g = gpus[d];
    nlohmann::json entry = nlohmann::json::object();
    g.placement.write(entry);
    g.placement_check.write(entry);
    g.link.write(entry);
    entry[record::kBandwidthGbytesPerS] = g.bandwidth_gbytes_per_s;
    figures.write_share(d, entry);
    g.part.write(entry);
    list.push_back(std::move(entry));
  }
  metrics[record::kPerGpu] = std::move(list);
  figures.write(metrics);
}

} // namespace railgauge::offload
