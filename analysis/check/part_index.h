#pragma once
// Which part (node, GPU, NIC) a record is about, and the label a part is printed with. A GPU is
// named by its PCI bus id: the record's `device.pci`, or its `device.gpu` UUID mapped through the
// host's inventory; it is labelled gpu<N> by its NVML index (or an import's CUDA ordinal).
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "harness/record.h"

namespace railgauge::check {

// A hash of a part: finds it without comparing host names in natural order.
struct PartKeyHash {
  std::size_t operator()(const PartKey &k) const {
    return std::hash<std::string>()(k.host) * 31 + std::hash<std::string>()(k.id) * 3 +
           static_cast<std::size_t>(k.kind);
  }
};

class PartIndex {
public:
  // run.json's inventory of an own run of `host`: its GPUs' UUIDs, bus ids and NVML indices.
  void add_inventory(const std::string &host, const nlohmann::json &inventory);
  // An import has no inventory, but its source may list the GPUs' bus ids by CUDA ordinal
  // (nvbandwidth's device list): its GPUs are then labelled gpu<ordinal> as on an own run.
  void add_imported_gpus(const std::string &host, const nlohmann::json &imported);
  // A GPU's UUID and its slot's bus id, as the fleet history's parts table holds them (a
  // database keeps no inventory).
  void add_gpu(const std::string &host, const std::string &uuid, const std::string &bus_id);

  // Rules of category nic/fabric go to the NIC of a record that names both; `part:` in a rule
  // (rule may be null: the built-in record-status) overrides.
  PartKey part_of(const Record &r, const Rule *rule, const std::string &category) const;
  // The part a value at `path` of `r` is judged on: the GPU whose telemetry window holds it
  // (telemetry_gpu.h) where the record's part is the node and `rule` names no part of its own,
  // else `record_part`. The directories' check and the fleet history both ask here.
  PartKey part_of_value(const Record &r, const Rule &rule, const PartKey &record_part,
                        const std::string &path) const;
  // The part of the GPU of `host` that `pci` (a bus id) or else `uuid` names.
  PartKey gpu_part(const std::string &host, const std::string *pci, const std::string &uuid) const;
  std::string label_of(const PartKey &key) const;
  // The GPU parts (bus ids) that the run.json inventories of `host` list through NVML.
  const std::set<std::string> &inventory_gpus(const std::string &host) const;

private:
  struct Host {
    std::map<std::string, std::string> pci_by_uuid;
    std::map<std::string, int> index_by_pci;
    std::set<std::string> nvml_gpus;
  };
  std::map<std::string, Host> hosts_;
};

} // namespace railgauge::check
