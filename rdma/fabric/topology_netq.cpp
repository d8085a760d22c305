// NVIDIA NetQ's topologyGraph API response (built from LLDP): a list of one graph object,
//
//   [{"nodes": [{"node_type": "tier", "tier": 2, "compounded_nodes": [{"id": "node3",
//       "name": "net-unit-s1", "device_type": "switch", "tier": 2, ...}]}, ...],
//     "links": [{"src": "node9", "target": "node12", "compounded_links": [{"interfaces":
//       [{"interface": "swp17s0", "node": "node9"}, {"interface": "ens4f0np0", "node":
//       "node12"}]}]}]}]
//
// (NVIDIA/topograph's tests/output/netq/topologyGraph.json). A node of device_type "switch"
// is a switch; any other ("discovered_via_lldp": a host NetQ's agent does not run on) a host.
// Each compounded link is one cable; its two interfaces are the ports.
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/bounded_input.h"
#include "harness/error.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma::fabric {
namespace {

using nlohmann::json;

constexpr const char *kFix = "give NetQ's topologyGraph response (a list holding nodes and links)";

struct NetqNode {
  std::string name;
  bool is_switch = false;
};

void read_nodes(const json &tiers, std::map<std::string, NetqNode> &nodes, ReadNotes *notes) {
  for (const auto &tier : tiers) {
    if (!tier.is_object())
      continue;
    const auto members = tier.value("compounded_nodes", json::array());
    for (const auto &n : members.is_array() ? members : json::array()) {
      if (!n.is_object() || !n.contains("id") || !n["id"].is_string())
        continue;
      const auto type = n.value("device_type", std::string());
      nodes[n["id"].get<std::string>()] = {n.value("name", n["id"].get<std::string>()),
                                           type == "switch"};
      if (notes && type == "switch")
        ++notes->switches;
    }
  }
}

std::vector<RawCable> graph_cables(const json &graph, const std::string &where, ReadNotes *notes) {
  std::vector<RawCable> cables;
  std::map<std::string, NetqNode> nodes;
  read_nodes(graph["nodes"], nodes, notes);
  for (const auto &link : graph["links"]) {
    const auto cabled = link.is_object() ? link.value("compounded_links", json::array()) : json();
    for (const auto &cable : cabled.is_array() ? cabled : json::array()) {
      const auto ends = cable.is_object() ? cable.value("interfaces", json::array()) : json();
      const auto id = cable.is_object() ? cable.value("id", std::string("?")) : "?";
      if (!ends.is_array() || ends.size() != 2 || !ends[0].is_object() || !ends[1].is_object()) {
        if (notes)
          notes->unread.push_back(fmt::format("{}: link '{}': not two interfaces", where, id));
        continue;
      }
      const auto x = nodes.find(ends[0].value("node", std::string()));
      const auto y = nodes.find(ends[1].value("node", std::string()));
      if (x == nodes.end() || y == nodes.end()) {
        if (notes)
          notes->unread.push_back(fmt::format("{}: link '{}': an end on no node", where, id));
        continue;
      }
      auto a = x->second, b = y->second;
      auto a_port = ends[0].value("interface", std::string());
      auto b_port = ends[1].value("interface", std::string());
      if (a.is_switch && !b.is_switch)
        std::swap(a, b), std::swap(a_port, b_port);
      cables.push_back(
          {a.name, a_port, b.name, b_port, !a.is_switch, -1, !a.is_switch && !b.is_switch});
    }
  }
  return cables;
}

} // namespace

std::vector<RawCable> read_netq_topology(const std::string &text, const std::string &where,
                                         ReadNotes *notes) {
  json doc;
  try {
    doc = parse_bounded_json(text, where, kFix);
  } catch (const json::exception &e) {
    throw InputError(fmt::format("not JSON: {}", e.what()), where, kFix);
  }
  const json graph = doc.is_array() && !doc.empty() ? doc[0] : doc;
  if (!graph.is_object() || !graph.contains("nodes") || !graph.contains("links") ||
      !graph["nodes"].is_array() || !graph["links"].is_array())
    throw InputError("no \"nodes\" and \"links\" lists", where, kFix);
  std::vector<RawCable> cables;
  try {
    cables = graph_cables(graph, where, notes);
  } catch (const json::type_error &e) { // a field of another type than NetQ sends
    throw InputError(fmt::format("not NetQ's topologyGraph: {}", e.what()), where, kFix);
  }
  if (cables.empty())
    throw InputError("no cable in the graph's links", where, kFix);
  return cables;
}

} // namespace railgauge::rdma::fabric
