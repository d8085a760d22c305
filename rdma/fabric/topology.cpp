#include "rdma/fabric/topology.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "harness/error.h"

namespace railgauge::rdma::fabric {

bool natural_less(const std::string &x, const std::string &y) {
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    if (std::isdigit(static_cast<unsigned char>(x[i])) &&
        std::isdigit(static_cast<unsigned char>(y[j]))) {
      std::size_t ei = i, ej = j;
      while (ei < x.size() && std::isdigit(static_cast<unsigned char>(x[ei])))
        ++ei;
      while (ej < y.size() && std::isdigit(static_cast<unsigned char>(y[ej])))
        ++ej;
      const auto nx = std::stoull(x.substr(i, std::min<std::size_t>(ei - i, 18)));
      const auto ny = std::stoull(y.substr(j, std::min<std::size_t>(ej - j, 18)));
      if (nx != ny)
        return nx < ny;
      i = ei, j = ej;
      continue;
    }
    if (x[i] != y[j])
      return x[i] < y[j];
    ++i, ++j;
  }
  return x.size() - i < y.size() - j;
}

namespace {

int index_of(std::vector<std::string> &names, std::map<std::string, int> &index,
             const std::string &name) {
  const auto [it, added] = index.emplace(name, static_cast<int>(names.size()));
  if (added)
    names.push_back(name);
  return it->second;
}

struct NicCable {
  std::string host, nic, sw, sw_port;
  int rail = -1;
};

// Rails: the NIC's own rail when the source gave one, else its rank among the host's NICs.
void assign_rails(std::vector<NicCable> &nic_cables, Topology &t) {
  std::map<std::string, std::vector<std::string>> by_host;
  for (const auto &c : nic_cables)
    by_host[c.host].push_back(c.nic);
  for (auto &[host, nics] : by_host)
    std::sort(nics.begin(), nics.end(), natural_less);
  for (auto &c : nic_cables) {
    if (c.rail < 0) {
      const auto &nics = by_host[c.host];
      c.rail = static_cast<int>(std::find(nics.begin(), nics.end(), c.nic) - nics.begin());
    }
    t.rails = std::max(t.rails, c.rail + 1);
  }
}

void add_nic_links(const std::vector<NicCable> &nic_cables, Topology &t,
                   std::map<std::string, int> &leaf_index, const std::string &where) {
  std::map<std::string, int> node_index;
  std::vector<NicCable> sorted = nic_cables;
  std::sort(sorted.begin(), sorted.end(),
            [](const NicCable &x, const NicCable &y) { return natural_less(x.host, y.host); });
  for (const auto &c : sorted)
    index_of(t.nodes, node_index, c.host);
  t.nics.assign(t.nodes.size(), std::vector<std::string>(t.rails));
  t.nic_link.assign(t.nodes.size() * t.rails, -1);
  for (const auto &c : sorted) {
    const int node = node_index[c.host];
    int &slot = t.nic_link[node * t.rails + c.rail];
    if (slot >= 0)
      throw InputError(fmt::format("{} rail {} ({}) is cabled twice: to {} and to {}", c.host,
                                   c.rail, c.nic, t.links[slot].label, c.sw),
                       where, "give each NIC one cable (one line, one neighbour)");
    Link l;
    l.kind = LinkKind::nic_leaf;
    l.node = node, l.rail = c.rail;
    l.leaf = index_of(t.leaves, leaf_index, c.sw);
    l.leaf_port = c.sw_port, l.far_port = c.nic;
    l.label = fmt::format("{}/{} - {}[{}]", c.host, c.nic, c.sw, c.sw_port);
    t.nics[node][c.rail] = c.nic;
    slot = static_cast<int>(t.links.size());
    t.links.push_back(l);
  }
}

// Each cable once: ibnetdiscover lists a cable in both switches' blocks, LLDP in both ends' tables.
std::vector<RawCable> unique_cables(const std::vector<RawCable> &cables) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<RawCable> out;
  for (const auto &c : cables) {
    auto x = c.a + "[" + c.a_port + "]", y = c.b + "[" + c.b_port + "]";
    if (!c.a_is_host && y < x)
      std::swap(x, y);
    if (seen.emplace(x, y).second)
      out.push_back(c);
  }
  return out;
}

std::string cable_text(const RawCable &c) {
  return c.a_is_host ? fmt::format("{}/{} - {}[{}]", c.a, c.a_port, c.b, c.b_port)
                     : fmt::format("{}[{}] - {}[{}]", c.a, c.a_port, c.b, c.b_port);
}

// The cables no two-level tree holds, set aside and said: NICs cabled back to back, and the
// NICs on a switch that is a spine by its other cables (more switch cables than NICs, every
// one of them to a switch with NICs of its own: a storage node's second port on a spine).
void set_aside_off_tree(std::vector<RawCable> &cables, Topology &t) {
  std::map<std::string, int> nics_on, switch_cables;
  std::map<std::string, std::set<std::string>> switch_peers;
  for (const auto &c : cables) {
    if (c.b_is_host)
      continue;
    if (c.a_is_host) {
      ++nics_on[c.b];
      continue;
    }
    ++switch_cables[c.a], ++switch_cables[c.b];
    switch_peers[c.a].insert(c.b), switch_peers[c.b].insert(c.a);
  }
  std::set<std::string> spines_with_nics;
  for (const auto &[sw, nics] : nics_on) {
    const auto &peers = switch_peers[sw];
    const bool all_peers_leaves = std::all_of(peers.begin(), peers.end(),
                                              [&](const auto &p) { return nics_on.count(p) > 0; });
    if (switch_cables[sw] > nics && peers.size() > 1 && all_peers_leaves)
      spines_with_nics.insert(sw);
  }
  std::vector<RawCable> kept;
  for (auto &c : cables) {
    if (c.a_is_host && c.b_is_host)
      t.ignored.push_back(cable_text(c) + ": host to host (back to back), no switch between");
    else if (c.a_is_host && spines_with_nics.count(c.b))
      t.ignored.push_back(cable_text(c) + ": a NIC on " + c.b +
                          ", a spine by its other cables (every one to a leaf)");
    else
      kept.push_back(std::move(c));
  }
  cables = std::move(kept);
}

} // namespace

int Topology::leaf_of_endpoint(int endpoint) const {
  const int l = nic_link[endpoint];
  return l < 0 ? -1 : links[l].leaf;
}

std::string Topology::endpoint_label(int endpoint) const {
  const int node = endpoint / rails, rail = endpoint % rails;
  const auto &nic = nics[node][rail];
  return nodes[node] + "/" + (nic.empty() ? "rail" + std::to_string(rail) : nic);
}

std::vector<int> Topology::link_indices(LinkKind kind) const {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(links.size()); ++i)
    if (links[i].kind == kind)
      out.push_back(i);
  return out;
}

Topology build_topology(const std::vector<RawCable> &all_cables, const std::string &where) {
  Topology t;
  auto cables = unique_cables(all_cables);
  std::set<std::string> hosts;
  for (const auto &c : cables)
    if (c.a_is_host)
      hosts.insert(c.a);
  t.hosts_read = static_cast<int>(hosts.size());
  set_aside_off_tree(cables, t);
  std::vector<NicCable> nic_cables;
  for (const auto &c : cables)
    if (c.a_is_host)
      nic_cables.push_back({c.a, c.a_port, c.b, c.b_port, c.rail});
  if (nic_cables.empty())
    throw InputError("no NIC is cabled to a switch", where,
                     "give the hosts' NIC-to-leaf cables (a node's rails in YAML, the CAs in "
                     "ibnetdiscover output, the hosts' lldpctl tables)");
  assign_rails(nic_cables, t);
  std::map<std::string, int> leaf_index, spine_index;
  add_nic_links(nic_cables, t, leaf_index, where);
  t.leaf_uplinks.resize(t.leaves.size());
  t.leaf_spine_links.resize(t.leaves.size());
  for (const auto &c : cables) // every switch without a NIC is a spine, cabled to leaves or not
    for (const auto *name : {&c.a, &c.b})
      if (!c.a_is_host && !hosts.count(*name) && !leaf_index.count(*name))
        index_of(t.spines, spine_index, *name);
  for (const auto &c : cables) {
    if (c.a_is_host || hosts.count(c.b))
      continue;
    const bool a_leaf = leaf_index.count(c.a) > 0, b_leaf = leaf_index.count(c.b) > 0;
    if (a_leaf == b_leaf) {
      t.ignored.push_back(fmt::format("{}[{}] - {}[{}]: {} to {}", c.a, c.a_port, c.b, c.b_port,
                                      a_leaf ? "leaf" : "spine", b_leaf ? "leaf" : "spine"));
      continue;
    }
    Link l;
    l.kind = LinkKind::leaf_spine;
    const auto &leaf = a_leaf ? c.a : c.b;
    const auto &spine = a_leaf ? c.b : c.a;
    l.leaf = leaf_index[leaf];
    l.spine = index_of(t.spines, spine_index, spine);
    l.leaf_port = a_leaf ? c.a_port : c.b_port;
    l.far_port = a_leaf ? c.b_port : c.a_port;
    l.label = fmt::format("{}[{}] - {}[{}]", leaf, l.leaf_port, spine, l.far_port);
    const int index = static_cast<int>(t.links.size());
    t.links.push_back(l);
    t.leaf_uplinks[l.leaf].push_back(index);
    t.leaf_spine_links[l.leaf][l.spine].push_back(index);
  }
  return t;
}

} // namespace railgauge::rdma::fabric
