#include "rdma/fabric/fabric_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace railgauge::rdma::fabric {
namespace {

// The uplink count most leaves have: what a leaf short of it is measured against.
int usual_uplinks(const Topology &t) {
  std::map<int, int> leaves_with;
  for (const auto &ups : t.leaf_uplinks)
    ++leaves_with[static_cast<int>(ups.size())];
  int best = 0, count = -1;
  for (const auto &[uplinks, leaves] : leaves_with)
    if (leaves > count || (leaves == count && uplinks > best))
      best = uplinks, count = leaves;
  return best;
}

// Links of one kind per leaf (or per spine): `end` picks which end counts.
std::vector<int> links_per(const Topology &t, LinkKind kind, int Link::*end, std::size_t size) {
  std::vector<int> out(size, 0);
  for (const auto &l : t.links)
    if (l.kind == kind)
      ++out[l.*end];
  return out;
}

} // namespace

nlohmann::json summary_json(const Topology &t, const std::string &path) {
  using nlohmann::json;
  const auto nics = links_per(t, LinkKind::nic_leaf, &Link::leaf, t.leaves.size());
  const auto spine_ups = links_per(t, LinkKind::leaf_spine, &Link::spine, t.spines.size());
  json leaves = json::array(), spines = json::array();
  for (std::size_t i = 0; i < t.leaves.size(); ++i) {
    std::set<int> reached;
    for (const auto &[spine, links] : t.leaf_spine_links[i])
      reached.insert(spine);
    leaves.push_back({{"name", t.leaves[i]},
                      {"nic_cables", nics[i]},
                      {"uplinks", t.leaf_uplinks[i].size()},
                      {"spines_reached", reached.size()}});
  }
  for (std::size_t i = 0; i < t.spines.size(); ++i)
    spines.push_back({{"name", t.spines[i]}, {"uplinks", spine_ups[i]}});
  const int usual = usual_uplinks(t);
  json short_leaves = json::array();
  for (std::size_t i = 0; i < t.leaves.size(); ++i)
    if (static_cast<int>(t.leaf_uplinks[i].size()) < usual)
      short_leaves.push_back({{"name", t.leaves[i]}, {"uplinks", t.leaf_uplinks[i].size()}});
  return {{"topology", path},
          {"nodes", t.nodes.size()},
          {"hosts_read", t.hosts_read},
          {"rails", t.rails},
          {"switches_read", t.switches_read},
          {"leaf_count", t.leaves.size()},
          {"spine_count", t.spines.size()},
          {"nic_cables", t.link_indices(LinkKind::nic_leaf).size()},
          {"uplinks", t.link_indices(LinkKind::leaf_spine).size()},
          {"usual_uplinks_per_leaf", usual},
          {"leaves_short_of_usual_uplinks", short_leaves},
          {"leaves", leaves},
          {"spines", spines},
          {"set_aside", t.ignored},
          {"unread", t.unread},
          {"unresolved_hosts", t.unresolved}};
}

std::string summary_table(const Topology &t, const std::string &path) {
  const auto j = summary_json(t, path);
  std::string out = fmt::format("Fabric {}\n", path);
  out += fmt::format("  {:<22} {:>6}  (hosts named in the file: {})\n", "nodes", t.nodes.size(),
                     t.hosts_read);
  out += fmt::format("  {:<22} {:>6}\n", "rails", t.rails);
  out += fmt::format("  {:<22} {:>6}  (named in the file: {})\n", "switches",
                     t.leaves.size() + t.spines.size(), t.switches_read);
  out += fmt::format("  {:<22} {:>6}\n", "leaves", t.leaves.size());
  out += fmt::format("  {:<22} {:>6}\n", "spines", t.spines.size());
  out += fmt::format("  {:<22} {:>6}\n", "NIC cables", j["nic_cables"].get<int>());
  out += fmt::format("  {:<22} {:>6}  (most leaves have {})\n", "uplinks", j["uplinks"].get<int>(),
                     j["usual_uplinks_per_leaf"].get<int>());
  const auto &short_leaves = j["leaves_short_of_usual_uplinks"];
  if (!short_leaves.empty()) {
    out += fmt::format("\nLeaves with fewer uplinks than most ({}):\n", short_leaves.size());
    for (const auto &l : short_leaves)
      out += fmt::format("  {:<40} {:>3} uplinks\n", l["name"].get<std::string>(),
                         l["uplinks"].get<int>());
  }
  const auto list = [&](const char *title, const std::vector<std::string> &items) {
    if (items.empty())
      return;
    out += fmt::format("\n{} ({}):\n", title, items.size());
    for (const auto &item : items)
      out += "  " + item + "\n";
  };
  list("Cables set aside: no two-level tree holds them", t.ignored);
  list("Not used from the file", t.unread);
  list("Hosts known only by a GUID (--guid-map FILE names them)", t.unresolved);
  return out;
}

} // namespace railgauge::rdma::fabric
