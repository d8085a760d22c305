// The plain YAML inventory (topology_readers.h):
//
//   nodes:
//     node001:
//       - {nic: mlx5_0, leaf: leaf-r0-0, port: "1"}   # rail 0
//       - {nic: mlx5_1, leaf: leaf-r1-0, port: "1"}   # rail 1
//   leaves:
//     leaf-r0-0:
//       - {spine: spine-r0-0, port: "33", spine_port: "1"}
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

std::string required(const YAML::Node &entry, const char *key, const std::string &where) {
  const auto value = entry[key];
  if (!value || !value.IsScalar() || value.as<std::string>().empty())
    throw InputError(
        fmt::format("missing '{}'", key), where,
        fmt::format("give each entry a '{}:' (see docs/rdma.md, Fabric topology)", key));
  return value.as<std::string>();
}

std::string optional(const YAML::Node &entry, const char *key) {
  const auto value = entry[key];
  return value && value.IsScalar() ? value.as<std::string>() : "";
}

std::string at(const std::string &where, const YAML::Node &node) {
  return fmt::format("{}:{}", where, node.Mark().line + 1);
}

// The cables of a document that has a 'nodes:' map.
std::vector<RawCable> cables_of(const YAML::Node &root, const std::string &where) {
  std::vector<RawCable> cables;
  for (const auto &node : root["nodes"]) {
    const auto host = node.first.as<std::string>();
    if (!node.second.IsSequence())
      throw InputError(fmt::format("node '{}' is not a list of NICs", host), at(where, node.first),
                       "list the node's NICs in rail order: - {nic: mlx5_0, leaf: leaf0}");
    int rail = 0;
    for (const auto &nic : node.second) {
      const auto here = at(where, nic);
      cables.push_back({host, required(nic, "nic", here), required(nic, "leaf", here),
                        optional(nic, "port"), true, rail++});
    }
  }
  if (const auto leaves = root["leaves"]; leaves && leaves.IsMap())
    for (const auto &leaf : leaves) {
      const auto name = leaf.first.as<std::string>();
      if (!leaf.second.IsSequence())
        throw InputError(fmt::format("leaf '{}' is not a list of uplinks", name),
                         at(where, leaf.first), "list its uplinks: - {spine: spine0, port: 33}");
      int index = 0;
      for (const auto &up : leaf.second) {
        const auto here = at(where, up);
        // Without a port, the uplink's place in the list tells parallel cables apart.
        auto port = optional(up, "port");
        if (port.empty())
          port = fmt::format("uplink{}", index);
        ++index;
        cables.push_back(
            {name, port, required(up, "spine", here), optional(up, "spine_port"), false, -1});
      }
    }
  return cables;
}

} // namespace

std::vector<RawCable> read_topology_yaml(const std::string &text, const std::string &where) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception &e) {
    throw InputError(fmt::format("not YAML: {}", e.msg),
                     fmt::format("{}:{}", where, e.mark.line + 1), "fix the YAML syntax");
  }
  if (!root.IsMap() || !root["nodes"] || !root["nodes"].IsMap())
    throw InputError("no 'nodes:' map", where,
                     "start the file with 'nodes:' mapping each node to its list of NICs");
  // A name that is a list or a map (`? [a]`) threw yaml-cpp's TypedBadConversion past every
  // handler (a seed of the topology_readers fuzz target).
  try {
    return cables_of(root, where);
  } catch (const YAML::Exception &e) {
    throw InputError(fmt::format("not a topology: {}", e.msg),
                     fmt::format("{}:{}", where, e.mark.line + 1),
                     "give node, NIC, leaf and spine names as plain values (see docs/rdma.md, "
                     "Fabric topology)");
  }
}

} // namespace railgauge::rdma::fabric
