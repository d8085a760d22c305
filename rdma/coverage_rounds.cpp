#include "rdma/coverage_rounds.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "rdma/fabric/coverage_plan.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma {
namespace {

// Without a topology: one leaf per rail, nodes in the matrix's own order.
fabric::Topology rail_leaves(const std::vector<FabricEndpoint> &endpoints) {
  std::vector<fabric::RawCable> cables;
  for (const auto &e : endpoints)
    cables.push_back({fmt::format("n{:06}", e.node), fmt::format("rail{}", e.rail),
                      fmt::format("rail-{}", e.rail), std::to_string(e.node), true, e.rail});
  return fabric::build_topology(cables, "the matrix's endpoints");
}

} // namespace

CoverageRounds coverage_rounds(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path, int k, std::uint64_t seed) {
  const bool given = !topology_path.empty();
  const auto t = given ? fabric::load_topology(topology_path) : rail_leaves(endpoints);
  // The planner's endpoint (node x rails + rail) -> the matrix's endpoint index.
  std::map<std::string, int> by_label;
  for (int i = 0; i < static_cast<int>(endpoints.size()); ++i)
    by_label[given ? endpoints[i].label
                   : fmt::format("n{:06}/rail{}", endpoints[i].node, endpoints[i].rail)] = i;
  std::vector<int> to_matrix(t.endpoint_count(), -1);
  for (int ep = 0; ep < t.endpoint_count(); ++ep)
    if (const auto it = by_label.find(t.endpoint_label(ep)); it != by_label.end())
      to_matrix[ep] = it->second;
  CoverageRounds out;
  for (const auto &[label, index] : by_label)
    if (std::find(to_matrix.begin(), to_matrix.end(), index) == to_matrix.end())
      out.missing.push_back(label);
  fabric::CoverageOptions options;
  options.k = k;
  options.seed = seed;
  options.flows_per_pair = 1; // the matrix measures one stream a pair
  const auto plan = fabric::plan_coverage(t, options);
  out.how = plan.how;
  for (const auto &planned : plan.rounds) {
    Round round;
    for (const auto &[a, b] : planned.pairs)
      if (to_matrix[a] >= 0 && to_matrix[b] >= 0)
        round.emplace_back(std::min(to_matrix[a], to_matrix[b]),
                           std::max(to_matrix[a], to_matrix[b]));
    if (!round.empty())
      out.rounds.push_back(std::move(round));
  }
  return out;
}

} // namespace railgauge::rdma
