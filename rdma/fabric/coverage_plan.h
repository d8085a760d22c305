#pragma once
// Coverage in few rounds (docs/rdma.md, "Fabric acceptance"). All pairs takes n - 1 rounds;
// what a fabric acceptance needs is every cable crossed, and every cable is crossed by some
// pair in every round. So each round is a random matching of the nodes (rail-aligned: NIC r
// meets NIC r, all rails at once, so a node meets one other node a round), drawn so that
// matched nodes sit on different leaves and the flows climb to the spines. Each round crosses
// every NIC cable once; k rounds cross each k times.
//
// Uplinks are ECMP's to choose: a flow leaving a leaf takes one of its U uplinks by hash,
// which the planner cannot know ahead. With n NICs on a leaf, F flows a pair and R rounds, an
// uplink is crossed Binomial(n F R, 1/U) times (leaving or entering); the planner takes the
// fewest rounds (at least k) at which every uplink reaches k crossings with the target
// probability, and says that probability. The count does not grow with the node count: it
// depends on n F / U and only logarithmically on the number of uplinks. The flows' traced
// paths then say what was covered; top_up() plans for the few links a pass missed.
#include <cstdint>
#include <string>
#include <vector>

#include "rdma/fabric/flow.h"
#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

struct CoverageOptions {
  int k = 2;                        // crossings wanted on every link
  int flows_per_pair = 8;           // queue pairs (source ports) per pair a round
  double target_probability = 0.99; // that every uplink reaches k
  int max_rounds = 16;
  std::uint64_t seed = 1;
};

struct CoveragePlan {
  std::vector<PlannedRound> rounds;
  double probability = 0; // every planned link crossed k times (uplinks by ECMP's chance)
  std::string how;        // "3 rounds x 8 flows a pair: ..." for the run's log
};

// `links`: the links to cover (all when empty), e.g. those not exercised since a time.
CoveragePlan plan_coverage(const Topology &t, const CoverageOptions &options,
                           const std::vector<int> &links = {});

// Per link: the probability that an uplink is crossed at least k times in `rounds` rounds of
// `flows` flows a pair (0 for a leaf alone on its rails), -1 for a NIC cable (crossed once a
// round, surely).
std::vector<double> uplink_probabilities(const Topology &t, int rounds, int flows, int k);

// Crossings per link from traced flows.
std::vector<int> crossings(const Topology &t, const std::vector<FlowObservation> &flows);

// Rounds for the links of `wanted` crossed fewer than k times: a missed NIC cable meets a
// partner, a missed uplink gets its leaf's NICs sent across with more flows. Empty when none.
std::vector<PlannedRound> top_up(const Topology &t, const std::vector<int> &crossed,
                                 const std::vector<int> &wanted, const CoverageOptions &options);

// P(X >= k) for X ~ Binomial(n, p).
double binomial_at_least(int n, double p, int k);

} // namespace railgauge::rdma::fabric
