#include "harness/inventory/inventory.h"

#include <unistd.h>

#include <fmt/format.h>

#include "harness/error.h"
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
    packages.push_back(
        {{"os_index", package->os_index},
         {"cpus", bitmap_list(package->cpuset)},
         {"cpu_model", info_or_null(package, "CPUModel")},
         {"numa_nodes", std::move(numa)},
         {"cores", hwloc_get_nbobjs_inside_cpuset_by_type(topo, package->cpuset, HWLOC_OBJ_CORE)}});
  }
  nlohmann::json numa_nodes = nlohmann::json::array();
  for (const NumaNode &node : topology.numa_nodes())
    numa_nodes.push_back({{"os_index", node.os_index},
                          {"memory_bytes", node.memory_bytes},
                          {"cpus", node.cpuset},
                          {"cores", node.core_pus.size()}});
  nlohmann::json caches = nlohmann::json::array();
  for (const CacheLevel &level : topology.caches())
    caches.push_back({{"level", level.depth},
                      {"type", cache_type_name(level.type)},
                      {"size_bytes", level.size_bytes},
                      {"count", level.count}});
  return {{"packages", std::move(packages)},
          {"numa_nodes", std::move(numa_nodes)},
          {"cores", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE)},
          {"pus", hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU)},
          {"caches", std::move(caches)}};
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
    devices.push_back({{"name", obj->name ? obj->name : ""},
                       {"type", osdev_type_name(obj->attr->osdev.type)},
                       {"pci_bus_id", bus_id},
                       {"numa_node", numa}});
  }
  return devices;
}

nlohmann::json not_queried(std::string reason, const char *list_key) {
  return {{"available", false}, {"reason", std::move(reason)}, {list_key, nlohmann::json::array()}};
}

nlohmann::json summary(const PciTree &tree, const nlohmann::json &machine) {
  return {{"packages", machine["packages"].size()},
          {"numa_nodes", machine["numa_nodes"].size()},
          {"gpus", tree.of_kind(PciKind::gpu).size()},
          {"nics", tree.of_kind(PciKind::nic).size()},
          {"nvswitches", tree.of_kind(PciKind::nvswitch).size()}};
}

// Adds the NVML identity (index, UUID, name) to the rail map's GPUs, joined by bus id.
void join_nvml(nlohmann::json &rail_map, const nlohmann::json &nvml) {
  for (auto &gpu : rail_map["gpus"]) {
    for (const auto &n : nvml["gpus"]) {
      if (n.contains("pci_bus_id") && n["pci_bus_id"] == gpu["bus_id"]) {
        gpu["nvml_index"] = n["index"];
        gpu["uuid"] = n["uuid"];
        gpu["model"] = n["name"];
      }
    }
  }
}

} // namespace

nlohmann::json collect_inventory(const InventoryOptions &options) {
  nlohmann::json inventory = {{"schema", kInventorySchema}};
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
      inventory["host"] = info_or_null(hwloc_get_root_obj(topology.get()), "HostName");
      inventory["source"] = {{"kind", "hwloc_xml"}, {"file", path}};
    } else {
      tree = pci_tree_from_nccl_xml(text, path);
      machine = {{"packages", nlohmann::json::array()},
                 {"numa_nodes", nccl_numa_nodes(text, path)},
                 {"cores", nullptr},
                 {"pus", nullptr},
                 {"caches", nlohmann::json::array()}};
      inventory["host"] = nullptr;
      inventory["source"] = {{"kind", "nccl_xml"}, {"file", path}};
    }
  } else {
    const Topology topology = Topology::load_this_machine();
    tree = pci_tree_from_hwloc(topology);
    machine = hwloc_machine(topology);
    os_devices = hwloc_os_devices(topology, tree);
    inventory["host"] = this_node_name();
    inventory["source"] = {{"kind", "this_machine"}, {"file", nullptr}};
  }

  inventory["summary"] = summary(tree, machine);
  // A file that yields no GPU (one that leaves them out, as AWS's static p5.48xlarge file does,
  // or one whose devices carry neither class nor <gpu>) would give an empty rail map silently.
  inventory["warnings"] = nlohmann::json::array();
  if (!this_machine && tree.of_kind(PciKind::gpu).empty())
    inventory["warnings"].push_back(fmt::format(
        "{} yields no GPU: no PCI device of class 0x0302 (3D controller) or NVIDIA 0x0300, and "
        "no <gpu> element, so there is no rail map; give the file NCCL dumps on the node "
        "(NCCL_TOPO_DUMP_FILE) or its hwloc XML (lstopo --of xml)",
        *options.topology_file));
  if (!this_machine && tree.of_kind(PciKind::nic).empty())
    inventory["warnings"].push_back(fmt::format(
        "{} yields no NIC: no PCI device of class 0x0200 or 0x0207 and no <nic> element",
        *options.topology_file));
  inventory["machine"] = std::move(machine);
  inventory["pci"] = to_json(tree);
  inventory["os_devices"] = std::move(os_devices);
  inventory["rail_map"] = to_json(build_rail_map(tree), tree);

  const std::string file_reason = "topology read from a file: NVML, verbs and sysfs describe "
                                  "only the machine railgauge runs on";
  if (!this_machine)
    inventory["nvml"] = not_queried(file_reason, "gpus");
  else if (!options.query_nvml)
    inventory["nvml"] = not_queried("not requested", "gpus");
  else
    inventory["nvml"] = query_nvml(options.nvml_library);
  join_nvml(inventory["rail_map"], inventory["nvml"]);

  if (!this_machine)
    inventory["verbs"] = not_queried(file_reason, "devices");
  else if (!options.query_verbs)
    inventory["verbs"] = not_queried("not requested", "devices");
  else
    inventory["verbs"] = query_verbs(options.sysfs_root);

  if (!this_machine) {
    inventory["port_counters"] = not_queried(file_reason, "ports");
  } else {
    nlohmann::json ports = nlohmann::json::array();
    for (const PortCounters &port : read_all_port_counters(options.sysfs_root))
      ports.push_back(to_json(port));
    inventory["port_counters"] = {
        {"available", true}, {"reason", nullptr}, {"ports", std::move(ports)}};
  }
  return inventory;
}

} // namespace railgauge
