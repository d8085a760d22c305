#include "analysis/history/recorded_parts.h"

#include "harness/device_fields.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/pci_tree.h"

namespace railgauge::history {
namespace {

using json = nlohmann::json;

std::string field_text(const json &j, const char *field) {
  if (!j.is_object())
    return "";
  const auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

} // namespace

std::string Part::identity() const {
  for (const auto *id : {&serial, &uuid, &guid})
    if (!id->empty())
      return *id;
  return "";
}

Inventory::Inventory(const json &manifest) {
  const json inv =
      manifest.is_object() ? manifest.value(inventory_field::kInventory, json()) : json();
  if (!inv.is_object())
    return;
  if (inv.contains(inventory_field::kNvml) && inv[inventory_field::kNvml].is_object() &&
      inv[inventory_field::kNvml].value(inventory_field::kGpus, json()).is_array())
    for (const auto &g : inv[inventory_field::kNvml][inventory_field::kGpus])
      if (const auto bus = field_text(g, inventory_field::kPciBusId); !bus.empty()) {
        gpu_by_pci[normalize_bus_id(bus)] = g;
        if (const auto uuid = field_text(g, inventory_field::kUuid); !uuid.empty())
          pci_by_uuid[uuid] = normalize_bus_id(bus);
      }
  if (inv.contains(inventory_field::kVerbs) && inv[inventory_field::kVerbs].is_object() &&
      inv[inventory_field::kVerbs].value(inventory_field::kDevices, json()).is_array())
    for (const auto &d : inv[inventory_field::kVerbs][inventory_field::kDevices])
      if (const auto name = field_text(d, inventory_field::kName); !name.empty())
        nic_by_name[name] = d;
}

std::optional<Part> Inventory::part_of(const Record &r) const {
  const auto pci = field_text(r.device, device::kPci), uuid = field_text(r.device, device::kGpu),
             nic = field_text(r.device, device::kNic);
  const bool network = r.key.rfind("rdma.", 0) == 0 || r.key.rfind("import.perftest", 0) == 0;
  if (!nic.empty() && (network || (pci.empty() && uuid.empty()))) {
    Part p;
    p.kind = "nic";
    p.slot = nic;
    if (const auto it = nic_by_name.find(nic); it != nic_by_name.end()) {
      p.guid = field_text(it->second, inventory_field::kNodeGuid);
      p.firmware = field_text(it->second, inventory_field::kFwVersion);
    }
    return p;
  }
  std::string slot = pci.empty() ? "" : normalize_bus_id(pci);
  if (slot.empty())
    if (const auto it = pci_by_uuid.find(uuid); it != pci_by_uuid.end())
      slot = it->second;
  if (slot.empty())
    return std::nullopt; // a GPU named by nothing that stays in its slot
  Part p;
  p.kind = "gpu";
  p.slot = slot;
  p.uuid = uuid;
  if (const auto it = gpu_by_pci.find(slot); it != gpu_by_pci.end()) {
    if (p.uuid.empty())
      p.uuid = field_text(it->second, inventory_field::kUuid);
    p.serial = field_text(it->second, inventory_field::kSerial);
  }
  return p;
}

} // namespace railgauge::history
