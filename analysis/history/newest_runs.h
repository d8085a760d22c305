#pragma once
// The newest runs of the fleet history, as `check --latest-per-host` keeps them over directories
// (analysis/run_set.h): per host, suite, world size (run.json world.size), ranks of the run on
// the host and machine (analysis/run_machines.h), every row (each rank) of the run id whose
// earliest rank started last (then the greatest run id), and an older run's rows wherever the
// newer runs did not measure every point it measured (analysis/run_points.h). Not the rows of the
// latest start_utc: under mpirun each rank dates its own run.json. Not one run per suite: a burn-in
// runs one suite at several world sizes, and a node's failed 8-rank step is not superseded by its
// fabric step. Not one run per host name: VMs of one image all named "vm" are several machines, and
// one's newer healthy run never hides another's slow GPU. Every import is judged: all imports of
// one tool share a suite and are dated by the import (one file imported twice is one run: its run
// id carries the file's digest). So is every bare records.jsonl (source kBareRecordsSource):
// without a run.json it cannot be dated, and `check --latest-per-host` keeps every one.
//
// The history also knows when it stored each run (ingested_utc: the database server's clock on
// PostgreSQL, the writing machine's on SQLite; and the row id, the order of storing), which a
// node's clock cannot move. A run that says it started more than an hour after it was stored had
// its clock ahead: it is dated by when it was stored (dated by its clock, it stayed the newest
// until that date and hid every run stored before then). A run stored more than an hour after a
// run of its host that says it started later (one ingest of a tree stores its runs in the order
// of their paths, not of their starts) is of a clock behind or an old run ingested late: it is
// dated by when it was stored, so the failed retest of a node whose clock was reset is its
// newest run. Which of the two it is the history cannot tell, so the newest run by start is
// judged beside it until runs of two later ingests are stored after that one: an old run
// ingested late never passes a node whose newest run failed, and a node repaired behind a reset
// clock passes again after two retests.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/run_machines.h"

namespace railgauge::history {

struct NewestRuns {
  // The runs table's ids of the newest rows, for `ru.id IN (...)`: "NULL" when there are none.
  std::string ids;
  // The same rows, ascending: what a reader tests a row against (std::binary_search).
  std::vector<std::int64_t> rows;
  // Host names that newest runs of more than one machine report (check's built-in
  // one-machine-per-host), each machine named by its id and a run directory.
  std::vector<analysis::SharedHostName> shared_host_names;
  // Each railgauge run's rows (runs table ids) -> the UTC seconds it is ordered by: its earliest
  // rank's start, or when it was stored where its start cannot date it.
  std::unordered_map<std::int64_t, double> order_s;
  // What the dating could not trust, a line each: host, then what and why.
  std::vector<std::pair<std::string, std::string>> dating_problems;
  // Each older run judged beside newer ones of its host and suite, as they did not measure all
  // it measured (analysis/run_points.h): host, then which run and why.
  std::vector<std::pair<std::string, std::string>> kept_beside;
  // Of each such run's rows, the points the newer runs measured again (records.point): its
  // records of these are not judged.
  std::map<std::int64_t, std::set<std::uint64_t>> measured_again;
  // Per host, the GPU UUIDs the inventories of its newest runs list: the GPUs it has now.
  std::map<std::string, std::set<std::string>> gpus_of_host;
};

// Reads every stored run's host, suite, world, start and machine (its inventory's machine id and
// GPU UUIDs): the machines are told apart over the whole history, as over every directory given.
NewestRuns newest_runs(Database &db);

// A line for the hosts (of `wanted`; every host when empty) whose newest run is more than 14 days
// older than the history's newest, the oldest named; nothing where none is. A retired node's last
// FAIL stayed on the drain list months on, and nothing dated it. Then a line for each of them
// whose every GPU (by UUID, in its newest runs' inventories) is in the newest runs of one other
// host that ran later: a machine renamed, not retired.
std::vector<std::string> hosts_not_run_lately(Database &db, const std::set<std::string> &wanted,
                                              const NewestRuns &dating);

} // namespace railgauge::history
