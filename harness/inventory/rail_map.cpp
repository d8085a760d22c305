#include "harness/inventory/rail_map.h"

#include <algorithm>
#include <tuple>

#include "harness/inventory/inventory_fields.h"

namespace railgauge {

std::string_view to_string(PciPath path) {
  switch (path) {
  case PciPath::PIX:
    return "PIX";
  case PciPath::PXB:
    return "PXB";
  case PciPath::PHB:
    return "PHB";
  case PciPath::NODE:
    return "NODE";
  case PciPath::SYS:
    return "SYS";
  }
  return "SYS";
}

namespace {

const PciDevice &at(const PciTree &tree, int index) {
  return tree.devices[static_cast<std::size_t>(index)];
}

struct Upstream {
  std::vector<int> switches; // nearest first: the switches (collapsed) above the device
  int host_bridge = -1;      // -1 when the tree has none (NCCL: the CPU is the root)
};

// The switches above a device, in NCCL's collapsed form. In a full hwloc tree a device hangs
// from a switch downstream port, whose parent is the switch upstream port; the upstream port
// hangs from a root port (or another switch's downstream port). So every second bridge is a
// switch: skip one level, keep the next - the walk NCCL does over sysfs paths.
Upstream upstream_of(const PciTree &tree, int device) {
  Upstream up;
  int p = at(tree, device).parent;
  while (p >= 0 && at(tree, p).kind != PciKind::host_bridge) {
    if (tree.switches_collapsed) {
      up.switches.push_back(p);
      p = at(tree, p).parent;
      continue;
    }
    const int q = at(tree, p).parent; // p: downstream or root port, not a switch of its own
    if (q < 0 || at(tree, q).kind == PciKind::host_bridge) {
      p = q;
      break;
    }
    up.switches.push_back(q);
    p = at(tree, q).parent;
  }
  if (p >= 0 && at(tree, p).kind == PciKind::host_bridge)
    up.host_bridge = p;
  return up;
}

} // namespace

PciPath pci_path(const PciTree &tree, int a, int b) {
  const Upstream ua = upstream_of(tree, a);
  const Upstream ub = upstream_of(tree, b);
  for (std::size_t i = 0; i < ua.switches.size(); ++i) {
    const auto it = std::find(ub.switches.begin(), ub.switches.end(), ua.switches[i]);
    if (it != ub.switches.end())
      return (i == 0 && it == ub.switches.begin()) ? PciPath::PIX : PciPath::PXB;
  }
  if (ua.host_bridge >= 0 && ua.host_bridge == ub.host_bridge)
    return PciPath::PHB;
  const int na = at(tree, a).numa_node;
  const int nb = at(tree, b).numa_node;
  return (na >= 0 && na == nb) ? PciPath::NODE : PciPath::SYS;
}

RailMap build_rail_map(const PciTree &tree) {
  RailMap map;
  map.gpus = tree.of_kind(PciKind::gpu);
  map.nics = tree.of_kind(PciKind::nic);
  std::vector<int> uses(map.nics.size(), 0);
  for (int gpu : map.gpus) {
    std::vector<PciPath> row;
    for (int nic : map.nics)
      row.push_back(pci_path(tree, gpu, nic));
    Rail rail;
    rail.gpu = gpu;
    std::optional<std::size_t> best;
    for (std::size_t n = 0; n < map.nics.size(); ++n)
      if (!best || std::tie(row[n], uses[n]) < std::tie(row[*best], uses[*best]))
        best = n;
    if (best) {
      rail.nic = map.nics[*best];
      rail.path = row[*best];
      ++uses[*best];
    }
    map.paths.push_back(std::move(row));
    map.rails.push_back(rail);
  }
  return map;
}

nlohmann::json to_json(const RailMap &map, const PciTree &tree) {
  auto first_name = [&](int index, std::string_view prefix) -> nlohmann::json {
    for (const std::string &name : at(tree, index).os_names)
      if (name.rfind(prefix, 0) == 0)
        return name;
    return nullptr;
  };
  auto numa = [&](int index) -> nlohmann::json {
    const int n = at(tree, index).numa_node;
    return n >= 0 ? nlohmann::json(n) : nlohmann::json(nullptr);
  };
  auto nic_name = [&](int index) -> nlohmann::json {
    // The verbs device name (mlx5_0) when the source has it, else the first OS name.
    nlohmann::json name = first_name(index, "mlx");
    if (name.is_null() && !at(tree, index).os_names.empty())
      name = at(tree, index).os_names.front();
    return name;
  };
  nlohmann::json gpus = nlohmann::json::array(), nics = nlohmann::json::array();
  const auto link = [&](int i) -> nlohmann::json {
    const auto &gbytes = at(tree, i).link_gbytes_per_s;
    return gbytes ? nlohmann::json(*gbytes) : nlohmann::json(nullptr);
  };
  for (int g : map.gpus)
    gpus.push_back({{inventory_field::kBusId, at(tree, g).bus_id},
                    {inventory_field::kName, first_name(g, "cuda")},
                    {inventory_field::kNumaNode, numa(g)},
                    {inventory_field::kLinkGbytesPerS, link(g)}});
  for (int n : map.nics)
    nics.push_back({{inventory_field::kBusId, at(tree, n).bus_id},
                    {inventory_field::kName, nic_name(n)},
                    {inventory_field::kNumaNode, numa(n)},
                    {inventory_field::kLinkGbytesPerS, link(n)}});
  nlohmann::json paths = nlohmann::json::array();
  for (const auto &row : map.paths) {
    nlohmann::json cells = nlohmann::json::array();
    for (PciPath p : row)
      cells.push_back(to_string(p));
    paths.push_back(std::move(cells));
  }
  nlohmann::json rails = nlohmann::json::array();
  for (std::size_t i = 0; i < map.rails.size(); ++i) {
    const Rail &rail = map.rails[i];
    nlohmann::json entry = {{inventory_field::kGpuIndex, i},
                            {inventory_field::kGpuBusId, at(tree, rail.gpu).bus_id},
                            {inventory_field::kGpuNumaNode, numa(rail.gpu)},
                            {inventory_field::kNicBusId, nullptr},
                            {inventory_field::kNicName, nullptr},
                            {inventory_field::kNicNumaNode, nullptr},
                            {inventory_field::kPath, nullptr}};
    if (rail.nic) {
      entry[inventory_field::kNicBusId] = at(tree, *rail.nic).bus_id;
      entry[inventory_field::kNicName] = nic_name(*rail.nic);
      entry[inventory_field::kNicNumaNode] = numa(*rail.nic);
      entry[inventory_field::kPath] = to_string(rail.path);
    }
    rails.push_back(std::move(entry));
  }
  return {{inventory_field::kGpus, std::move(gpus)},
          {inventory_field::kNics, std::move(nics)},
          {inventory_field::kPaths, std::move(paths)},
          {inventory_field::kRails, std::move(rails)}};
}

} // namespace railgauge
