#pragma once
// The coverage ledger: which links were exercised, when and how, one JSON line per link and
// round in the run directory (fabric_ledger.jsonl), appended as the rounds run:
//
//   {"link":"node0017/mlx5_3 - leaf-r3-g00[18]","kind":"nic_leaf","time_s":1795000000.0,
//    "round":2,"phase":"coverage","flows":8,"bad":0}
//
// (with "via" when a benchmark wrote it: "rdma.pair_matrix write").
//
// Links are keyed by their label (the cable's two ports), so a ledger outlives a re-read of
// the topology. `--cover-since DURATION` plans only the links with no line newer than that:
// a canary on idle nodes covers what the fleet's jobs have not.
#include <map>
#include <string>
#include <vector>

#include "rdma/fabric/flow.h"
#include "rdma/fabric/topology.h"
#include "records/coverage_ledger_file.h"

namespace railgauge::rdma::fabric {

// The file's lines (records/coverage_ledger_file.h: the fleet history reads them too).
using LedgerLine = records::LedgerLine;

// One line per link the flows crossed; a flow is bad under `bad_below_gbps`.
std::vector<LedgerLine> ledger_lines(const Topology &t, const std::vector<FlowObservation> &flows,
                                     double time_s, const std::string &phase,
                                     double bad_below_gbps);
void append_ledger(const std::string &path, const std::vector<LedgerLine> &lines);
std::vector<LedgerLine> read_ledger(const std::string &path); // none when there is no file

// The links with no ledger line at or after `since_s` (all links when the ledger is empty).
std::vector<int> links_not_exercised_since(const Topology &t, const std::vector<LedgerLine> &ledger,
                                           double since_s);

// "90s", "30m", "12h", "7d", "2w" (a bare number is seconds); throws InputError naming `flag`.
double parse_duration_s(const std::string &text, const std::string &flag);

} // namespace railgauge::rdma::fabric
