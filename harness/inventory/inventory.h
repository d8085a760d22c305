#pragma once
// The inventory: what this machine (or a topology file) is made of, as one JSON document that
// `railgauge inventory` prints and every run's manifest embeds. Schema:
// results/schema/inventory.schema.json ("railgauge.inventory/1"); docs/inventory.md explains
// each section.
//
//   machine       packages, NUMA nodes, cores, PUs, caches (hwloc)
//   pci           every PCI device with kind, NUMA node, upstream bridges, link, OS names
//   os_devices    hwloc's OS devices (cuda0, nvml0, mlx5_0, ib0, ...)
//   rail_map      GPU x NIC PCIe distances (PIX/PXB/PHB/NODE/SYS) and each GPU's rail NIC
//   nvml          per GPU: clocks, power, ECC, row remapping, throttle reasons, NVLink (dlopen)
//   verbs         per NIC: ports, state, rate, link layer, MTU, GID table (libibverbs)
//   port_counters per NIC port: sysfs counters/ and hw_counters/
//
// Usage (what the CLI does):
//   railgauge::InventoryOptions options;
//   options.topology_file = "ndv5-topo.xml";          // or leave empty for this machine
//   const nlohmann::json inventory = railgauge::collect_inventory(options);
//   std::cout << railgauge::render_inventory_text(inventory);
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace railgauge {

inline constexpr const char *kInventorySchema = "railgauge.inventory/1";

struct InventoryOptions {
  std::string sysfs_root = "/sys";                 // tests point this at a fake tree
  std::string machine_id_file = "/etc/machine-id"; // systemd's; tests point it at their own
  // An hwloc XML or an NCCL topology XML, told apart by the root element (<topology> vs
  // <system>). A file describes another machine: NVML, verbs and sysfs are then not queried.
  std::optional<std::string> topology_file;
  bool query_nvml = true;
  bool query_verbs = true;
  std::string nvml_library = "libnvidia-ml.so.1"; // tests point it at a missing one
};

// Throws InputError for an unreadable or malformed topology file (naming it), BackendError when
// hwloc cannot load this machine. NVML or verbs being absent is not an error: their sections
// say available:false with the reason.
nlohmann::json collect_inventory(const InventoryOptions &options);

// The console view: machine and NUMA summary, caches, the GPU x NIC distance matrix and the
// rail table, NVML and verbs summaries - each table with a caption saying what its rows,
// columns and units are.
std::string render_inventory_text(const nlohmann::json &inventory);

} // namespace railgauge
