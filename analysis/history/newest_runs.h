#pragma once
// The newest runs of the fleet history, as `check --latest-per-host` keeps them over directories
// (analysis/run_set.h): per host, suite, world size (run.json world.size), ranks of the run on
// the host and machine (analysis/run_machines.h), every row (each rank) of the run id whose
// earliest rank started last (then the greatest run id). Not the rows of the latest start_utc:
// under mpirun each rank dates its own run.json. Not one run per suite: a burn-in runs one suite
// at several world sizes, and a node's failed 8-rank step is not superseded by its fabric step.
// Not one run per host name: VMs of one image all named "vm" are several machines, and one's
// newer healthy run never hides another's slow GPU. Every import is judged: all imports of one
// tool share a suite and are dated by the import (one file imported twice is one run: its run
// id carries the file's digest). So is every bare records.jsonl (source kBareRecordsSource):
// without a run.json it cannot be dated, and `check --latest-per-host` keeps every one.
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/run_machines.h"

namespace railgauge::history {

struct NewestRuns {
  // The runs table's ids of the newest rows, for `ru.id IN (...)`: "NULL" when there are none.
  std::string ids;
  // Host names that newest runs of more than one machine report (check's built-in
  // one-machine-per-host), each machine named by its id and a run directory.
  std::vector<analysis::SharedHostName> shared_host_names;
};

// Reads every stored run's host, suite, world, start and machine (its inventory's machine id and
// GPU UUIDs): the machines are told apart over the whole history, as over every directory given.
NewestRuns newest_runs(Database &db);

} // namespace railgauge::history
