#include "rdma/coverage_rounds.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/error.h"
#include "rdma/fabric/coverage_plan.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma {
namespace {

// "host/nic" of a matrix endpoint; a label without a NIC (the TCP matrix: one endpoint a rank)
// is its rail's. The same label names the endpoint's cable in the ledger from run to run.
std::pair<std::string, std::string> host_and_nic(const FabricEndpoint &e) {
  const auto slash = e.label.rfind('/');
  if (slash == std::string::npos)
    return {e.label, fmt::format("rail{}", e.rail)};
  return {e.label.substr(0, slash), e.label.substr(slash + 1)};
}

// Without a topology: one leaf per rail.
fabric::Topology rail_leaves(const std::vector<FabricEndpoint> &endpoints) {
  std::vector<fabric::RawCable> cables;
  for (const auto &e : endpoints) {
    const auto [host, nic] = host_and_nic(e);
    cables.push_back({host, nic, fmt::format("rail-{}", e.rail), host, true, e.rail});
  }
  return fabric::build_topology(cables, "the matrix's endpoints");
}

// A matrix endpoint's host and NIC as its label names them: "host/nic" (the verbs matrix),
// "rank 3 (host)/nic" (verbs, a rank for each node) or "rank 3 (host)" (TCP: no NIC).
struct EndpointName {
  std::string host, nic;
};

EndpointName endpoint_name(const std::string &label) {
  if (label.starts_with("rank ")) {
    const auto open = label.find(" (");
    const auto close = open == std::string::npos ? open : label.find(')', open);
    if (close != std::string::npos) {
      EndpointName n{label.substr(open + 2, close - open - 2), ""};
      if (close + 1 < label.size() && label[close + 1] == '/')
        n.nic = label.substr(close + 2);
      return n;
    }
  }
  const auto slash = label.rfind('/');
  if (slash == std::string::npos)
    return {label, ""};
  return {label.substr(0, slash), label.substr(slash + 1)};
}

std::string short_name(const std::string &host) { return host.substr(0, host.find('.')); }

// How endpoints were found other than by their own names, for the record: the first example
// and how many hosts.
struct Mapping {
  int by_short_name = 0, by_rail_order = 0;
  std::string short_example, rail_example;

  std::string text(const std::string &path) const {
    std::string out = fmt::format("the matrix's endpoints found in {} by host and NIC name", path);
    if (by_short_name > 0)
      out += fmt::format("; hosts by their short name on {} host(s) (e.g. {})", by_short_name,
                         short_example);
    if (by_rail_order > 0)
      out += fmt::format("; NICs by rail order, their names differing, on {} host(s) (e.g. {})",
                         by_rail_order, rail_example);
    return out;
  }
};

// The topology's node of a matrix host: the same name, else the same short name when one side
// is fully qualified ("gpu01.cluster" and "gpu01") and only one node has it; -1 when none.
class NodeFinder {
public:
  explicit NodeFinder(const fabric::Topology &t) : t_(t) {
    for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n) {
      by_name_[t.nodes[n]] = n;
      const auto [it, fresh] = by_short_.emplace(short_name(t.nodes[n]), n);
      if (!fresh)
        it->second = -1; // two nodes share it: ambiguous
    }
  }

  int find(const std::string &host, Mapping &mapping) const {
    if (const auto it = by_name_.find(host); it != by_name_.end())
      return it->second;
    const auto it = by_short_.find(short_name(host));
    if (it == by_short_.end() || it->second < 0)
      return -1;
    if (mapping.by_short_name++ == 0)
      mapping.short_example = fmt::format("{} = {}", host, t_.nodes[it->second]);
    return it->second;
  }

private:
  const fabric::Topology &t_;
  std::map<std::string, int> by_name_, by_short_;
};

// One host's endpoints into its topology node's NICs: by name when any of the names is the
// topology's; else by rail order (the NICs sorted as the topology sorts its own, TCP ranks in
// rank order) when the host has as many NICs as the node, or has none named (TCP).
void match_host(MatrixTopology &m, const std::vector<FabricEndpoint> &endpoints,
                std::vector<int> mine, int node, Mapping &mapping) {
  const auto &t = m.topology;
  const auto &nics = t.nics[node];
  std::vector<std::string> names;
  for (int i : mine)
    names.push_back(endpoint_name(endpoints[i].label).nic);
  const auto rail_of = [&](const std::string &nic) {
    return static_cast<int>(std::find(nics.begin(), nics.end(), nic) - nics.begin());
  };
  const bool by_name = std::any_of(names.begin(), names.end(), [&](const std::string &nic) {
    return !nic.empty() && rail_of(nic) < t.rails;
  });
  const auto cabled =
      std::count_if(nics.begin(), nics.end(), [](const auto &n) { return !n.empty(); });
  const bool unnamed =
      std::all_of(names.begin(), names.end(), [](const auto &n) { return n.empty(); });
  if (!by_name && !unnamed && static_cast<std::size_t>(cabled) != mine.size())
    return; // neither names nor counts agree: every endpoint of the host stays missing
  if (!by_name && !unnamed)
    std::stable_sort(mine.begin(), mine.end(), [&](int a, int b) {
      return fabric::natural_less(endpoint_name(endpoints[a].label).nic,
                                  endpoint_name(endpoints[b].label).nic);
    });
  std::vector<std::string> stated;
  int next_rail = 0;
  for (int i : mine) {
    int rail = -1;
    if (by_name) {
      rail = rail_of(endpoint_name(endpoints[i].label).nic);
    } else {
      while (next_rail < t.rails && nics[next_rail].empty())
        ++next_rail;
      rail = next_rail++;
    }
    if (rail < 0 || rail >= t.rails || nics[rail].empty())
      continue;
    const int ep = t.endpoint(node, rail);
    m.to_matrix[ep] = i;
    m.nic_link[i] = t.nic_link[ep];
    if (!by_name)
      stated.push_back(fmt::format("{} = {}", nics[rail], endpoints[i].label));
  }
  if (!by_name && !stated.empty() && mapping.by_rail_order++ == 0)
    mapping.rail_example = fmt::format("{}: {}", t.nodes[node], fmt::join(stated, ", "));
}

// Up to `n` names and how many there are: "a, b, c (of 40)".
std::string some_of(const std::vector<std::string> &names, std::size_t n = 3) {
  std::vector<std::string> shown(names.begin(), names.begin() + std::min(n, names.size()));
  return names.size() > n ? fmt::format("{} (of {})", fmt::join(shown, ", "), names.size())
                          : fmt::format("{}", fmt::join(shown, ", "));
}

// A topology that holds no two of the matrix's nodes plans no pair: said, with names of both
// sides, instead of a matrix of no rounds that passes.
void require_a_pair(const MatrixTopology &m, const std::vector<FabricEndpoint> &endpoints,
                    const std::vector<std::string> &hosts, const std::string &path) {
  std::set<int> nodes;
  for (int ep = 0; ep < m.topology.endpoint_count(); ++ep)
    if (m.to_matrix[ep] >= 0)
      nodes.insert(ep / m.topology.rails);
  if (nodes.size() >= 2)
    return;
  throw InputError(
      fmt::format("the topology holds {} of the matrix's {} endpoints, on {} node(s): no pair to "
                  "plan (the matrix's hosts: {}; the topology's: {})",
                  endpoints.size() - m.missing.size(), endpoints.size(), nodes.size(),
                  some_of(hosts), some_of(m.topology.nodes)),
      path,
      "give the topology of the fabric these ranks run on: its host names the ranks' (full or "
      "short), its NICs the matrix's names or as many on each host (matched by rail order)");
}

} // namespace

MatrixTopology matrix_topology(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path, const fabric::LoadOptions &load) {
  MatrixTopology m;
  if (topology_path.empty()) {
    m.topology = rail_leaves(endpoints);
    std::map<std::string, int> by_label;
    for (int i = 0; i < static_cast<int>(endpoints.size()); ++i) {
      const auto [host, nic] = host_and_nic(endpoints[i]);
      by_label[host + "/" + nic] = i;
    }
    m.to_matrix.assign(m.topology.endpoint_count(), -1);
    m.nic_link.assign(endpoints.size(), -1);
    for (int ep = 0; ep < m.topology.endpoint_count(); ++ep)
      if (const auto it = by_label.find(m.topology.endpoint_label(ep)); it != by_label.end()) {
        m.to_matrix[ep] = it->second;
        m.nic_link[it->second] = m.topology.nic_link[ep];
      }
    return m;
  }
  m.topology = fabric::load_topology(topology_path, load);
  m.to_matrix.assign(m.topology.endpoint_count(), -1);
  m.nic_link.assign(endpoints.size(), -1);
  std::vector<std::string> hosts;
  std::map<std::string, std::vector<int>> on_host;
  for (int i = 0; i < static_cast<int>(endpoints.size()); ++i) {
    auto &mine = on_host[endpoint_name(endpoints[i].label).host];
    if (mine.empty())
      hosts.push_back(endpoint_name(endpoints[i].label).host);
    mine.push_back(i);
  }
  const NodeFinder finder(m.topology);
  Mapping mapping;
  for (const auto &host : hosts)
    if (const int node = finder.find(host, mapping); node >= 0)
      match_host(m, endpoints, on_host[host], node, mapping);
  std::vector<bool> found(endpoints.size(), false);
  for (int i : m.to_matrix)
    if (i >= 0)
      found[i] = true;
  for (std::size_t i = 0; i < endpoints.size(); ++i)
    if (!found[i])
      m.missing.push_back(endpoints[i].label);
  require_a_pair(m, endpoints, hosts, topology_path);
  m.mapping = mapping.text(topology_path);
  return m;
}

CoverageRounds coverage_rounds(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path, int k, std::uint64_t seed,
                               const CoverSince &since) {
  const auto m = matrix_topology(endpoints, topology_path);
  const auto &t = m.topology;
  CoverageRounds out;
  out.missing = m.missing;
  fabric::CoverageOptions options;
  options.k = k;
  options.seed = seed;
  options.flows_per_pair = 1; // the matrix measures one stream a pair
  std::vector<int> links;     // all when empty
  std::string before;
  if (since.active) {
    // A pair's flow climbs an uplink that ECMP picks, and the matrix traces no path: its ledger
    // vouches for NIC cables only, so only those count here (uplinks would never look fresh).
    for (int l : fabric::links_not_exercised_since(t, since.ledger, since.since_s))
      if (t.links[l].kind == fabric::LinkKind::nic_leaf)
        links.push_back(l);
    const auto cables = static_cast<int>(t.link_indices(fabric::LinkKind::nic_leaf).size());
    before = fmt::format("cover_since {}: {} of {} NIC cables exercised since then, {} planned; ",
                         since.text, cables - static_cast<int>(links.size()), cables, links.size());
    if (links.empty()) {
      out.how = before + "no rounds";
      return out;
    }
  }
  const auto plan = fabric::plan_coverage(t, options, links);
  out.how = (m.mapping.empty() ? "" : m.mapping + "; ") + before + plan.how;
  for (const auto &planned : plan.rounds) {
    Round round;
    for (const auto &[a, b] : planned.pairs)
      if (m.to_matrix[a] >= 0 && m.to_matrix[b] >= 0)
        round.emplace_back(std::min(m.to_matrix[a], m.to_matrix[b]),
                           std::max(m.to_matrix[a], m.to_matrix[b]));
    if (!round.empty())
      out.rounds.push_back(std::move(round));
  }
  return out;
}

} // namespace railgauge::rdma
