#include "offload/placement.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "harness/inventory/pci_tree.h"

namespace railgauge::offload {
namespace {

// The package (socket) a NUMA node belongs to, or -1.
int package_of(const Topology &topology, unsigned numa_os_index) {
  hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(topology.get(), numa_os_index);
  if (!node)
    return -1;
  hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology.get(), HWLOC_OBJ_PACKAGE, node);
  return package ? static_cast<int>(package->logical_index) : -1;
}

} // namespace

std::optional<Placement> parse_placement(std::string_view text) {
  if (text == "near")
    return Placement::near;
  if (text == "far")
    return Placement::far;
  return std::nullopt;
}

std::string_view to_string(Placement placement) {
  return placement == Placement::near ? "near" : "far";
}

std::variant<HostPlacement, std::string> choose_host_placement(const Topology &topology,
                                                               std::string_view gpu_bus_id,
                                                               Placement placement,
                                                               unsigned nth_thread) {
  std::vector<NumaNode> nodes;
  for (auto &node : topology.numa_nodes())
    if (!node.core_pus.empty()) // the point's thread runs next to its memory: cores needed
      nodes.push_back(std::move(node));
  if (nodes.empty())
    return std::string("hwloc reports no NUMA node with CPU cores");

  const PciTree tree = pci_tree_from_hwloc(topology);
  const int index = tree.find(gpu_bus_id);
  if (index < 0)
    return fmt::format("the GPU at PCI {} is not in the hwloc topology, so its NUMA node is "
                       "unknown",
                       gpu_bus_id);
  HostPlacement chosen;
  chosen.gpu_numa_node = tree.devices[static_cast<std::size_t>(index)].numa_node;

  const NumaNode *near = nullptr;
  for (const auto &node : nodes)
    if (chosen.gpu_numa_node >= 0 && node.os_index == static_cast<unsigned>(chosen.gpu_numa_node))
      near = &node;
  std::string near_how = "the GPU's local NUMA node";
  if (!near && chosen.gpu_numa_node >= 0)
    return fmt::format("the GPU at PCI {} is local to NUMA node {}, which has no CPU cores",
                       gpu_bus_id, chosen.gpu_numa_node);
  if (!near && nodes.size() == 1) {
    // A single-node machine (or VM) whose firmware gives PCI devices no locality: there is only
    // one place the memory can be, and it is as near as anything gets.
    near = &nodes.front();
    near_how = "the only NUMA node with CPU cores (hwloc gives the GPU no locality)";
  }
  if (!near)
    return fmt::format("hwloc gives the GPU at PCI {} no single local NUMA node among {} nodes, "
                       "so near and far cannot be told apart",
                       gpu_bus_id, nodes.size());

  const NumaNode *pick = near;
  chosen.how = near_how;
  if (placement == Placement::far) {
    // Prefer a node on another package: its traffic crosses the inter-socket link, the case a
    // mis-bound job hits. Among equals, the lowest OS index, so the choice is stable.
    const int near_package = package_of(topology, near->os_index);
    pick = nullptr;
    for (const auto &node : nodes) {
      if (node.os_index == near->os_index)
        continue;
      const bool other_package = package_of(topology, node.os_index) != near_package;
      if (!pick || (other_package && package_of(topology, pick->os_index) == near_package))
        pick = &node;
    }
    if (!pick)
      return fmt::format("only one NUMA node with CPU cores (node {}): there is no far node",
                         near->os_index);
    chosen.how =
        package_of(topology, pick->os_index) != near_package
            ? fmt::format("a NUMA node on another package than the GPU's node {}", near->os_index)
            : fmt::format("another NUMA node on the GPU's package (node {})", near->os_index);
  }
  chosen.numa_node = pick->os_index;
  chosen.pu = pick->core_pus[nth_thread % pick->core_pus.size()];
  return chosen;
}

record::HostPlacementFields placement_fields(const HostPlacement &p) {
  return {p.numa_node, p.gpu_numa_node, p.pu, p.how};
}

record::PlacementCheckFields
placement_check_fields(unsigned requested,
                       const std::vector<std::variant<std::vector<unsigned>, std::string>> &found) {
  std::set<unsigned> nodes;
  for (const auto &f : found) {
    if (const auto *why = std::get_if<std::string>(&f))
      return {std::nullopt, std::nullopt, *why};
    const auto &list = std::get<std::vector<unsigned>>(f);
    nodes.insert(list.begin(), list.end());
  }
  if (nodes.empty())
    return {std::nullopt, std::nullopt, "no host buffer"};
  return {std::vector<unsigned>(nodes.begin(), nodes.end()),
          nodes.size() == 1 && *nodes.begin() == requested, std::nullopt};
}

nlohmann::json
placement_check(unsigned requested,
                const std::vector<std::variant<std::vector<unsigned>, std::string>> &found) {
  nlohmann::json metrics = nlohmann::json::object();
  placement_check_fields(requested, found).write(metrics);
  return metrics;
}

} // namespace railgauge::offload
