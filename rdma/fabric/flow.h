#pragma once
// What the planner asks for and what a round measures. A flow is one queue pair between two
// NICs with its own source port (RoCE) or path (InfiniBand); where ECMP picks the uplink by a
// hash of the flow, different flows of one pair take different uplinks.
#include <cstdint>
#include <utility>
#include <vector>

namespace railgauge::rdma::fabric {

using NicPair = std::pair<int, int>; // endpoint indices (Topology::endpoint), first < second

struct PlannedRound {
  std::vector<NicPair> pairs; // no node meets two others in one round
  int flows_per_pair = 1;
};

// One flow's result. `path` is the links it crossed, as traced (the subnet manager's routes on
// InfiniBand, the flow's hash path on RoCE): the planner cannot pick an ECMP uplink ahead, but
// the localiser reads where each flow went.
struct FlowObservation {
  int a = 0, b = 0; // endpoints: a sends, b receives
  int flow = 0;
  int round = 0;
  std::vector<int> path;
  double bandwidth_gbps = 0;
};

} // namespace railgauge::rdma::fabric
