#include "records/rdma_point_fields.h"

#include <array>
#include <utility>

#include "harness/byte_rates.h"
#include "harness/record_fields.h"
#include "records/figure_list.h"
#include "records/rdma_record.h"

namespace railgauge::rdma::record {
namespace {

namespace f = record_fields;

// Each type's figures by their names: the one list its write(), read() and empty() go through.
template <typename Latency> auto latency_seconds(Latency &l) {
  return std::array{std::pair{kMinS, &l.min_s},     std::pair{kP50S, &l.p50_s},
                    std::pair{kP90S, &l.p90_s},     std::pair{kP99S, &l.p99_s},
                    std::pair{kP99_9S, &l.p99_9_s}, std::pair{kMaxS, &l.max_s},
                    std::pair{kMeanS, &l.mean_s},   std::pair{kStdevS, &l.stdev_s}};
}
template <typename Latency> auto latency_counts(Latency &l) {
  return std::array{std::pair{kLatencyN, &l.n}};
}
template <typename Bandwidth> auto bandwidth_rates(Bandwidth &b) {
  return std::array{std::pair{metric::kBandwidthGbytesPerS, &b.gbytes_per_s},
                    std::pair{metric::kBandwidthMaxGbytesPerS, &b.gbytes_max_per_s},
                    std::pair{kBandwidthGbitsPerS, &b.gbits_per_s},
                    std::pair{kBandwidthMaxGbitsPerS, &b.gbits_max_per_s},
                    std::pair{kBandwidthPeakGbitsPerS, &b.gbits_peak_per_s},
                    std::pair{kMessageRatePerS, &b.message_rate_per_s},
                    std::pair{kPeerBandwidthGbitsPerS, &b.peer_gbits_per_s},
                    std::pair{kBidirectionalGbitsPerS, &b.bidirectional_gbits_per_s}};
}
template <typename Bandwidth> auto bandwidth_counts(Bandwidth &b) {
  return std::array{std::pair{metric::kBytesPerCall, &b.bytes_per_call},
                    std::pair{kMessagesPerCall, &b.messages_per_call}};
}

// A count is never negative: one that is reads as absent, as a figure of another type does.
template <typename Figures> void take_rdma_counts(const nlohmann::json &obj, const Figures &fs) {
  for (const auto &[name, figure] : fs) {
    const auto count = f::integer(obj, name);
    *figure =
        count && *count >= 0 ? std::optional(static_cast<std::uint64_t>(*count)) : std::nullopt;
  }
}

template <typename Spread> auto spread_figures(Spread &s) {
  return std::array{std::pair{kSpreadMin, &s.min},
                    std::pair{kSpreadMedian, &s.median},
                    std::pair{kSpreadMax, &s.max},
                    std::pair{kSpreadSum, &s.sum},
                    std::pair{kJainFairnessIndex, &s.jain},
                    std::pair{kSpreadMinOverFairShare, &s.min_over_fair_share}};
}

} // namespace

bool LatencyFields::empty() const {
  return records::figures_unset(latency_seconds(*this)) &&
         records::figures_unset(latency_counts(*this));
}

void LatencyFields::write(nlohmann::json &metrics, const char *name) const {
  nlohmann::json summary = nlohmann::json::object();
  records::put_figures(summary, latency_counts(*this));
  records::put_figures(summary, latency_seconds(*this));
  metrics[name] = summary;
}

std::optional<LatencyFields> LatencyFields::read(const nlohmann::json &metrics, const char *name) {
  const auto *summary = f::field(metrics, name);
  if (!summary || !summary->is_object())
    return std::nullopt;
  LatencyFields l;
  take_rdma_counts(*summary, latency_counts(l));
  records::take_numbers(*summary, latency_seconds(l));
  return l;
}

BandwidthFields BandwidthFields::of(std::uint64_t bytes_per_call, std::uint64_t messages_per_call,
                                    const Summary &time_s) {
  const auto bytes = static_cast<double>(bytes_per_call);
  BandwidthFields b;
  b.bytes_per_call = bytes_per_call;
  b.messages_per_call = messages_per_call;
  b.gbytes_per_s = gbytes_per_s_of(bytes, time_s.median);
  b.gbytes_max_per_s = gbytes_per_s_of(bytes, time_s.min);
  b.gbits_per_s = gbits_per_s_of(bytes, time_s.median);
  b.gbits_max_per_s = gbits_per_s_of(bytes, time_s.min);
  b.message_rate_per_s = static_cast<double>(messages_per_call) / time_s.median;
  return b;
}

void BandwidthFields::add_peer(double peer_gbits) {
  peer_gbits_per_s = peer_gbits;
  bidirectional_gbits_per_s = gbits_per_s.value_or(0) + peer_gbits;
}

bool BandwidthFields::empty() const {
  return records::figures_unset(bandwidth_rates(*this)) &&
         records::figures_unset(bandwidth_counts(*this));
}

void BandwidthFields::write(nlohmann::json &metrics) const {
  records::put_figures(metrics, bandwidth_counts(*this));
  records::put_figures(metrics, bandwidth_rates(*this));
}

std::optional<BandwidthFields> BandwidthFields::read(const nlohmann::json &metrics) {
  BandwidthFields b;
  take_rdma_counts(metrics, bandwidth_counts(b));
  records::take_numbers(metrics, bandwidth_rates(b));
  return b.empty() ? std::nullopt : std::optional(b);
}

void FlowSpreadFields::write(nlohmann::json &metrics, const char *name) const {
  nlohmann::json spread = nlohmann::json::object();
  records::put_figures(spread, spread_figures(*this));
  spread[kSpreadValues] = values;
  metrics[name] = std::move(spread);
}

std::optional<FlowSpreadFields> FlowSpreadFields::read(const nlohmann::json &metrics,
                                                       const char *name) {
  const auto *spread = f::field(metrics, name);
  if (!spread || !spread->is_object())
    return std::nullopt;
  FlowSpreadFields s;
  records::take_numbers(*spread, spread_figures(s));
  if (const auto *values = f::field(*spread, kSpreadValues); values && values->is_array())
    for (const auto &v : *values)
      if (v.is_number())
        s.values.push_back(v.get<double>());
  return s;
}

} // namespace railgauge::rdma::record
