#include "rdma/pair_matrix.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

namespace railgauge::rdma {
namespace {

EndpointPair ordered(int a, int b) { return a < b ? EndpointPair{a, b} : EndpointPair{b, a}; }

std::string name_of(const std::vector<FabricEndpoint> &eps, int i) {
  const auto &e = eps[static_cast<std::size_t>(i)];
  return e.label.empty() ? fmt::format("node {} rail {}", e.node, e.rail) : e.label;
}

} // namespace

std::vector<Round> circle_rounds(int n) {
  std::vector<Round> rounds;
  if (n < 2)
    return rounds;
  // Odd n: a phantom participant n; whoever meets it sits the round out.
  const int m = n % 2 == 0 ? n : n + 1;
  for (int r = 0; r < m - 1; ++r) {
    Round round;
    // Participant m-1 stays put; the others rotate: position i holds (r + i) mod (m - 1).
    for (int i = 0; i < m / 2; ++i) {
      const int a = i == 0 ? m - 1 : (r + i) % (m - 1);
      const int b = (r + m - 1 - i) % (m - 1);
      if (a < n && b < n)
        round.push_back(ordered(a, b));
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<Round> fabric_rounds(const std::vector<FabricEndpoint> &endpoints, PairMode mode) {
  // The circle over nodes; in each round a node meets one other node only, so a rank (one per
  // node, or one per NIC) never waits on two partners in one round. Rail-aligned: every rail of
  // the node pair at once. All-to-all: k sub-rounds of the node round, the s-th pairing NIC i
  // with NIC (i + s) mod k of the other node, so every NIC pair of the two nodes meets once.
  std::map<int, std::vector<int>> by_node; // node -> endpoints in rail order
  for (std::size_t i = 0; i < endpoints.size(); ++i)
    by_node[endpoints[i].node].push_back(static_cast<int>(i));
  std::vector<int> nodes;
  std::size_t k = 0;
  for (auto &[node, eps] : by_node) {
    std::sort(eps.begin(), eps.end(), [&](int x, int y) {
      return endpoints[static_cast<std::size_t>(x)].rail <
             endpoints[static_cast<std::size_t>(y)].rail;
    });
    nodes.push_back(node);
    k = std::max(k, eps.size());
  }
  std::vector<Round> rounds;
  for (const Round &node_round : circle_rounds(static_cast<int>(nodes.size()))) {
    const std::size_t shifts = mode == PairMode::all_to_all ? k : 1;
    for (std::size_t s = 0; s < shifts; ++s) {
      Round r;
      for (const auto &[a, b] : node_round) {
        const auto &eps_a = by_node[nodes[static_cast<std::size_t>(a)]];
        const auto &eps_b = by_node[nodes[static_cast<std::size_t>(b)]];
        for (std::size_t i = 0; i < eps_a.size(); ++i) {
          if (mode == PairMode::all_to_all) {
            if (const std::size_t j = (i + s) % k; j < eps_b.size())
              r.push_back(ordered(eps_a[i], eps_b[j]));
            continue;
          }
          const int rail = endpoints[static_cast<std::size_t>(eps_a[i])].rail;
          for (int e : eps_b)
            if (endpoints[static_cast<std::size_t>(e)].rail == rail)
              r.push_back(ordered(eps_a[i], e));
        }
      }
      if (!r.empty())
        rounds.push_back(std::move(r));
    }
  }
  return rounds;
}

std::vector<Round> pack_rounds(const std::vector<EndpointPair> &pairs,
                               const std::vector<FabricEndpoint> &endpoints) {
  // Node-disjoint rounds, for the same reason as above: a node (its rank or ranks) meets at
  // most one other node per round.
  const auto node = [&](int e) { return endpoints[static_cast<std::size_t>(e)].node; };
  std::vector<Round> rounds;
  std::vector<std::set<int>> busy;
  for (const auto &p : pairs) {
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r].count(node(p.first)) || busy[r].count(node(p.second))))
      ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].push_back(ordered(p.first, p.second));
    busy[r].insert(node(p.first));
    busy[r].insert(node(p.second));
  }
  return rounds;
}

FleetReference fleet_reference(const std::vector<PairResult> &results) {
  FleetReference ref{std::numeric_limits<double>::infinity(), 0};
  for (const auto &r : results) {
    if (r.latency_s > 0)
      ref.min_latency_s = std::min(ref.min_latency_s, r.latency_s);
    ref.max_bandwidth_gbits_per_s =
        std::max(ref.max_bandwidth_gbits_per_s, r.bandwidth_gbits_per_s);
  }
  if (results.empty())
    ref.min_latency_s = 0;
  return ref;
}

std::string judge_pair(const PairResult &r, const FleetReference &ref, const PairThresholds &t) {
  std::string why;
  if (r.latency_s <= 0 || r.bandwidth_gbits_per_s <= 0)
    return "no result (the pair failed to run)";
  if (ref.min_latency_s > 0 && r.latency_s > t.latency_factor * ref.min_latency_s)
    why = fmt::format("latency {:.3g} us > {} x fleet minimum {:.3g} us", r.latency_s * 1e6,
                      t.latency_factor, ref.min_latency_s * 1e6);
  if (r.bandwidth_gbits_per_s < t.bandwidth_fraction * ref.max_bandwidth_gbits_per_s)
    why += fmt::format("{}bandwidth {:.4g} Gb/s < {} x fleet maximum {:.4g} Gb/s",
                       why.empty() ? "" : "; ", r.bandwidth_gbits_per_s, t.bandwidth_fraction,
                       ref.max_bandwidth_gbits_per_s);
  return why;
}

std::vector<BadPair> find_bad_pairs(const std::vector<PairResult> &results,
                                    const PairThresholds &t) {
  const FleetReference ref = fleet_reference(results);
  std::vector<BadPair> bad;
  for (const auto &r : results)
    if (std::string why = judge_pair(r, ref, t); !why.empty())
      bad.push_back({r.pair, std::move(why)});
  return bad;
}

IsolationPlan plan_isolation(const std::vector<FabricEndpoint> &endpoints,
                             const std::vector<BadPair> &bad, PairMode mode, int partners) {
  IsolationPlan plan;
  // The endpoint common to several bad pairs is the prime suspect; an endpoint whose every
  // bad pair includes a prime suspect is explained by it and cleared. A bad pair with no
  // prime suspect in it puts both its ends under suspicion (a NIC, or the path between them).
  std::map<int, int> bad_count;
  for (const auto &b : bad) {
    ++bad_count[b.pair.first];
    ++bad_count[b.pair.second];
  }
  std::set<int> suspects;
  for (const auto &[e, count] : bad_count)
    if (count >= 2)
      suspects.insert(e);
  for (const auto &b : bad)
    if (!suspects.count(b.pair.first) && !suspects.count(b.pair.second)) {
      suspects.insert(b.pair.first);
      suspects.insert(b.pair.second);
    }
  for (int i = 0; i < static_cast<int>(endpoints.size()); ++i)
    (suspects.count(i) ? plan.suspects : plan.known_good).push_back(i);
  // Round-robin over the known-good endpoints so no single partner carries every retest.
  std::size_t cursor = 0;
  for (int s : plan.suspects) {
    const auto &es = endpoints[static_cast<std::size_t>(s)];
    int found = 0;
    for (std::size_t k = 0; k < plan.known_good.size() && found < partners; ++k) {
      const int g = plan.known_good[(cursor + k) % plan.known_good.size()];
      const auto &eg = endpoints[static_cast<std::size_t>(g)];
      if (eg.node == es.node || (mode == PairMode::rail_aligned && eg.rail != es.rail))
        continue;
      plan.retests.push_back(ordered(s, g));
      ++found;
    }
    ++cursor;
  }
  return plan;
}

std::optional<Finding> fleet_finding(std::size_t pairs, std::size_t bad_pairs) {
  if (pairs < 2 || 2 * bad_pairs <= pairs)
    return std::nullopt;
  return Finding{
      "fleet",
      {},
      fmt::format("{} of {} pairs are bad: more than half, so the fleet's best pair is "
                  "the outlier or the whole fabric is slow; the findings below are in "
                  "doubt. Rerun with a longer --time-budget on an idle fabric, and check "
                  "congestion control and switch configuration fleet-wide",
                  bad_pairs, pairs)};
}

std::vector<Finding> conclude_isolation(const std::vector<FabricEndpoint> &endpoints,
                                        const std::vector<BadPair> &bad, const IsolationPlan &plan,
                                        const std::vector<PairResult> &retests,
                                        const FleetReference &ref, const PairThresholds &t) {
  const std::set<int> suspects(plan.suspects.begin(), plan.suspects.end());
  std::map<int, int> tested, failed; // suspect -> retests run / bad
  for (const auto &r : retests) {
    const int s = suspects.count(r.pair.first) ? r.pair.first : r.pair.second;
    ++tested[s];
    if (!judge_pair(r, ref, t).empty())
      ++failed[s];
  }
  std::vector<Finding> findings;
  std::set<int> culprits;
  std::map<int, std::vector<int>> culprits_by_node;
  for (int s : plan.suspects) {
    if (tested[s] == 0)
      continue;
    // Bad when at least half of its retests against known-good partners are bad.
    if (2 * failed[s] >= tested[s]) {
      culprits.insert(s);
      culprits_by_node[endpoints[static_cast<std::size_t>(s)].node].push_back(s);
    }
  }
  std::map<int, int> endpoints_per_node;
  for (const auto &e : endpoints)
    ++endpoints_per_node[e.node];
  for (const auto &[node, eps] : culprits_by_node) {
    if (eps.size() >= 2 && static_cast<int>(eps.size()) == endpoints_per_node[node]) {
      findings.push_back({"node", eps,
                          fmt::format("node {}: all {} of its NICs are bad against known-good "
                                      "partners (the node, not one NIC)",
                                      node, eps.size())});
      continue;
    }
    for (int s : eps)
      findings.push_back(
          {"nic",
           {s},
           fmt::format("{}: {} of {} retests against known-good partners bad (the NIC, its "
                       "cable or its switch port)",
                       name_of(endpoints, s), failed[s], tested[s])});
  }
  for (const auto &b : bad) {
    const int a = b.pair.first, c = b.pair.second;
    if (culprits.count(a) || culprits.count(c))
      continue;
    if (tested[a] > 0 && tested[c] > 0)
      findings.push_back({"path",
                          {a, c},
                          fmt::format("{} <-> {}: bad together ({}), both good with known-good "
                                      "partners (the path between them: a cable or switch hop)",
                                      name_of(endpoints, a), name_of(endpoints, c), b.why)});
    else
      findings.push_back({"inconclusive",
                          {a, c},
                          fmt::format("{} <-> {}: bad ({}), and no known-good partner to retest "
                                      "against",
                                      name_of(endpoints, a), name_of(endpoints, c), b.why)});
  }
  return findings;
}

} // namespace railgauge::rdma
