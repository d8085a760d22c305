#pragma once
// The NIC-pair matrix and bad-pair isolation, as pure functions (no I/O), so that schedules
// and verdicts are tested exhaustively on simulated fleets.
//
// Schedule: the circle method (round-robin tournament) gives n-1 rounds of disjoint pairs for
// even n (n rounds for odd n, one endpoint idle per round), so every pair meets exactly once
// and every endpoint is busy with at most one partner at a time. Rail-aligned (default): NIC i
// of node a meets NIC i of node b, all rails of a round at once; all-to-all: every pair of
// endpoints on different nodes, in k sub-rounds per round of nodes (k NICs per node).
//
// Verdict (ClusterKit's defaults, HPC-X docs "Running ClusterKit"): a pair is bad when its
// latency exceeds k x the fleet's minimum (k = 2.1) or its bandwidth is under x of the fleet's
// maximum (x = 0.93). Isolation: the endpoint common to several bad pairs (or both ends of a
// lone bad pair) is re-tested against known-good
// partners (same rail when rail-aligned); an endpoint whose retests
// are bad is named (a NIC, its cable or switch port); a node whose every tested endpoint is
// bad is named as the node; a bad pair whose both ends retest good names the path between them.
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railgauge::rdma {

struct FabricEndpoint {
  int node = 0;      // index of the node (host)
  int rail = 0;      // NIC index on the node
  std::string label; // "node017/mlx5_3"
};

using EndpointPair = std::pair<int, int>; // indices into the endpoint list, first < second
using Round = std::vector<EndpointPair>;

enum class PairMode { rail_aligned, all_to_all };

// Rounds of the circle method over n participants 0..n-1.
std::vector<Round> circle_rounds(int n);
// Rounds over endpoints: rail-aligned or all-to-all; never pairs two endpoints of one node, and
// in each round a node meets at most one other node (so no rank waits on two partners at once).
std::vector<Round> fabric_rounds(const std::vector<FabricEndpoint> &endpoints, PairMode mode);
// Packs arbitrary pairs greedily into rounds where a node meets at most one other (retests).
std::vector<Round> pack_rounds(const std::vector<EndpointPair> &pairs,
                               const std::vector<FabricEndpoint> &endpoints);

struct PairResult {
  EndpointPair pair;
  double latency_s = 0;
  double bandwidth_gbits_per_s = 0;
};

struct PairThresholds {
  double latency_factor = 2.1;      // bad: latency > factor x fleet minimum
  double bandwidth_fraction = 0.93; // bad: bandwidth < fraction x fleet maximum
};

struct FleetReference {
  double min_latency_s = 0;
  double max_bandwidth_gbits_per_s = 0;
};

FleetReference fleet_reference(const std::vector<PairResult> &results);
// "" when the pair is good, else why it is bad.
std::string judge_pair(const PairResult &r, const FleetReference &ref, const PairThresholds &t);

struct BadPair {
  EndpointPair pair;
  std::string why;
};
std::vector<BadPair> find_bad_pairs(const std::vector<PairResult> &results,
                                    const PairThresholds &t);

struct IsolationPlan {
  std::vector<int> suspects;   // endpoints of bad pairs
  std::vector<int> known_good; // in no bad pair, or explained by a prime suspect
  std::vector<EndpointPair> retests;
};
// Each suspect against up to `partners` known-good endpoints on other nodes (same rail when
// rail-aligned), spread over the known-good ones.
IsolationPlan plan_isolation(const std::vector<FabricEndpoint> &endpoints,
                             const std::vector<BadPair> &bad, PairMode mode, int partners = 2);

struct Finding {
  std::string kind; // "nic", "node", "path", "inconclusive" or "fleet"
  std::vector<int> endpoints;
  std::string text; // "node 3 rail 2 (node3/mlx5_2): 2 of 2 retests bad against known-good ..."
};
// When most pairs are bad, no single part explains it and the fleet reference itself is in
// doubt (a noisy measurement, or a fabric-wide problem such as congestion control or a
// misconfigured switch): a "fleet" finding that says so, else nullopt.
std::optional<Finding> fleet_finding(std::size_t pairs, std::size_t bad_pairs);

// Judges the retests against the first matrix's fleet reference and names the culprits.
std::vector<Finding> conclude_isolation(const std::vector<FabricEndpoint> &endpoints,
                                        const std::vector<BadPair> &bad, const IsolationPlan &plan,
                                        const std::vector<PairResult> &retests,
                                        const FleetReference &ref, const PairThresholds &t);

} // namespace railgauge::rdma
