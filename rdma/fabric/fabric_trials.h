#pragma once
// The simulator on a real topology (`railgauge fabric simulate`): trials of one fault kind, each
// a fresh random fault, a fresh coverage plan and fresh noise, run through the acceptance (plan,
// top-up, localisation, adaptive rounds) as a real run would be; and as many trials without a
// fault, in which any link named is a wrong name. Seeded: the same seed gives the same trials.
#include <cstdint>
#include <string>
#include <vector>

#include "rdma/fabric/fabric_acceptance.h"
#include "rdma/fabric/fabric_simulator.h"

namespace railgauge::rdma::fabric {

struct TrialRates {
  int trials = 0;
  int right = 0; // the injected link named (others may be named beside it)
  int wrong = 0; // a link named that was not injected
  int max_first_pass = 0, max_adaptive = 0;
  std::vector<std::string> misses; // the first few trials that missed or misnamed, said
};

// `faults`: one fault of each kind a trial, on distinct links; none for the no-fault trials.
// Throws InputError when the topology has no link of a fault's kind.
TrialRates run_fault_trials(const Topology &t, const std::vector<FaultKind> &faults, int trials,
                            std::uint64_t seed, const AcceptanceOptions &options = {});

} // namespace railgauge::rdma::fabric
