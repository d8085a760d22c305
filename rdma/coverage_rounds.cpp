#include "rdma/coverage_rounds.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

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

} // namespace

MatrixTopology matrix_topology(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path) {
  const bool given = !topology_path.empty();
  MatrixTopology m;
  m.topology = given ? fabric::load_topology(topology_path) : rail_leaves(endpoints);
  const auto &t = m.topology;
  std::map<std::string, int> by_label;
  for (int i = 0; i < static_cast<int>(endpoints.size()); ++i) {
    const auto [host, nic] = host_and_nic(endpoints[i]);
    by_label[given ? endpoints[i].label : host + "/" + nic] = i;
  }
  m.to_matrix.assign(t.endpoint_count(), -1);
  m.nic_link.assign(endpoints.size(), -1);
  for (int ep = 0; ep < t.endpoint_count(); ++ep)
    if (const auto it = by_label.find(t.endpoint_label(ep)); it != by_label.end()) {
      m.to_matrix[ep] = it->second;
      m.nic_link[it->second] = t.nic_link[ep];
    }
  for (const auto &[label, index] : by_label)
    if (std::find(m.to_matrix.begin(), m.to_matrix.end(), index) == m.to_matrix.end())
      m.missing.push_back(label);
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
  out.how = before + plan.how;
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
