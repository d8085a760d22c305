#include "rdma/fabric/coverage_plan.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include <fmt/format.h>

namespace railgauge::rdma::fabric {
namespace {

// The leaves of a node's NICs, so that a matching can keep both ends off a shared leaf.
std::vector<std::vector<int>> node_leaves(const Topology &t) {
  std::vector<std::vector<int>> leaves(t.nodes.size());
  for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n)
    for (int r = 0; r < t.rails; ++r)
      leaves[n].push_back(t.leaf_of_endpoint(t.endpoint(n, r)));
  return leaves;
}

bool share_leaf(const std::vector<int> &x, const std::vector<int> &y) {
  for (std::size_t r = 0; r < x.size(); ++r)
    if (x[r] >= 0 && x[r] == y[r])
      return true;
  return false;
}

// A random matching of `nodes` (an odd one out sits idle), repaired by swaps so that matched
// nodes share no leaf where another partner allows.
std::vector<std::pair<int, int>> random_matching(std::vector<int> nodes,
                                                 const std::vector<std::vector<int>> &leaves,
                                                 std::mt19937_64 &rng) {
  std::shuffle(nodes.begin(), nodes.end(), rng);
  const std::size_t m = nodes.size() / 2 * 2;
  for (std::size_t i = 0; i + 1 < m; i += 2) {
    if (!share_leaf(leaves[nodes[i]], leaves[nodes[i + 1]]))
      continue;
    for (std::size_t j = i + 2; j < m; ++j)
      if (!share_leaf(leaves[nodes[i]], leaves[nodes[j]])) {
        std::swap(nodes[i + 1], nodes[j]);
        break;
      }
  }
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t i = 0; i + 1 < m; i += 2)
    pairs.emplace_back(nodes[i], nodes[i + 1]);
  return pairs;
}

// `wanted`: the endpoints whose NIC cable or leaf's uplinks are to be covered (all if empty);
// a pair of two others is left out, so a canary over a few links runs few pairs.
PlannedRound rail_aligned_round(const Topology &t, const std::vector<std::pair<int, int>> &nodes,
                                int flows, const std::vector<char> &wanted = {}) {
  PlannedRound round;
  round.flows_per_pair = flows;
  for (const auto &[x, y] : nodes)
    for (int r = 0; r < t.rails; ++r) {
      const int a = t.endpoint(x, r), b = t.endpoint(y, r);
      if (!wanted.empty() && !wanted[a] && !wanted[b])
        continue;
      if (t.nic_link[a] >= 0 && t.nic_link[b] >= 0)
        round.pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
  return round;
}

// P(one uplink crossed k times) after `rounds`: each flow of its leaf's NICs takes it with
// probability 1/U.
double one_uplink_probability(const Topology &t, int link,
                              const std::vector<std::vector<int>> &leaf_nodes, int rounds,
                              int flows, int k) {
  const int leaf = t.links[link].leaf;
  const int trials = static_cast<int>(leaf_nodes[leaf].size()) * flows * rounds;
  return binomial_at_least(trials, 1.0 / static_cast<double>(t.leaf_uplinks[leaf].size()), k);
}

// P(every wanted uplink crossed k times) after `rounds`, each uplink independent (a close
// approximation: the counts of one leaf's uplinks are multinomial, slightly anticorrelated).
double uplink_probability(const Topology &t, const std::vector<int> &uplinks,
                          const std::vector<std::vector<int>> &leaf_nodes, int rounds, int flows,
                          int k) {
  double log_p = 0;
  for (int l : uplinks)
    log_p += std::log(std::max(1e-300, one_uplink_probability(t, l, leaf_nodes, rounds, flows, k)));
  return std::exp(log_p);
}

// The nodes with a NIC on each leaf.
std::vector<std::vector<int>> nodes_by_leaf(const Topology &t) {
  std::vector<std::vector<int>> out(t.leaves.size());
  for (const auto &l : t.links)
    if (l.kind == LinkKind::nic_leaf)
      out[l.leaf].push_back(l.node);
  return out;
}

// Per leaf: whether another leaf holds NICs of a rail it holds, so that flows between them climb.
std::vector<char> leaves_with_rail_peers(const Topology &t) {
  std::vector<std::set<int>> rails(t.leaves.size());
  std::map<int, std::set<int>> leaves_of_rail;
  for (const auto &l : t.links)
    if (l.kind == LinkKind::nic_leaf) {
      rails[l.leaf].insert(l.rail);
      leaves_of_rail[l.rail].insert(l.leaf);
    }
  std::vector<char> out(t.leaves.size(), 0);
  for (std::size_t leaf = 0; leaf < t.leaves.size(); ++leaf)
    for (int r : rails[leaf])
      out[leaf] |= leaves_of_rail[r].size() > 1;
  return out;
}

// `nodes` and as many others again (all when fewer), drawn at random: partners for them.
std::vector<int> with_partners(const Topology &t, const std::set<int> &nodes,
                               std::mt19937_64 &rng) {
  std::vector<int> others;
  for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n)
    if (!nodes.count(n))
      others.push_back(n);
  std::shuffle(others.begin(), others.end(), rng);
  others.resize(std::min(others.size(), nodes.size()));
  std::vector<int> out(nodes.begin(), nodes.end());
  out.insert(out.end(), others.begin(), others.end());
  return out;
}

} // namespace

double binomial_at_least(int n, double p, int k) {
  if (k <= 0)
    return 1;
  if (n < k)
    return 0;
  // 1 - P(X < k), the terms built in logs so that large n stays finite.
  double below = 0;
  for (int i = 0; i < k; ++i) {
    const double log_term = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                            i * std::log(p) + (n - i) * std::log1p(-p);
    below += std::exp(log_term);
  }
  return std::max(0.0, 1.0 - below);
}

CoveragePlan plan_coverage(const Topology &t, const CoverageOptions &options,
                           const std::vector<int> &links) {
  std::vector<int> wanted = links;
  if (wanted.empty()) {
    wanted.resize(t.links.size());
    std::iota(wanted.begin(), wanted.end(), 0);
  }
  std::vector<int> uplinks;
  std::set<int> nodes_set;
  std::vector<char> wanted_endpoints(t.endpoint_count(), 0);
  std::vector<char> wanted_leaves(t.leaves.size(), 0);
  for (int l : wanted) {
    const auto &link = t.links[l];
    if (link.kind == LinkKind::leaf_spine) {
      uplinks.push_back(l);
      wanted_leaves[link.leaf] = 1;
    } else {
      nodes_set.insert(link.node);
      wanted_endpoints[t.endpoint(link.node, link.rail)] = 1;
    }
  }
  // A leaf alone on its rails sees no rail-aligned flow climb: its uplinks are said, not planned.
  const auto peers = leaves_with_rail_peers(t);
  const auto unreachable = std::partition(uplinks.begin(), uplinks.end(),
                                          [&](int l) { return peers[t.links[l].leaf] != 0; });
  const auto alone = static_cast<int>(uplinks.end() - unreachable);
  uplinks.erase(unreachable, uplinks.end());
  // Uplinks are crossed by flows of their leaf's NICs: those NICs take part too.
  const auto leaf_nodes = nodes_by_leaf(t);
  for (int l : uplinks)
    nodes_set.insert(leaf_nodes[t.links[l].leaf].begin(), leaf_nodes[t.links[l].leaf].end());
  for (int ep = 0; ep < t.endpoint_count(); ++ep)
    if (const int leaf = t.leaf_of_endpoint(ep); leaf >= 0 && wanted_leaves[leaf])
      wanted_endpoints[ep] = 1;
  CoveragePlan plan;
  const auto probability = [&](int rounds) {
    return uplink_probability(t, uplinks, leaf_nodes, rounds, options.flows_per_pair, options.k);
  };
  int rounds = options.k;
  while (rounds < options.max_rounds && probability(rounds) < options.target_probability)
    ++rounds;
  plan.probability = probability(rounds);
  // A canary on a few links matches their nodes with partners drawn from all the others.
  std::mt19937_64 pick(options.seed ^ 0xca4a7u);
  const auto nodes = with_partners(t, nodes_set, pick);
  const auto leaves = node_leaves(t);
  std::mt19937_64 rng(options.seed);
  for (int r = 0; r < rounds; ++r)
    plan.rounds.push_back(rail_aligned_round(t, random_matching(nodes, leaves, rng),
                                             options.flows_per_pair, wanted_endpoints));
  plan.how = fmt::format("{} rounds x {} flows a pair over {} nodes: every NIC cable crossed {} "
                         "times, every one of {} uplinks at least {} times with probability "
                         "{:.4f} (ECMP picks the uplink)",
                         rounds, options.flows_per_pair, nodes.size(), rounds, uplinks.size(),
                         options.k, plan.probability);
  if (alone > 0)
    plan.how += fmt::format("; {} uplinks of leaves alone on their rail cannot be crossed by "
                            "rail-aligned pairs",
                            alone);
  return plan;
}

std::vector<double> uplink_probabilities(const Topology &t, int rounds, int flows, int k) {
  const auto leaf_nodes = nodes_by_leaf(t);
  const auto peers = leaves_with_rail_peers(t);
  std::vector<double> out(t.links.size(), -1);
  for (int l : t.link_indices(LinkKind::leaf_spine))
    out[l] =
        peers[t.links[l].leaf] ? one_uplink_probability(t, l, leaf_nodes, rounds, flows, k) : 0.0;
  return out;
}

std::vector<int> crossings(const Topology &t, const std::vector<FlowObservation> &flows) {
  std::vector<int> count(t.links.size(), 0);
  for (const auto &f : flows)
    for (int l : f.path)
      ++count[l];
  return count;
}

std::vector<PlannedRound> top_up(const Topology &t, const std::vector<int> &crossed,
                                 const std::vector<int> &wanted, const CoverageOptions &options) {
  const auto leaf_nodes = nodes_by_leaf(t);
  std::set<int> needy;
  for (int l : wanted) {
    if (crossed[l] >= options.k)
      continue;
    const auto &link = t.links[l];
    if (link.kind == LinkKind::nic_leaf)
      needy.insert(link.node);
    else
      needy.insert(leaf_nodes[link.leaf].begin(), leaf_nodes[link.leaf].end());
  }
  if (needy.empty())
    return {};
  std::mt19937_64 rng(options.seed ^ 0x70b0u);
  const auto nodes = with_partners(t, needy, rng);
  return {rail_aligned_round(t, random_matching(nodes, node_leaves(t), rng),
                             2 * options.flows_per_pair)};
}

} // namespace railgauge::rdma::fabric
