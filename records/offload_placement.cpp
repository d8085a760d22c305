#include "records/offload_placement.h"

#include <cstdint>
#include <limits>

#include "harness/record_fields.h"
#include "records/offload_record.h"

namespace railgauge::offload::record {
namespace {

// A whole number that fits `T` (an OS index, or -1 for a GPU without a node), else nullopt.
template <typename T> std::optional<T> whole(const nlohmann::json &obj, const char *name) {
  const auto *f = record_fields::field(obj, name);
  if (!f || !f->is_number_integer())
    return std::nullopt;
  const auto value = f->get<std::int64_t>();
  if (value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max())
    return std::nullopt;
  return static_cast<T>(value);
}

} // namespace

void HostPlacementFields::write(nlohmann::json &params) const {
  params[kHostNumaNode] = host_numa_node;
  params[kGpuNumaNode] = gpu_numa_node;
  params[kCpuPu] = cpu_pu;
  params[kPlacementHow] = how;
}

std::optional<HostPlacementFields> HostPlacementFields::read(const nlohmann::json &params) {
  const auto node = whole<unsigned>(params, kHostNumaNode);
  if (!node)
    return std::nullopt;
  HostPlacementFields p;
  p.host_numa_node = *node;
  p.gpu_numa_node = whole<int>(params, kGpuNumaNode).value_or(-1);
  p.cpu_pu = whole<unsigned>(params, kCpuPu).value_or(0);
  p.how = record_fields::text(params, kPlacementHow).value_or("");
  return p;
}

void PlacementCheckFields::write(nlohmann::json &metrics) const {
  metrics[kHostNumaNodesMeasured] =
      host_numa_nodes_measured ? nlohmann::json(*host_numa_nodes_measured) : nullptr;
  metrics[kPlacementHonoured] = honoured ? nlohmann::json(*honoured) : nullptr;
  if (unknown_reason)
    metrics[kHostNumaNodeUnknownReason] = *unknown_reason;
}

std::optional<PlacementCheckFields> PlacementCheckFields::read(const nlohmann::json &metrics) {
  const auto *honoured = record_fields::field(metrics, kPlacementHonoured);
  if (!honoured)
    return std::nullopt;
  PlacementCheckFields c;
  if (honoured->is_boolean())
    c.honoured = honoured->get<bool>();
  if (const auto *nodes = record_fields::field(metrics, kHostNumaNodesMeasured);
      nodes && nodes->is_array()) {
    std::vector<unsigned> list;
    for (const auto &n : *nodes)
      if (n.is_number_unsigned())
        list.push_back(n.get<unsigned>());
    c.host_numa_nodes_measured = list;
  }
  c.unknown_reason = record_fields::text(metrics, kHostNumaNodeUnknownReason);
  return c;
}

} // namespace railgauge::offload::record
