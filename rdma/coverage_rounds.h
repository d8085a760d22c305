#pragma once
// The pair matrix's rounds from the coverage planner (rdma/fabric/coverage_plan.h) instead of
// all pairs: `pairing=coverage`. With a topology file (YAML, ibnetdiscover output or an
// lldpctl directory: rdma/fabric/topology_readers.h) the matrix's NICs are found in it by
// their hosts and NICs (matrix_topology() says how); without one, each rail is taken for one leaf
// and the plan is k random cross-node matchings. A NIC the topology lacks is left out of the rounds
// and said.
#include <cstdint>
#include <string>
#include <vector>

#include "rdma/fabric/coverage_ledger.h"
#include "rdma/fabric/topology.h"
#include "rdma/fabric/topology_readers.h"
#include "rdma/pair_matrix.h"

namespace railgauge::rdma {

// The matrix's endpoints in the fabric's topology (or in one leaf per rail without one).
struct MatrixTopology {
  fabric::Topology topology;
  std::vector<int> to_matrix;       // planner endpoint -> matrix endpoint, -1 if not in the matrix
  std::vector<int> nic_link;        // matrix endpoint -> its NIC cable's link, -1 if unknown
  std::vector<std::string> missing; // matrix NICs the topology does not have
  // With a topology: how the endpoints were found in it, for the record.
  std::string mapping;
};

// With a topology file, each matrix endpoint is found by its host and NIC: a host by its name,
// else by its short name (one side fully qualified) when that is one node's; a NIC by its name,
// else, where none of a host's names is the topology's (verbs' mlx5_0 and ibnetdiscover's HCA-1),
// by rail order when the host has as many NICs in both; a TCP rank, which has no NIC, is its
// host's NIC in rank order. InputError naming both sides' hosts when fewer than two nodes are
// found: such a matrix would plan no pair.
// `load`: a GUID map or an lldpctl table's host (`railgauge fabric localise` passes its own).
MatrixTopology matrix_topology(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path,
                               const fabric::LoadOptions &load = {});

// `cover_since`: leave out the links the ledger saw exercised at or after `since_s`
// (rdma/fabric/coverage_ledger.h), a canary over what the fleet has not crossed lately.
struct CoverSince {
  bool active = false;
  double since_s = 0;
  std::string text; // as given ("7d"), for the record
  std::vector<fabric::LedgerLine> ledger;
};

struct CoverageRounds {
  std::vector<Round> rounds;
  std::string how;                  // the plan's own account, for the record
  std::vector<std::string> missing; // matrix NICs the topology does not have
};

CoverageRounds coverage_rounds(const std::vector<FabricEndpoint> &endpoints,
                               const std::string &topology_path, int k, std::uint64_t seed,
                               const CoverSince &since = {});

} // namespace railgauge::rdma
