#include "records/fabric_load_fields.h"

#include "harness/record_fields.h"
#include "records/rdma_record.h"

namespace railgauge::rdma::record {

namespace f = record_fields;

namespace {

nlohmann::json field_or_null(const nlohmann::json &obj, const char *name) {
  const auto *v = f::field(obj, name);
  return v ? *v : nlohmann::json();
}

} // namespace

void write_ends(nlohmann::json &metrics, const std::vector<FabricEndFields> &ends) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto &e : ends)
    list.push_back(
        {{kEndRank, e.rank}, {kRole, e.role}, {kEndDevice, e.device}, {kCongestion, e.congestion}});
  metrics[kEnds] = std::move(list);
}

std::optional<std::vector<FabricEndFields>> read_ends(const nlohmann::json &metrics) {
  const auto *list = f::field(metrics, kEnds);
  if (!list || !list->is_array())
    return std::nullopt;
  std::vector<FabricEndFields> ends;
  for (const auto &e : *list)
    if (const auto rank = f::integer(e, kEndRank))
      ends.push_back({*rank, f::text(e, kRole).value_or(""), field_or_null(e, kEndDevice),
                      field_or_null(e, kCongestion)});
  return ends;
}

void IncastFigures::write(nlohmann::json &metrics) const {
  if (flows) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto &flow : *flows)
      list.push_back(
          {{kEndRank, flow.rank}, {kFlowGbitsPerS, flow.gbits_per_s}, {kEndDevice, flow.device}});
    metrics[kFlows] = std::move(list);
  }
  if (aggregate_gbits_per_s)
    metrics[kAggregateGbitsPerS] = *aggregate_gbits_per_s;
  if (jain_fairness_index)
    metrics[kJainFairnessIndex] = *jain_fairness_index;
  if (line_rate_gbits_per_s)
    metrics[kLineRateGbitsPerS] = *line_rate_gbits_per_s;
  if (aggregate_over_line_rate)
    metrics[kAggregateOverLineRate] = *aggregate_over_line_rate;
}

std::optional<IncastFigures> IncastFigures::read(const nlohmann::json &metrics) {
  const auto aggregate = f::number(metrics, kAggregateGbitsPerS);
  const auto *list = f::field(metrics, kFlows);
  const bool has_flows = list && list->is_array();
  if (!aggregate && !has_flows)
    return std::nullopt;
  IncastFigures i;
  i.aggregate_gbits_per_s = aggregate;
  i.jain_fairness_index = f::number(metrics, kJainFairnessIndex);
  if (has_flows) {
    i.flows.emplace();
    for (const auto &flow : *list) {
      const auto rank = f::integer(flow, kEndRank);
      const auto gbits = f::number(flow, kFlowGbitsPerS);
      if (rank && gbits)
        i.flows->push_back({*rank, *gbits, field_or_null(flow, kEndDevice)});
    }
  }
  i.line_rate_gbits_per_s = f::number(metrics, kLineRateGbitsPerS);
  i.aggregate_over_line_rate = f::number(metrics, kAggregateOverLineRate);
  return i;
}

} // namespace railgauge::rdma::record
