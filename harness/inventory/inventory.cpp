#include "harness/inventory/inventory.h"

#include <unistd.h>

#include <fstream>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/nvml_query.h"
#include "harness/inventory/pci_tree.h"
#include "harness/inventory/port_counters.h"
#include "harness/inventory/rail_map.h"
#include "harness/inventory/verbs_query.h"
#include "harness/node_name.h"
#include "harness/topology.h"

namespace railgauge {
namespace {

nlohmann::json info_or_null(hwloc_obj_t obj, const char *name) {
  const char *value = hwloc_obj_get_info_by_name(obj, name);
  return value ? nlohmann::json(value) : nlohmann::json(nullptr);
}

std::string cache_type_name(char type) {
  return type == 'd' ? "data" : type == 'i' ? "instruction" : "unified";
}

nlohmann::json hwloc_machine(const Topology &topology) {
  hwloc_topology_t topo = topology.get();
  nlohmann::json packages = nlohmann::json::array();
  const int npackages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
  for (int i = 0; i < npackages; ++i) {
    hwloc_obj_t package = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i));
    nlohmann::json numa = nlohmann::json::array();
    for (int n = hwloc_bitmap_first(package->nodeset); n >= 0;
         n = hwloc_bitmap_next(package->nodeset, n))
      numa.push_back(n);
    packages.push_back({{inventory_field::kOsIndex, package->os_index},
                        {inventory_field::kCpus, bitmap_list(package->cpuset)},
                        {inventory_field::kCpuModel, info_or_null(package, "CPUModel")},
                        {inventory_field::kNumaNodes, std::move(numa)},
                        {inventory_field::kCores, hwloc_get_nbobjs_inside_cpuset_by_type(
                                                      topo, package->cpuset, HWLOC_OBJ_CORE)}});
  }
  nlohmann::json numa_nodes = nlohmann::json::array();
  for (const NumaNode &node : topology.numa_nodes())
    numa_nodes.push_back({{inventory_field::kOsIndex, node.os_index},
                          {inventory_field::kMemoryBytes, node.memory_bytes},
                          {inventory_field::kCpus, node.cpuset},
                          {inventory_field::kCores, node.core_pus.size()}});
  nlohmann::json caches = nlohmann::json::array();
  for (const CacheLevel &level : topology.caches())
    caches.push_back({{inventory_field::kLevel, level.depth},
                      {inventory_field::kType, cache_type_name(level.type)},
                      {inventory_field::kSizeBytes, level.size_bytes},
                      {inventory_field::kCount, level.count}});
  return {{inventory_field::kPackages, std::move(packages)},
          {inventory_field::kNumaNodes, std::move(numa_nodes)},
          {inventory_field::kCores, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)},
          {inventory_field::kPus, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)},
          {inventory_field::kCaches, std::move(caches)}};
}

std::string_view osdev_type_name(hwloc_obj_osdev_type_t type) {
  switch (type) {
  case HWLOC_OBJ_OSDEV_BLOCK:
    return "block";
  case HWLOC_OBJ_OSDEV_GPU:
    return "gpu";
  case HWLOC_OBJ_OSDEV_NETWORK:
    return "network";
  case HWLOC_OBJ_OSDEV_OPENFABRICS:
    return "openfabrics";
  case HWLOC_OBJ_OSDEV_DMA:
    return "dma";
  case HWLOC_OBJ_OSDEV_COPROC:
    return "coproc";
  }
  return "other";
}

nlohmann::json hwloc_os_devices(const Topology &topology, const PciTree &tree) {
  nlohmann::json devices = nlohmann::json::array();
  hwloc_topology_t topo = topology.get();
  for (hwloc_obj_t obj = hwloc_get_next_osdev(topo, nullptr); obj;
       obj = hwloc_get_next_osdev(topo, obj)) {
    nlohmann::json bus_id = nullptr, numa = nullptr;
    for (const PciDevice &device : tree.devices) {
      if (obj->name && std::find(device.os_names.begin(), device.os_names.end(), obj->name) !=
                           device.os_names.end()) {
        bus_id = device.bus_id;
        if (device.numa_node >= 0)
          numa = device.numa_node;
        break;
      }
    }
    devices.push_back({{inventory_field::kName, obj->name ? obj->name : ""},
                       {inventory_field::kType, osdev_type_name(obj->attr->osdev.type)},
                       {inventory_field::kPciBusId, bus_id},
                       {inventory_field::kNumaNode, numa}});
  }
  return devices;
}

nlohmann::json not_queried(std::string reason, const char *list_key) {
  return {{inventory_field::kAvailable, false},
          {inventory_field::kReason, std::move(reason)},
          {list_key, nlohmann::json::array()}};
}

nlohmann::json summary(const PciTree &tree, const nlohmann::json &machine) {
  return {{inventory_field::kPackages, machine[inventory_field::kPackages].size()},
          {inventory_field::kNumaNodes, machine[inventory_field::kNumaNodes].size()},
          {inventory_field::kGpus, tree.of_kind(PciKind::gpu).size()},
          {inventory_field::kNics, tree.of_kind(PciKind::nic).size()},
          {inventory_field::kNvswitches, tree.of_kind(PciKind::nvswitch).size()}};
}

// Adds the NVML identity (index, UUID, name) to the rail map's GPUs, joined by bus id.
void join_nvml(nlohmann::json &rail_map, const nlohmann::json &nvml) {
  for (auto &gpu : rail_map[inventory_field::kGpus]) {
    for (const auto &n : nvml[inventory_field::kGpus]) {
      if (n.contains(inventory_field::kPciBusId) &&
          n[inventory_field::kPciBusId] == gpu[inventory_field::kBusId]) {
        gpu[inventory_field::kNvmlIndex] = n[inventory_field::kIndex];
        gpu[inventory_field::kUuid] = n[inventory_field::kUuid];
        gpu[inventory_field::kModel] = n[inventory_field::kName];
      }
    }
  }
}

// The machine's id (systemd's /etc/machine-id, 32 hex digits), null where it is absent or not
// one: two machines that report one host name (VMs of one image all named "vm") are told apart
// by it, where a GPU's UUID would change with an RMA.
nlohmann::json machine_id(const std::string &file) {
  std::ifstream in(file);
  std::string id;
  if (!(in >> id) || id.size() != 32 ||
      id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return nullptr;
  return id;
}

} // namespace

nlohmann::json collect_inventory(const InventoryOptions &options) {
  nlohmann::json inventory = {{inventory_field::kSchema, kInventorySchema}};
  PciTree tree;
  nlohmann::json machine, os_devices = nlohmann::json::array();
  const bool this_machine = !options.topology_file.has_value();

  if (options.topology_file) {
    const std::string &path = *options.topology_file;
    std::string text;
    if (detect_topology_file(path, &text) == TopologyFileKind::hwloc_xml) {
      const Topology topology = Topology::load_xml(path);
      tree = pci_tree_from_hwloc(topology);
      machine = hwloc_machine(topology);
      os_devices = hwloc_os_devices(topology, tree);
      inventory[inventory_field::kHost] =
          info_or_null(hwloc_get_root_obj(topology.get()), "HostName");
      inventory[inventory_field::kSource] = {{inventory_field::kKind, "hwloc_xml"},
                                             {inventory_field::kFile, path}};
    } else {
      tree = pci_tree_from_nccl_xml(text, path);
      machine = {{inventory_field::kPackages, nlohmann::json::array()},
                 {inventory_field::kNumaNodes, nccl_numa_nodes(text, path)},
                 {inventory_field::kCores, nullptr},
                 {inventory_field::kPus, nullptr},
                 {inventory_field::kCaches, nlohmann::json::array()}};
      inventory[inventory_field::kHost] = nullptr;
      inventory[inventory_field::kSource] = {{inventory_field::kKind, "nccl_xml"},
                                             {inventory_field::kFile, path}};
    }
  } else {
    const Topology topology = Topology::load_this_machine();
    tree = pci_tree_from_hwloc(topology);
    machine = hwloc_machine(topology);
    os_devices = hwloc_os_devices(topology, tree);
    inventory[inventory_field::kHost] = this_node_name();
    inventory[inventory_field::kMachineId] = machine_id(options.machine_id_file);
    inventory[inventory_field::kSource] = {{inventory_field::kKind, "this_machine"},
                                           {inventory_field::kFile, nullptr}};
  }

  inventory[inventory_field::kSummary] = summary(tree, machine);
  // A file that yields no GPU (one that leaves them out, as AWS's static p5.48xlarge file does,
  // or one whose devices carry neither class nor <gpu>) would give an empty rail map silently.
  inventory[inventory_field::kWarnings] = nlohmann::json::array();
  if (!this_machine && tree.of_kind(PciKind::gpu).empty())
    inventory[inventory_field::kWarnings].push_back(fmt::format(
        "{} yields no GPU: no PCI device of class 0x0302 (3D controller) or NVIDIA 0x0300, and "
        "no <gpu> element, so there is no rail map; give the file NCCL dumps on the node "
        "(NCCL_TOPO_DUMP_FILE) or its hwloc XML (lstopo --of xml)",
        *options.topology_file));
  if (!this_machine && tree.of_kind(PciKind::nic).empty())
    inventory[inventory_field::kWarnings].push_back(fmt::format(
        "{} yields no NIC: no PCI device of class 0x0200 or 0x0207 and no <nic> element",
        *options.topology_file));
  inventory[inventory_field::kMachine] = std::move(machine);
  inventory[inventory_field::kPci] = to_json(tree);
  inventory[inventory_field::kOsDevices] = std::move(os_devices);
  inventory[inventory_field::kRailMap] = to_json(build_rail_map(tree), tree);

  const std::string file_reason = "topology read from a file: NVML, verbs and sysfs describe "
                                  "only the machine railgauge runs on";
  if (!this_machine)
    inventory[inventory_field::kNvml] = not_queried(file_reason, inventory_field::kGpus);
  else if (!options.query_nvml)
    inventory[inventory_field::kNvml] = not_queried("not requested", inventory_field::kGpus);
  else
    inventory[inventory_field::kNvml] = query_nvml(options.nvml_library);
  join_nvml(inventory[inventory_field::kRailMap], inventory[inventory_field::kNvml]);

  if (!this_machine)
    inventory[inventory_field::kVerbs] = not_queried(file_reason, inventory_field::kDevices);
  else if (!options.query_verbs)
    inventory[inventory_field::kVerbs] = not_queried("not requested", inventory_field::kDevices);
  else
    inventory[inventory_field::kVerbs] = query_verbs(options.sysfs_root);

  if (!this_machine) {
    inventory[inventory_field::kPortCounters] = not_queried(file_reason, inventory_field::kPorts);
  } else {
    nlohmann::json ports = nlohmann::json::array();
    for (const PortCounters &port : read_all_port_counters(options.sysfs_root))
      ports.push_back(to_json(port));
    inventory[inventory_field::kPortCounters] = {{inventory_field::kAvailable, true},
                                                 {inventory_field::kReason, nullptr},
                                                 {inventory_field::kPorts, std::move(ports)}};
  }
  return inventory;
}

} // namespace railgauge
