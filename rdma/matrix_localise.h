#pragma once
// Localisation from measured pairs (`railgauge fabric localise`): a pair matrix's record (its
// endpoints and pairs) or imported perftest points (one host pair each), placed on the fabric's
// topology, then rdma/fabric/localise.h's verdict and the round that would split its suspects.
//
// A pair's flow climbs an uplink of each leaf when its two NICs sit on different leaves, but
// which one ECMP picked is not traced by the matrix or by perftest. So each leaf's uplinks are
// one suspect here ("leaf03: its uplinks, path not traced"): a bad uplink is named as its leaf's
// uplinks, and the split round (traced flows, or more flows a pair) narrows it to one cable.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rdma/fabric/localise.h"
#include "rdma/fabric/topology.h"
#include "rdma/fabric/topology_readers.h"

namespace railgauge::rdma {

// One measured pair: its two NICs by "host/nic" label, and its bandwidth (0 for an error).
struct MeasuredPair {
  std::string a, b;
  double bandwidth_gbits_per_s = 0;
  std::string error;
};

// The pairs of a pair matrix's metrics (records/rdma_record.h: endpoints and pairs).
std::vector<MeasuredPair> matrix_pairs(const nlohmann::json &metrics, const std::string &where);

struct MatrixLocalisation {
  fabric::Topology topology; // the topology read, with one untraced-uplinks link per leaf
  fabric::Localisation verdict;
  std::vector<std::string> split_pairs; // the round that splits the suspects, "a <-> b"
  int split_flows_per_pair = 0;
  std::vector<std::string> missing; // pairs' NICs the topology does not have
  int pairs = 0, pairs_placed = 0, pairs_errored = 0;
  std::string mapping; // how the pairs' hosts were found in the topology
};

// InputError when no pair can be placed on the topology.
MatrixLocalisation localise_pairs(const std::vector<MeasuredPair> &pairs,
                                  const std::string &topology_path,
                                  const fabric::LoadOptions &load = {},
                                  const fabric::LocaliseOptions &options = {});

} // namespace railgauge::rdma
