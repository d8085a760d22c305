#pragma once
// `railgauge fabric plan --cover-since DURATION`: the links no coverage ledger saw exercised
// since then, so that the plan tops up only what has gone stale. The ledgers are the files
// given (--ledger: a run's fabric_ledger.jsonl) and, with --db, the fleet history's ledger
// table (every run `db ingest` or `run --db` stored, on any node).
#include <string>
#include <vector>

#include "analysis/commands/db_command.h"
#include "rdma/fabric/topology.h"

namespace railgauge {

struct StaleLinks {
  std::vector<int> links; // the topology's links with no ledger line since then
  int fresh_nic_cables = 0, fresh_uplinks = 0;
  std::string how; // "cover-since 7d: 30 of 32 NIC cables and 0 of 47 uplinks exercised ..."
};

// InputError for a bad duration, a ledger file that is not one, or no ledger given at all.
StaleLinks stale_links(const rdma::fabric::Topology &t, const std::string &cover_since,
                       const std::vector<std::string> &ledger_files, const history::DbFlags &db,
                       double now_s);

} // namespace railgauge
