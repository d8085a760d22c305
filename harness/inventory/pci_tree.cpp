#include "harness/inventory/pci_tree.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "harness/error.h"
#include "harness/inventory/inventory_fields.h"

namespace railgauge {

std::string_view to_string(PciKind kind) {
  switch (kind) {
  case PciKind::host_bridge:
    return "host_bridge";
  case PciKind::bridge:
    return "bridge";
  case PciKind::gpu:
    return "gpu";
  case PciKind::nic:
    return "nic";
  case PciKind::nvswitch:
    return "nvswitch";
  case PciKind::other:
    return "other";
  }
  return "other";
}

PciKind classify_pci(std::uint16_t class_id, std::uint16_t vendor_id, bool is_bridge) {
  constexpr std::uint16_t kNvidia = 0x10de;
  if (is_bridge || class_id == 0x0604)
    return PciKind::bridge;
  if (vendor_id == kNvidia && (class_id == 0x0300 || class_id == 0x0302))
    return PciKind::gpu;
  if (vendor_id == 0 && class_id == 0x0302)
    return PciKind::gpu;
  if (class_id == 0x0200 || class_id == 0x0207)
    return PciKind::nic;
  if (vendor_id == kNvidia && class_id == 0x0680)
    return PciKind::nvswitch;
  return PciKind::other;
}

std::optional<double> pcie_link_gbytes_per_s(double gtransfers_per_s, int width) {
  if (!(gtransfers_per_s > 0) || width <= 0)
    return std::nullopt;
  const double efficiency = gtransfers_per_s <= 5.0    ? 8.0 / 10.0
                            : gtransfers_per_s <= 32.0 ? 128.0 / 130.0
                                                       : 242.0 / 256.0;
  return gtransfers_per_s * width * efficiency / 8.0;
}

std::string normalize_bus_id(std::string_view bus_id) {
  std::string text(bus_id);
  for (char &c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto colon = text.find(':');
  // Only "domain:bus:dev.fn" has two colons; leave anything else (host bridge ranges) alone.
  if (colon == std::string::npos || text.find(':', colon + 1) == std::string::npos ||
      text.find('[') != std::string::npos)
    return text;
  const unsigned long domain = std::strtoul(text.substr(0, colon).c_str(), nullptr, 16);
  return fmt::format("{:04x}{}", domain, text.substr(colon));
}

std::vector<int> PciTree::of_kind(PciKind kind) const {
  std::vector<int> indices;
  for (int i = 0; i < static_cast<int>(devices.size()); ++i)
    if (devices[static_cast<std::size_t>(i)].kind == kind)
      indices.push_back(i);
  std::stable_sort(indices.begin(), indices.end(), [this](int a, int b) {
    const auto &da = devices[static_cast<std::size_t>(a)];
    const auto &db = devices[static_cast<std::size_t>(b)];
    // Devices without a bus id (NCCL <nic> outside any <pci>) go last.
    if (da.bus_id.empty() != db.bus_id.empty())
      return db.bus_id.empty();
    return da.bus_id < db.bus_id;
  });
  return indices;
}

int PciTree::find(std::string_view bus_id) const {
  const std::string wanted = normalize_bus_id(bus_id);
  for (int i = 0; i < static_cast<int>(devices.size()); ++i)
    if (devices[static_cast<std::size_t>(i)].bus_id == wanted)
      return i;
  return -1;
}

// ---------------------------------------------------------------------------------------------
// hwloc

namespace {

using PciAttr = hwloc_obj_attr_u::hwloc_pcidev_attr_s;

int numa_of(hwloc_topology_t topo, hwloc_obj_t io_object) {
  hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topo, io_object);
  if (!ancestor || !ancestor->nodeset || hwloc_bitmap_weight(ancestor->nodeset) != 1)
    return -1; // attached above several NUMA nodes: no single local node
  return hwloc_bitmap_first(ancestor->nodeset);
}

std::string pci_bus_id(const PciAttr &pci) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:01x}", static_cast<unsigned>(pci.domain),
                     static_cast<unsigned>(pci.bus), static_cast<unsigned>(pci.dev),
                     static_cast<unsigned>(pci.func));
}

void add_hwloc_io(hwloc_topology_t topo, hwloc_obj_t obj, int parent, PciTree &tree) {
  int self = parent;
  if (obj->type == HWLOC_OBJ_BRIDGE || obj->type == HWLOC_OBJ_PCI_DEVICE) {
    PciDevice device;
    device.parent = parent;
    device.numa_node = numa_of(topo, obj);
    const PciAttr *pci = nullptr;
    if (obj->type == HWLOC_OBJ_BRIDGE) {
      const auto &bridge = obj->attr->bridge;
      if (bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST) {
        device.kind = PciKind::host_bridge;
        device.bus_id = fmt::format("{:04x}:[{:02x}-{:02x}]",
                                    static_cast<unsigned>(bridge.downstream.pci.domain),
                                    static_cast<unsigned>(bridge.downstream.pci.secondary_bus),
                                    static_cast<unsigned>(bridge.downstream.pci.subordinate_bus));
      } else {
        pci = &bridge.upstream.pci;
      }
    } else {
      pci = &obj->attr->pcidev;
    }
    if (pci) {
      device.bus_id = pci_bus_id(*pci);
      device.class_id = pci->class_id;
      device.vendor_id = pci->vendor_id;
      device.device_id = pci->device_id;
      device.kind = classify_pci(pci->class_id, pci->vendor_id, obj->type == HWLOC_OBJ_BRIDGE);
      if (pci->linkspeed > 0)
        device.link_gbytes_per_s = pci->linkspeed;
    }
    tree.devices.push_back(std::move(device));
    self = static_cast<int>(tree.devices.size()) - 1;
  } else if (obj->type == HWLOC_OBJ_OS_DEVICE && parent >= 0 && obj->name) {
    tree.devices[static_cast<std::size_t>(parent)].os_names.emplace_back(obj->name);
  }
  for (hwloc_obj_t child = obj->first_child; child; child = child->next_sibling)
    add_hwloc_io(topo, child, self, tree);
  for (hwloc_obj_t child = obj->memory_first_child; child; child = child->next_sibling)
    add_hwloc_io(topo, child, self, tree);
  for (hwloc_obj_t child = obj->io_first_child; child; child = child->next_sibling)
    add_hwloc_io(topo, child, self, tree);
}

} // namespace

PciTree pci_tree_from_hwloc(const Topology &topology) {
  PciTree tree;
  tree.source = "hwloc";
  tree.switches_collapsed = false;
  add_hwloc_io(topology.get(), hwloc_get_root_obj(topology.get()), -1, tree);
  return tree;
}

// ---------------------------------------------------------------------------------------------
// NCCL topology XML

namespace {

std::size_t line_of_offset(const std::string &text, std::ptrdiff_t offset) {
  const auto end = text.begin() + std::clamp<std::ptrdiff_t>(offset, 0, std::ssize(text));
  return 1 + static_cast<std::size_t>(std::count(text.begin(), end, '\n'));
}

void parse_xml(const std::string &text, const std::string &where, pugi::xml_document &doc) {
  const pugi::xml_parse_result result = doc.load_buffer(text.data(), text.size());
  if (!result)
    throw InputError(fmt::format("not well-formed XML: {}", result.description()),
                     fmt::format("{}:{}", where, line_of_offset(text, result.offset)),
                     "give an hwloc XML (lstopo --of xml) or an NCCL topology XML "
                     "(NCCL_TOPO_DUMP_FILE)");
}

std::uint16_t hex16(const pugi::xml_node &node, const char *name) {
  unsigned long value = std::strtoul(node.attribute(name).as_string("0"), nullptr, 16);
  // NCCL writes the class with its programming interface (0x060400): keep class and subclass.
  while (value > 0xffff)
    value >>= 8;
  return static_cast<std::uint16_t>(value);
}

nlohmann::json nccl_gpu_attributes(const pugi::xml_node &gpu) {
  nlohmann::json j = {{inventory_field::kDev, gpu.attribute("dev").as_int(-1)},
                      {inventory_field::kSm, gpu.attribute("sm").as_int(0)},
                      {inventory_field::kRank, gpu.attribute("rank").as_int(-1)},
                      {inventory_field::kGdr, gpu.attribute("gdr").as_int(0)}};
  nlohmann::json links = nlohmann::json::array();
  for (const pugi::xml_node &link : gpu.children("nvlink"))
    links.push_back(
        {{inventory_field::kTarget, normalize_bus_id(link.attribute("target").as_string())},
         {inventory_field::kCount, link.attribute("count").as_int(0)},
         {inventory_field::kTclass, link.attribute("tclass").as_string()}});
  j[inventory_field::kNvlinks] = std::move(links);
  return j;
}

void add_nccl_nic(const pugi::xml_node &nic, PciDevice &device) {
  nlohmann::json nets = nlohmann::json::array();
  for (const pugi::xml_node &net : nic.children("net")) {
    const std::string name = net.attribute("name").as_string();
    if (!name.empty() &&
        std::find(device.os_names.begin(), device.os_names.end(), name) == device.os_names.end())
      device.os_names.push_back(name);
    nets.push_back({{inventory_field::kName, name},
                    {inventory_field::kDev, net.attribute("dev").as_int(-1)},
                    {inventory_field::kSpeedMbitsPerS, net.attribute("speed").as_llong(0)},
                    {inventory_field::kPort, net.attribute("port").as_int(0)},
                    {inventory_field::kGuid, net.attribute("guid").as_string()},
                    {inventory_field::kGdr, net.attribute("gdr").as_int(0)}});
  }
  device.kind = PciKind::nic;
  device.attributes[inventory_field::kNets] = std::move(nets);
}

void add_nccl_children(const pugi::xml_node &node, int parent, int numa, PciTree &tree) {
  for (const pugi::xml_node &child : node.children()) {
    const std::string_view name = child.name();
    if (name == "pci") {
      PciDevice device;
      device.bus_id = normalize_bus_id(child.attribute("busid").as_string());
      device.class_id = hex16(child, "class");
      device.vendor_id = hex16(child, "vendor");
      device.device_id = hex16(child, "device");
      device.kind = classify_pci(device.class_id, device.vendor_id, false);
      device.parent = parent;
      device.numa_node = numa;
      const double speed = std::strtod(child.attribute("link_speed").as_string(""), nullptr);
      if (speed > 0)
        device.link_gtransfers_per_s = speed;
      if (const int width = child.attribute("link_width").as_int(0); width > 0)
        device.link_width = width;
      if (device.link_gtransfers_per_s && device.link_width)
        device.link_gbytes_per_s =
            pcie_link_gbytes_per_s(*device.link_gtransfers_per_s, *device.link_width);
      if (const pugi::xml_node gpu = child.child("gpu")) {
        device.kind = PciKind::gpu;
        device.attributes[inventory_field::kGpu] = nccl_gpu_attributes(gpu);
        device.os_names.push_back(fmt::format("cuda{}", gpu.attribute("dev").as_int(-1)));
      }
      if (const pugi::xml_node nic = child.child("nic"))
        add_nccl_nic(nic, device);
      tree.devices.push_back(std::move(device));
      add_nccl_children(child, static_cast<int>(tree.devices.size()) - 1, numa, tree);
    } else if (name == "nic" && std::string_view(node.name()) != "pci") {
      // A NIC NCCL could not place on the PCI tree: hangs off the CPU with no bus id.
      PciDevice device;
      device.parent = parent;
      device.numa_node = numa;
      add_nccl_nic(child, device);
      tree.devices.push_back(std::move(device));
    }
  }
}

pugi::xml_node system_root(const pugi::xml_document &doc, const std::string &where) {
  pugi::xml_node root = doc.document_element();
  if (std::string_view(root.name()) != "system")
    throw InputError(
        fmt::format("root element is <{}>, not the <system> of an NCCL topology", root.name()),
        where, "give an NCCL topology XML (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE)");
  return root;
}

// NCCL's affinity is hwloc-like: 32-bit hex words, most significant first, without "0x".
std::string affinity_to_list(std::string_view affinity) {
  std::vector<std::string_view> words;
  std::size_t start = 0;
  while (start <= affinity.size()) {
    const auto comma = affinity.find(',', start);
    const auto end = comma == std::string_view::npos ? affinity.size() : comma;
    words.push_back(affinity.substr(start, end - start));
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  std::unique_ptr<hwloc_bitmap_s, decltype(&hwloc_bitmap_free)> bitmap(hwloc_bitmap_alloc(),
                                                                       &hwloc_bitmap_free);
  unsigned word_index = 0;
  for (auto it = words.rbegin(); it != words.rend(); ++it, ++word_index) {
    const unsigned long bits = std::strtoul(std::string(*it).c_str(), nullptr, 16);
    for (unsigned b = 0; b < 32; ++b)
      if (bits & (1ul << b))
        hwloc_bitmap_set(bitmap.get(), word_index * 32 + b);
  }
  return bitmap_list(bitmap.get());
}

// NCCL lists the NVSwitches of an HGX board only as the targets of each GPU's <nvlink> (class
// 0x0680), not as <pci> nodes: each distinct target is one NVSwitch, added off the tree (no
// parent), so that the summary counts them. A GPU-to-GPU NVLink (tclass 0x0302) adds nothing.
void add_nvlink_switches(const pugi::xml_node &root, PciTree &tree) {
  std::set<std::string> known;
  for (const auto &d : tree.devices)
    known.insert(d.bus_id);
  for (const pugi::xpath_node &found : root.select_nodes(".//gpu/nvlink")) {
    const pugi::xml_node link = found.node();
    const std::string tclass = link.attribute("tclass").as_string();
    if (!tclass.starts_with("0x0680"))
      continue;
    const std::string bus = normalize_bus_id(link.attribute("target").as_string());
    if (!known.insert(bus).second)
      continue;
    PciDevice device;
    device.bus_id = bus;
    device.class_id = 0x0680;
    device.vendor_id = 0x10de;
    device.kind = PciKind::nvswitch;
    device.attributes[inventory_field::kFrom] = "nvlink target";
    tree.devices.push_back(std::move(device));
  }
}

} // namespace

PciTree pci_tree_from_nccl_xml(const std::string &xml_text, const std::string &where) {
  pugi::xml_document doc;
  parse_xml(xml_text, where, doc);
  const pugi::xml_node root = system_root(doc, where);
  PciTree tree;
  tree.source = "nccl";
  tree.switches_collapsed = true;
  for (const pugi::xml_node &cpu : root.children("cpu"))
    add_nccl_children(cpu, -1, cpu.attribute("numaid").as_int(-1), tree);
  add_nvlink_switches(root, tree);
  return tree;
}

nlohmann::json nccl_numa_nodes(const std::string &xml_text, const std::string &where) {
  pugi::xml_document doc;
  parse_xml(xml_text, where, doc);
  nlohmann::json nodes = nlohmann::json::array();
  for (const pugi::xml_node &cpu : system_root(doc, where).children("cpu")) {
    const std::string cpus = affinity_to_list(cpu.attribute("affinity").as_string(""));
    nodes.push_back({{inventory_field::kOsIndex, cpu.attribute("numaid").as_int(-1)},
                     {inventory_field::kMemoryBytes, nullptr},
                     {inventory_field::kCpus, cpus},
                     {inventory_field::kCores, nullptr},
                     {inventory_field::kArch, cpu.attribute("arch").as_string()},
                     {inventory_field::kCpuVendor, cpu.attribute("vendor").as_string()},
                     {inventory_field::kCpuFamily, cpu.attribute("familyid").as_int(-1)},
                     {inventory_field::kCpuModel, cpu.attribute("modelid").as_int(-1)}});
  }
  return nodes;
}

TopologyFileKind detect_topology_file(const std::string &path, std::string *text_out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError("cannot open the topology file", path,
                     "check the path given to --topology and that it is readable");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  pugi::xml_document doc;
  parse_xml(text, path, doc);
  const std::string_view root = doc.document_element().name();
  TopologyFileKind kind;
  if (root == "topology")
    kind = TopologyFileKind::hwloc_xml;
  else if (root == "system")
    kind = TopologyFileKind::nccl_xml;
  else
    throw InputError(fmt::format("unknown topology format: root element <{}>", root), path,
                     "give an hwloc XML (root <topology>, from `lstopo --of xml`) or an NCCL "
                     "topology XML (root <system>, from NCCL_TOPO_DUMP_FILE)");
  if (text_out)
    *text_out = std::move(text);
  return kind;
}

// ---------------------------------------------------------------------------------------------

nlohmann::json to_json(const PciDevice &device, const PciTree &tree) {
  auto optional = [](const auto &value) -> nlohmann::json {
    return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  };
  nlohmann::json upstream = nlohmann::json::array(); // nearest bridge first
  for (int p = device.parent; p >= 0; p = tree.devices[static_cast<std::size_t>(p)].parent)
    upstream.push_back(tree.devices[static_cast<std::size_t>(p)].bus_id);
  return {{inventory_field::kBusId, device.bus_id},
          {inventory_field::kKind, to_string(device.kind)},
          {inventory_field::kClass, fmt::format("0x{:04x}", device.class_id)},
          {inventory_field::kVendor, fmt::format("0x{:04x}", device.vendor_id)},
          {inventory_field::kDevice, fmt::format("0x{:04x}", device.device_id)},
          {inventory_field::kNumaNode,
           device.numa_node >= 0 ? nlohmann::json(device.numa_node) : nullptr},
          {inventory_field::kUpstream, std::move(upstream)},
          {inventory_field::kLinkGbytesPerS, optional(device.link_gbytes_per_s)},
          {inventory_field::kLinkGtransfersPerS, optional(device.link_gtransfers_per_s)},
          {inventory_field::kLinkWidth, optional(device.link_width)},
          {inventory_field::kOsNames, device.os_names},
          {inventory_field::kAttributes, device.attributes}};
}

nlohmann::json to_json(const PciTree &tree) {
  nlohmann::json devices = nlohmann::json::array();
  for (const PciDevice &device : tree.devices)
    devices.push_back(to_json(device, tree));
  return {{inventory_field::kSource, tree.source},
          {inventory_field::kSwitchesCollapsed, tree.switches_collapsed},
          {inventory_field::kDevices, std::move(devices)}};
}

} // namespace railgauge
