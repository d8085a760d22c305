#pragma once
// One PCI tree model for the inventory, built either from hwloc (this machine or an hwloc XML
// file) or from an NCCL topology XML (the file clusters publish for NCCL_TOPO_FILE and NCCL
// writes with NCCL_TOPO_DUMP_FILE). The rail map (rail_map.h) is pure logic on this model, so
// it behaves the same whichever source the tree came from.
//
// The two sources differ in one way that matters for distances: hwloc keeps every PCIe bridge
// (host bridge, root port, switch upstream port, switch downstream ports), while NCCL already
// collapses a switch into one <pci> element (it skips the downstream port and the root port
// when it walks sysfs). `switches_collapsed` says which form a tree is in; rail_map.cpp
// collapses hwloc trees the same way NCCL does before it counts switches.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/topology.h"

namespace railgauge {

enum class PciKind { host_bridge, bridge, gpu, nic, nvswitch, other };
std::string_view to_string(PciKind kind);

// GPUs: NVIDIA (0x10de) display controllers, class 0x0300 VGA or 0x0302 3D; with no vendor
// (0: a topology file that leaves it out, as Azure's NDv5 NCCL file does), a 3D controller,
// which is how NCCL itself classifies them. A VGA controller needs the vendor: a BMC's is none.
// NICs: class 0x0200 Ethernet or 0x0207 InfiniBand. NVSwitch: NVIDIA class 0x0680.
// class_id is the 16-bit class and subclass (0x0302), without the programming interface.
PciKind classify_pci(std::uint16_t class_id, std::uint16_t vendor_id, bool is_bridge);

// A PCIe link's usable bandwidth per direction in GB/s (1e9 bytes): transfer rate × lanes ×
// line-code efficiency (8b/10b up to 5 GT/s, 128b/130b at 8 to 32 GT/s, FLIT 242/256 at 64)
// / 8. Gen5 x16: 63.0. Nullopt for a rate or width that is not positive.
std::optional<double> pcie_link_gbytes_per_s(double gtransfers_per_s, int width);

struct PciDevice {
  // "0000:18:00.0" (lower-case hex). A host bridge has none of its own: it is written as its
  // domain and bus range, "0000:[15-25]". An NCCL <nic> outside any <pci> has an empty bus id.
  std::string bus_id;
  std::uint16_t class_id = 0;
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  PciKind kind = PciKind::other;
  int parent = -1;    // index into PciTree::devices; -1 = attached to the CPU / root complex
  int numa_node = -1; // -1 = unknown
  // hwloc reports one number per link, GB/s in one direction after encoding; NCCL reports the
  // generation's transfer rate and the lane count. Each source fills what it has.
  std::optional<double> link_gbytes_per_s;
  std::optional<double> link_gtransfers_per_s;
  std::optional<int> link_width;
  std::vector<std::string> os_names;                    // cuda0, nvml0, mlx5_0, ibp25s0, ...
  nlohmann::json attributes = nlohmann::json::object(); // source specific (NCCL gpu/net tags)
};

struct PciTree {
  std::string source; // "hwloc" or "nccl"
  bool switches_collapsed = false;
  std::vector<PciDevice> devices;

  // Indices of the devices of one kind, ordered by bus id (the order NCCL and CUDA's
  // PCI_BUS_ID ordering use), so that "GPU i" and "NIC i" are stable.
  std::vector<int> of_kind(PciKind kind) const;
  // Index of the device with this bus id (case-insensitive), or -1.
  int find(std::string_view bus_id) const;
};

// From hwloc's PCI and OS device objects (the topology must keep I/O objects, as
// Topology::load_this_machine and load_xml do).
PciTree pci_tree_from_hwloc(const Topology &topology);

// An NCCL topology XML document. `where` names it in errors (a file path).
// Throws InputError when the document is not a <system> topology.
PciTree pci_tree_from_nccl_xml(const std::string &xml_text, const std::string &where);

// The NUMA nodes an NCCL topology declares (<cpu numaid affinity arch vendor familyid modelid>),
// as inventory "machine.numa_nodes" entries.
nlohmann::json nccl_numa_nodes(const std::string &xml_text, const std::string &where);

enum class TopologyFileKind { hwloc_xml, nccl_xml };
// By the root element: <topology> is hwloc, <system> is NCCL. Throws InputError naming the file
// when it cannot be read, is not well-formed XML, or has another root element.
TopologyFileKind detect_topology_file(const std::string &path, std::string *text_out = nullptr);

nlohmann::json to_json(const PciDevice &device, const PciTree &tree);
nlohmann::json to_json(const PciTree &tree);

// "0000:18:00.0" from hwloc's or NVML's spellings ("00000000:18:00.0", upper case).
std::string normalize_bus_id(std::string_view bus_id);

} // namespace railgauge
