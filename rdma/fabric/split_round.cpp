// plan_split_round (localise.h): one adaptive round that tests each suspect link on its own.
#include <algorithm>
#include <set>

#include "rdma/fabric/localise.h"

namespace railgauge::rdma::fabric {
namespace {

// Endpoints whose NIC cable carried flows, few of them bad, and is no suspect.
std::vector<char> known_good(const Topology &t, const std::vector<FlowObservation> &flows,
                             const Localisation &verdict, const std::set<int> &suspects) {
  std::vector<int> total(t.links.size(), 0), bad(t.links.size(), 0);
  for (const auto &f : flows)
    for (int l : f.path) {
      ++total[l];
      bad[l] += f.bandwidth_gbps < 0.93 * verdict.reference_gbps;
    }
  std::vector<char> good(t.endpoint_count(), 0);
  for (int ep = 0; ep < t.endpoint_count(); ++ep) {
    const int l = t.nic_link[ep];
    good[ep] = l >= 0 && !suspects.count(l) && total[l] > 0 && 4 * bad[l] <= total[l];
  }
  return good;
}

struct Picker {
  const Topology &t;
  const std::vector<char> &good;
  std::vector<char> node_busy;

  // A known-good endpoint on `rail` of a free node, on `leaf` (same) or off it (!same).
  int find(int rail, int leaf, bool same, int skip_node) {
    for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n) {
      const int ep = t.endpoint(n, rail);
      if (node_busy[n] || n == skip_node || !good[ep])
        continue;
      if ((t.leaf_of_endpoint(ep) == leaf) == same)
        return ep;
    }
    return -1;
  }
  void take(int ep) { node_busy[ep / t.rails] = 1; }
};

std::set<int> suspects_of(const Localisation &verdict, const LocaliseOptions &options) {
  std::set<int> suspects;
  for (const auto &n : verdict.named)
    if (n.confidence < options.confident) {
      suspects.insert(n.link);
      for (std::size_t i = 0; i < std::min<std::size_t>(3, n.rivals.size()); ++i)
        suspects.insert(n.rivals[i]);
    }
  return suspects;
}

} // namespace

PlannedRound plan_split_round(const Topology &t, const Localisation &verdict,
                              const std::vector<FlowObservation> &flows, int flows_per_pair,
                              const LocaliseOptions &options) {
  const auto suspects = suspects_of(verdict, options);
  PlannedRound round;
  if (suspects.empty())
    return round;
  const auto good = known_good(t, flows, verdict, suspects);
  Picker pick{t, good, std::vector<char>(t.nodes.size(), 0)};
  for (int s : suspects) {
    const auto &link = t.links[s];
    if (link.kind == LinkKind::nic_leaf) {
      const int ep = t.endpoint(link.node, link.rail);
      if (pick.node_busy[link.node])
        continue;
      int partner = pick.find(link.rail, link.leaf, true, link.node);
      if (partner < 0) // alone on its leaf: across the spines, the uplinks known good by now
        partner = pick.find(link.rail, link.leaf, false, link.node);
      if (partner < 0)
        continue;
      pick.take(ep), pick.take(partner);
      round.pairs.emplace_back(std::min(ep, partner), std::max(ep, partner));
      continue;
    }
    // An uplink: four known-good NICs of its leaf, each to a known-good NIC elsewhere.
    for (int i = 0; i < 4; ++i) {
      int here = -1;
      for (int r = 0; r < t.rails && here < 0; ++r)
        here = pick.find(r, link.leaf, true, -1);
      if (here < 0)
        break;
      pick.take(here);
      const int there = pick.find(here % t.rails, link.leaf, false, -1);
      if (there < 0)
        break;
      pick.take(there);
      round.pairs.emplace_back(std::min(here, there), std::max(here, there));
    }
  }
  // Four times the first pass's flows: an uplink then gets several of its leaf's flows by
  // ECMP, and a NIC whose few bad flows were chance shows many good ones beside them.
  round.flows_per_pair = 4 * flows_per_pair;
  return round;
}

} // namespace railgauge::rdma::fabric
