#pragma once
// Named probes over a run's inventory (run.json "inventory", results/schema/
// inventory.schema.json): the health facts a rule can judge, each attributed to its part. A
// fixed list, so a rules file names a fact ("gpu.ecc_uncorrected_volatile") instead of a
// JSON path into a schema that may grow.
//
// GPU probes read nvml.gpus[] (part id: PCI bus id), NIC probes verbs.devices[].ports[] and
// port_counters.ports[] (part id: verbs device name), node probes the summary.
// Caveat: the inventory is taken when the run starts, so clock-event reasons are those of that
// moment, and an idle GPU may have lowered its PCIe generation to save power (width does not
// change); see docs/check.md.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/rules.h"

namespace railgauge::check {

struct ProbeValue {
  PartKind kind = PartKind::node;
  std::string id;       // bus id, NIC name, "" for the node
  std::string detail;   // "port 1", the inventory field read
  nlohmann::json value; // number, bool as 0/1, string or list of strings; null = not reported
};

struct ProbeResult {
  bool available = true;
  std::string reason; // why not, when unavailable (NVML absent, no verbs devices)
  std::vector<ProbeValue> values;
};

bool is_known_probe(const std::string &name);
std::string known_probes_text();
// Throws std::invalid_argument for an unknown probe (rules are validated when loaded).
ProbeResult run_probe(const std::string &name, const nlohmann::json &inventory);

// "00000000:19:00.0" or "0000:19:00.0" in any case -> "0000:19:00.0".
std::string normalize_bus_id(const std::string &bus_id);

} // namespace railgauge::check
