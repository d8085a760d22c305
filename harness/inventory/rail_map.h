#pragma once
// The GPU<->NIC rail map: for each GPU, every NIC ranked by PCIe distance, and the GPU's rail
// partner (the NIC its inter-node traffic should use, as NCCL picks it).
//
// Distances use the vocabulary of `nvidia-smi topo -m`, closest first:
//   PIX  both under the same PCIe switch (at most one switch crossed)
//   PXB  several switches crossed, without crossing a host bridge
//   PHB  through the same host bridge (root complex)
//   NODE different host bridges on the same NUMA node
//   SYS  across NUMA nodes (the SMP interconnect: UPI, Infinity Fabric)
// Caveat: a tree gives no host bridge identity for NCCL files (NCCL stops at the CPU), so there
// two devices under different top-level <pci> elements of one <cpu> are NODE, never PHB.
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/inventory/pci_tree.h"

namespace railgauge {

enum class PciPath { PIX, PXB, PHB, NODE, SYS };
std::string_view to_string(PciPath path);

// Distance between two devices of the tree (indices into tree.devices).
PciPath pci_path(const PciTree &tree, int a, int b);

struct Rail {
  int gpu = -1;           // index into tree.devices
  std::optional<int> nic; // none when the machine has no NIC
  PciPath path = PciPath::SYS;
};

struct RailMap {
  std::vector<int> gpus; // tree indices, by bus id
  std::vector<int> nics; // tree indices, by bus id
  // paths[g][n]: GPU gpus[g] to NIC nics[n].
  std::vector<std::vector<PciPath>> paths;
  std::vector<Rail> rails; // one per GPU, in gpus order
};

// Partners are chosen GPU by GPU in bus-id order: the closest NIC, then the NIC given to the
// fewest GPUs so far, then the lower bus id. With as many NICs as GPUs, one per switch, this
// pairs GPU i with NIC i one-to-one; with fewer NICs, GPUs share the nearest ones evenly.
// (Greedy, not an optimal assignment; real nodes are regular enough for it to agree with NCCL.)
RailMap build_rail_map(const PciTree &tree);

// {"gpus": [...], "nics": [...], "paths": [[...]], "rails": [...]}; see inventory.schema.json.
nlohmann::json to_json(const RailMap &map, const PciTree &tree);

} // namespace railgauge
