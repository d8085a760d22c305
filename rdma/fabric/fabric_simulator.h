#pragma once
// A fabric simulator for the tests: routes flows over a Topology the way a fat tree does (ECMP
// by a hash of the flow's endpoints and id) and gives each flow a synthetic bandwidth, the
// smallest capacity along its path times a little noise. Faults: a bad cable (a NIC's cable or
// leaf port, or an uplink) caps its links' capacity; a flapping port is down for a share of
// the flows that cross it. The planner, the localiser and their verdicts are the real code;
// only the measurements are made up.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rdma/fabric/flow.h"
#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

enum class FaultKind { bad_cable, bad_uplink, flapping_port };

struct Fault {
  FaultKind kind = FaultKind::bad_cable;
  int link = 0;
  double capacity_fraction = 0.5; // what is left of the link's bandwidth
  double down_share = 0;          // flapping: the share of flows that find it degraded
};

struct SimulatorOptions {
  double link_gbps = 400;
  double noise_sd = 0.02;          // relative, per flow
  double transient_share = 0.0005; // flows hit by a passing disturbance, anywhere
  std::uint64_t seed = 1;
};

class FabricSimulator {
public:
  FabricSimulator(const Topology &topology, SimulatorOptions options);

  void inject(const Fault &fault);
  // A random fault of `kind` on a link of the right kind, with a random severity.
  Fault random_fault(FaultKind kind, std::mt19937_64 &rng) const;

  // The links a flow from endpoint a to b crosses; ECMP picks the spine by the flow's hash.
  std::vector<int> route(int a, int b, int flow) const;
  // Every flow of every pair: flows alternate direction (even a->b, odd b->a).
  std::vector<FlowObservation> run(const PlannedRound &round, int round_index);

private:
  const Topology &topology_;
  SimulatorOptions options_;
  std::vector<double> capacity_;   // per link, a fraction of link_gbps
  std::vector<double> down_share_; // per link
  std::mt19937_64 rng_;
};

std::string fault_kind_name(FaultKind kind);

} // namespace railgauge::rdma::fabric
