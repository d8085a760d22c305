#include "records/one_rank_collective.h"

namespace railgauge::records {
namespace {

const nlohmann::json *number_in(const nlohmann::json &object, const char *name) {
  if (!object.is_object())
    return nullptr;
  const auto it = object.find(name);
  return it != object.end() && it->is_number() ? &*it : nullptr;
}

} // namespace

bool one_rank_collective(const nlohmann::json &metrics) {
  const auto *factor = number_in(metrics, "bus_factor");
  if (factor)
    return factor->get<double>() == 0;
  const auto *busbw = number_in(metrics, "busbw_gbytes_per_s");
  const auto *algbw = number_in(metrics, "algbw_gbytes_per_s");
  return busbw && algbw && busbw->get<double>() == 0 && algbw->get<double>() > 0;
}

bool moves_no_data(std::string_view key, const nlohmann::json &params) {
  if (!key.starts_with("collectives.") || !params.is_object() ||
      params.value("in_place", nlohmann::json()) != "in_place")
    return false;
  const auto *ranks = number_in(params, "group_size");
  if (!ranks)
    ranks = number_in(params, "world_size");
  return ranks && ranks->get<double>() == 1;
}

} // namespace railgauge::records
