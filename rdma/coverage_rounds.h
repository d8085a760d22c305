#pragma once
// The pair matrix's rounds from the coverage planner (rdma/fabric/coverage_plan.h) instead of
// all pairs: `pairing=coverage`. With a topology file (YAML, ibnetdiscover output or an
// lldpctl directory: rdma/fabric/topology_readers.h) the matrix's NICs are found in it by
// their labels ("host/nic"); without one, each rail is taken for one leaf and the plan is k
// random cross-node matchings. A NIC the topology lacks is left out of the rounds and said.
#include <cstdint>
#include <string>
#include <vector>

#include "rdma/pair_matrix.h"

namespace railgauge::rdma {

struct CoverageRounds {
  std::vector<Round> rounds;
  std::string how;                  // the plan's own account, for the record
  std::vector<std::string> missing; // matrix NICs the topology does not have
};

CoverageRounds coverage_rounds(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path, int k, std::uint64_t seed);

} // namespace railgauge::rdma
