#include "records/offload_rates.h"

#include "harness/record_fields.h"
#include "records/offload_record.h"

namespace railgauge::offload::record {

namespace f = record_fields;

BidirectionalRates BidirectionalRates::of(double h2d, double d2h,
                                          std::optional<double> expected_both) {
  BidirectionalRates r{h2d, d2h, h2d + d2h, std::nullopt, std::nullopt};
  if (expected_both) {
    r.h2d_efficiency = h2d / (*expected_both / 2); // per direction
    r.d2h_efficiency = d2h / (*expected_both / 2);
  }
  return r;
}

void BidirectionalRates::write(nlohmann::json &metrics) const {
  metrics[kH2dGbytesPerS] = h2d_gbytes_per_s;
  metrics[kD2hGbytesPerS] = d2h_gbytes_per_s;
  metrics[kSumGbytesPerS] = sum_gbytes_per_s;
  if (h2d_efficiency)
    metrics[kH2dEfficiency] = *h2d_efficiency;
  if (d2h_efficiency)
    metrics[kD2hEfficiency] = *d2h_efficiency;
}

std::optional<BidirectionalRates> BidirectionalRates::read(const nlohmann::json &metrics) {
  const auto h2d = f::number(metrics, kH2dGbytesPerS), d2h = f::number(metrics, kD2hGbytesPerS);
  if (!h2d || !d2h)
    return std::nullopt;
  return BidirectionalRates{*h2d, *d2h, f::number(metrics, kSumGbytesPerS).value_or(*h2d + *d2h),
                            f::number(metrics, kH2dEfficiency), f::number(metrics, kD2hEfficiency)};
}

AllGpusRates AllGpusRates::of(const std::vector<double> &rates,
                              const std::vector<std::optional<double>> &expected,
                              double aggregate_gbytes_per_s) {
  AllGpusRates r;
  for (double rate : rates)
    r.sum_of_gpus_gbytes_per_s += rate;
  std::size_t slowest = 0;
  for (std::size_t d = 0; d < rates.size(); ++d) {
    if (rates[d] < rates[slowest])
      slowest = d;
    r.shares.push_back(r.sum_of_gpus_gbytes_per_s > 0 ? rates[d] / r.sum_of_gpus_gbytes_per_s
                                                      : 0.0);
  }
  r.slowest_gpu = static_cast<std::int64_t>(slowest);
  r.slowest_gpu_share = r.shares.empty() ? 0.0 : r.shares[slowest];
  // The links' sum is an upper bound: GPUs behind one switch or root port share its uplink.
  double expected_sum = 0;
  bool all_expected = true;
  for (const auto &e : expected) {
    all_expected = all_expected && e.has_value();
    expected_sum += e.value_or(0);
  }
  if (all_expected) {
    r.expected_gbytes_per_s = expected_sum;
    if (expected_sum > 0)
      r.efficiency = aggregate_gbytes_per_s / expected_sum;
  }
  return r;
}

void AllGpusRates::write(nlohmann::json &metrics) const {
  metrics[kSumOfGpusGbytesPerS] = sum_of_gpus_gbytes_per_s;
  metrics[kSlowestGpu] = slowest_gpu;
  metrics[kSlowestGpuShare] = slowest_gpu_share;
  metrics[kExpectedGbytesPerS] =
      expected_gbytes_per_s ? nlohmann::json(*expected_gbytes_per_s) : nlohmann::json();
  if (efficiency)
    metrics[kEfficiency] = *efficiency;
}

void AllGpusRates::write_share(std::size_t gpu, nlohmann::json &gpu_object) const {
  gpu_object[kPerGpuShare] = gpu < shares.size() ? shares[gpu] : 0.0;
}

std::optional<AllGpusRates> AllGpusRates::read(const nlohmann::json &metrics) {
  const auto sum = f::number(metrics, kSumOfGpusGbytesPerS);
  const auto slowest = f::integer(metrics, kSlowestGpu);
  if (!sum || !slowest)
    return std::nullopt;
  AllGpusRates r;
  r.sum_of_gpus_gbytes_per_s = *sum;
  r.slowest_gpu = *slowest;
  r.slowest_gpu_share = f::number(metrics, kSlowestGpuShare).value_or(0);
  if (const auto *list = f::field(metrics, kPerGpu); list && list->is_array())
    for (const auto &gpu : *list)
      r.shares.push_back(f::number(gpu, kPerGpuShare).value_or(0));
  r.expected_gbytes_per_s = f::number(metrics, kExpectedGbytesPerS);
  r.efficiency = f::number(metrics, kEfficiency);
  return r;
}

} // namespace railgauge::offload::record
