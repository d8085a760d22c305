#pragma once
// The built-in rule `pair-isolation` (evaluate.h): what a NIC pair matrix concluded of its own
// bad pairs (rdma.pair_matrix, rdma.tcp_pair_matrix; docs/rdma.md, "Pair matrix and isolation"),
// as findings on the parts it names. The matrix retests each suspect against known-good
// partners and names the NIC, the node or the path between two good NICs; its record is rank
// 0's, so a rule on a metric of it would charge rank 0's host with every NIC the matrix named,
// and no rule read the findings at all: a burn-in passed nodes whose NIC its own matrix had
// named bad. Pure: check over run directories and over the fleet history judge with it.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check/check_result.h"
#include "harness/record.h"

namespace railgauge::check {

inline constexpr const char *kPairIsolationRule = "pair-isolation";

// rdma.pair_matrix or rdma.tcp_pair_matrix.
bool is_pair_matrix(const std::string &key);

struct PairIsolation {
  // Every measured endpoint's part once (its NIC; its node over TCP) whose host's own run of the
  // matrix is judged, with whether it passed: no finding on it, nor a `node` finding on its host.
  std::vector<std::pair<PartKey, bool>> tallies;
  // A named NIC or node fails (warns where more than half the pairs are bad, and the matrix says
  // its findings are in doubt); the path between two good NICs warns on both (the cable or
  // switch hop between them, no fault of either node); a bad pair with no known-good partner to
  // retest against, the fleet finding and an endpoint in no pair warn as missing on the parts
  // they name. A part whose host's own run of the matrix is not among the runs judged (another
  // host's newest run superseded it, or its directory was not given) is said on the node that
  // holds the record, at warn: never passed, never failed on another run's word.
  std::vector<std::pair<PartKey, Finding>> findings;
};

// What the matrix of an ok record concluded; nullopt for a record that holds no matrix (another
// rank's record of it, which holds its port counters alone). `run_dirs`: each host whose own run
// of the matrix (the record's run id) is among the runs judged, and its directory, in which its
// findings are filed.
std::optional<PairIsolation> pair_isolation(const Record &r, const std::string &run_dir,
                                            const std::map<std::string, std::string> &run_dirs);

} // namespace railgauge::check
