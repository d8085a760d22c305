#include "analysis/check/part_index.h"

#include <fmt/format.h>

#include "analysis/check/inventory_probes.h"
#include "analysis/check/json_path.h"
#include "analysis/check/telemetry_gpu.h"
#include "harness/inventory/inventory_fields.h"

namespace railgauge::check {

using json = nlohmann::json;

void PartIndex::add_imported_gpus(const std::string &host, const json &imported) {
  if (!imported.is_object() || !imported.contains("device_pci") ||
      !imported.at("device_pci").is_array())
    return;
  int ordinal = 0;
  for (const auto &bus : imported.at("device_pci")) {
    if (bus.is_string() && !bus.get<std::string>().empty())
      hosts_[host].index_by_pci.emplace(normalize_bus_id(bus.get<std::string>()), ordinal);
    ++ordinal;
  }
}

void PartIndex::add_gpu(const std::string &host, const std::string &uuid,
                        const std::string &bus_id) {
  if (!uuid.empty() && !bus_id.empty())
    hosts_[host].pci_by_uuid[uuid] = normalize_bus_id(bus_id);
}

void PartIndex::add_inventory(const std::string &host, const json &inv) {
  auto &idx = hosts_[host];
  const auto add = [&](const json &g, const char *bus_field, int index) {
    const std::string bus = text_field(g, bus_field);
    if (bus.empty())
      return;
    const auto pci = normalize_bus_id(bus);
    if (const auto uuid = text_field(g, inventory_field::kUuid); !uuid.empty())
      idx.pci_by_uuid[uuid] = pci;
    idx.index_by_pci.emplace(pci, index);
  };
  const auto gpus = [&](const char *section) -> const json & {
    static const json none = json::array();
    if (!inv.contains(section) || !inv.at(section).is_object())
      return none;
    const auto &s = inv.at(section);
    return s.contains(inventory_field::kGpus) && s.at(inventory_field::kGpus).is_array()
               ? s.at(inventory_field::kGpus)
               : none;
  };
  for (const auto &g : gpus(inventory_field::kNvml)) {
    add(g, inventory_field::kPciBusId, int_field(g, inventory_field::kIndex).value_or(0));
    if (const auto bus = text_field(g, inventory_field::kPciBusId); !bus.empty())
      idx.nvml_gpus.insert(normalize_bus_id(bus));
  }
  int i = 0;
  for (const auto &g : gpus(inventory_field::kRailMap)) {
    const auto nvml_index = int_field(g, inventory_field::kNvmlIndex);
    add(g, inventory_field::kBusId, nvml_index ? *nvml_index : i++);
  }
}

PartKey PartIndex::part_of(const Record &r, const Rule *rule, const std::string &category) const {
  const auto field = [&](const char *f) -> const std::string * {
    if (!r.device.is_object())
      return nullptr;
    const auto it = r.device.find(f);
    if (it == r.device.end() || !it->is_string() || it->get_ref<const std::string &>().empty())
      return nullptr;
    return &it->get_ref<const std::string &>();
  };
  const std::string *pci = field("pci"), *uuid = field("gpu"), *nic = field("nic");
  const bool gpu = pci || uuid;
  PartKind kind = PartKind::node;
  const bool network = category == "nic" || category == "fabric";
  if (rule && rule->part)
    kind = *rule->part;
  else if (nic && (network || !gpu))
    kind = PartKind::nic;
  else if (gpu)
    kind = PartKind::gpu;
  if (kind == PartKind::gpu && gpu)
    return gpu_part(r.host, pci, uuid ? *uuid : std::string());
  if (kind == PartKind::nic && nic)
    return {r.host, PartKind::nic, *nic};
  return {r.host, PartKind::node, ""};
}

PartKey PartIndex::gpu_part(const std::string &host, const std::string *pci,
                            const std::string &uuid) const {
  if (pci)
    return {host, PartKind::gpu, normalize_bus_id(*pci)};
  const auto h = hosts_.find(host);
  if (h != hosts_.end())
    if (const auto it = h->second.pci_by_uuid.find(uuid); it != h->second.pci_by_uuid.end())
      return {host, PartKind::gpu, it->second};
  return {host, PartKind::gpu, uuid};
}

PartKey PartIndex::part_of_value(const Record &r, const Rule &rule, const PartKey &record_part,
                                 const std::string &path) const {
  if (record_part.kind != PartKind::node || rule.part) // a rule's `part:` decides alone
    return record_part;
  const auto gpu = telemetry_gpu_of(r, path);
  if (gpu.pci_bus_id.empty() && gpu.uuid.empty())
    return record_part;
  return gpu_part(r.host, gpu.pci_bus_id.empty() ? nullptr : &gpu.pci_bus_id, gpu.uuid);
}

const std::set<std::string> &PartIndex::inventory_gpus(const std::string &host) const {
  static const std::set<std::string> none;
  const auto h = hosts_.find(host);
  return h == hosts_.end() ? none : h->second.nvml_gpus;
}

std::string PartIndex::label_of(const PartKey &key) const {
  if (key.kind == PartKind::node)
    return key.host;
  if (key.kind == PartKind::gpu) {
    const auto h = hosts_.find(key.host);
    if (h != hosts_.end()) {
      const auto it = h->second.index_by_pci.find(key.id);
      if (it != h->second.index_by_pci.end())
        return fmt::format("gpu{}", it->second);
    }
    // An import that printed no bus id names a GPU by its CUDA ordinal alone.
    if (!key.id.empty() && key.id.find_first_not_of("0123456789") == std::string::npos)
      return "gpu" + key.id;
    return "gpu " + key.id;
  }
  return key.id;
}

} // namespace railgauge::check
