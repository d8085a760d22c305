#include "records/pcie_link_fields.h"

#include "harness/record_fields.h"
#include "records/offload_record.h"

namespace railgauge::offload::record {
namespace {

template <typename T> nlohmann::json or_null(const std::optional<T> &value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::optional<int> small_integer(const nlohmann::json &obj, const char *name) {
  const auto value = record_fields::integer(obj, name);
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

} // namespace

void PcieLinkFields::write(nlohmann::json &metrics) const {
  if (!source) {
    metrics[kPcieLinkSource] = nullptr;
    metrics[kPcieLinkUnknownReason] = unknown_reason;
    return;
  }
  metrics[kPcieLinkSource] = *source;
  metrics[kPcieGen] = or_null(gen);
  metrics[kPcieWidth] = or_null(width);
  metrics[kPcieGenMax] = or_null(gen_max);
  metrics[kPcieWidthMax] = or_null(width_max);
  metrics[kPcieLinkDowntrained] = downtrained;
  metrics[kPcieLinkDowntrainedReason] = or_null(downtrained_reason);
  if (rates) {
    metrics[kPcieEncoding] = rates->encoding;
    metrics[kPcieLinkGbytesPerS] = or_null(rates->link_gbytes_per_s);
    metrics[kPcieMaxPayloadBytesAssumed] = rates->max_payload_bytes_assumed;
    metrics[kExpectedGbytesPerS] = or_null(rates->expected_gbytes_per_s);
  }
  if (efficiency)
    metrics[kEfficiency] = *efficiency;
}

std::optional<PcieLinkFields> PcieLinkFields::read(const nlohmann::json &metrics) {
  namespace f = record_fields;
  if (!f::field(metrics, kPcieLinkSource))
    return std::nullopt;
  PcieLinkFields link;
  link.source = f::text(metrics, kPcieLinkSource);
  if (!link.source) {
    link.unknown_reason = f::text(metrics, kPcieLinkUnknownReason).value_or("");
    return link;
  }
  link.gen = small_integer(metrics, kPcieGen);
  link.width = small_integer(metrics, kPcieWidth);
  link.gen_max = small_integer(metrics, kPcieGenMax);
  link.width_max = small_integer(metrics, kPcieWidthMax);
  const auto *downtrained = f::field(metrics, kPcieLinkDowntrained);
  link.downtrained = downtrained && downtrained->is_boolean() && downtrained->get<bool>();
  link.downtrained_reason = f::text(metrics, kPcieLinkDowntrainedReason);
  if (const auto encoding = f::text(metrics, kPcieEncoding)) {
    Rates rates;
    rates.encoding = *encoding;
    rates.link_gbytes_per_s = f::number(metrics, kPcieLinkGbytesPerS);
    rates.max_payload_bytes_assumed =
        small_integer(metrics, kPcieMaxPayloadBytesAssumed).value_or(0);
    rates.expected_gbytes_per_s = f::number(metrics, kExpectedGbytesPerS);
    link.rates = rates;
  }
  link.efficiency = f::number(metrics, kEfficiency);
  return link;
}

} // namespace railgauge::offload::record
