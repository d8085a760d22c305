#include "rdma/fabric/coverage_plan.h"

#include <algorithm>
#include <cmath>
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

PlannedRound rail_aligned_round(const Topology &t, const std::vector<std::pair<int, int>> &nodes,
                                int flows) {
  PlannedRound round;
  round.flows_per_pair = flows;
  for (const auto &[x, y] : nodes)
    for (int r = 0; r < t.rails; ++r) {
      const int a = t.endpoint(x, r), b = t.endpoint(y, r);
      if (t.nic_link[a] >= 0 && t.nic_link[b] >= 0)
        round.pairs.emplace_back(std::min(a, b), std::max(a, b));
    }
  return round;
}

// P(every wanted uplink crossed k times) after `rounds`, each uplink independent (a close
// approximation: the counts of one leaf's uplinks are multinomial, slightly anticorrelated).
double uplink_probability(const Topology &t, const std::vector<int> &uplinks,
                          const std::vector<std::vector<int>> &leaf_nodes, int rounds, int flows,
                          int k) {
  double log_p = 0;
  for (int l : uplinks) {
    const int leaf = t.links[l].leaf;
    const int trials = static_cast<int>(leaf_nodes[leaf].size()) * flows * rounds;
    const double p = 1.0 / static_cast<double>(t.leaf_uplinks[leaf].size());
    log_p += std::log(std::max(1e-300, binomial_at_least(trials, p, k)));
  }
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
  for (int l : wanted) {
    if (t.links[l].kind == LinkKind::leaf_spine)
      uplinks.push_back(l);
    else
      nodes_set.insert(t.links[l].node);
  }
  // Uplinks are crossed by flows of their leaf's NICs: those nodes take part too.
  const auto leaf_nodes = nodes_by_leaf(t);
  for (int l : uplinks)
    nodes_set.insert(leaf_nodes[t.links[l].leaf].begin(), leaf_nodes[t.links[l].leaf].end());
  CoveragePlan plan;
  const auto probability = [&](int rounds) {
    return uplink_probability(t, uplinks, leaf_nodes, rounds, options.flows_per_pair, options.k);
  };
  int rounds = options.k;
  while (rounds < options.max_rounds && probability(rounds) < options.target_probability)
    ++rounds;
  plan.probability = probability(rounds);
  // With every node in the matching, a partner is always found; a canary on a few idle nodes
  // pairs them with each other.
  const std::vector<int> nodes(nodes_set.begin(), nodes_set.end());
  const auto leaves = node_leaves(t);
  std::mt19937_64 rng(options.seed);
  for (int r = 0; r < rounds; ++r)
    plan.rounds.push_back(
        rail_aligned_round(t, random_matching(nodes, leaves, rng), options.flows_per_pair));
  plan.how = fmt::format("{} rounds x {} flows a pair over {} nodes: every NIC cable crossed {} "
                         "times, every one of {} uplinks at least {} times with probability "
                         "{:.4f} (ECMP picks the uplink)",
                         rounds, options.flows_per_pair, nodes.size(), rounds, uplinks.size(),
                         options.k, plan.probability);
  return plan;
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
  // As many partners again, drawn from the other nodes, so that each needy node can cross.
  std::mt19937_64 rng(options.seed ^ 0x70b0u);
  std::vector<int> others;
  for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n)
    if (!needy.count(n))
      others.push_back(n);
  std::shuffle(others.begin(), others.end(), rng);
  std::vector<int> nodes(needy.begin(), needy.end());
  nodes.insert(nodes.end(), others.begin(), others.begin() + std::min(others.size(), needy.size()));
  return {rail_aligned_round(t, random_matching(nodes, node_leaves(t), rng),
                             2 * options.flows_per_pair)};
}

} // namespace railgauge::rdma::fabric
