#pragma once
// The parts a run's records measured, as its run.json's inventory names them: the fleet history
// keeps each part's history by its slot and what identifies it (ingest.cpp).
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "harness/record.h"

namespace railgauge::history {

// A part as the run saw it: the slot it sits in and what identifies the part itself.
struct Part {
  std::string kind, slot, uuid, serial, guid, firmware;
  std::string identity() const;
};
using StoredPartKey = std::tuple<std::string, std::string, std::string>; // kind, slot, identity

// What the run's inventory says of its GPUs (by bus id) and NICs (by name).
struct Inventory {
  std::map<std::string, nlohmann::json> gpu_by_pci;
  std::map<std::string, std::string> pci_by_uuid;
  std::map<std::string, nlohmann::json> nic_by_name;

  explicit Inventory(const nlohmann::json &manifest);

  // The part a record measured: its NIC for an RDMA point, else its GPU, else its NIC.
  std::optional<Part> part_of(const Record &r) const;
};

} // namespace railgauge::history
