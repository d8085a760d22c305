#pragma once
// Whether a run holds what its own run.json says it should: the evidence behind the built-in
// rule run-complete (evaluate.h). A run cut short passes no rule by the records it has.
#include <string>
#include <vector>

#include "analysis/run_set.h"

namespace railgauge::check {

// Why a run is not whole, by its own run.json: a status other than `complete`, fewer records
// than `points_planned`, or per-status `counts` that disagree with the records read (a record
// line cut in half). Empty when it is whole, or when run.json does not state these (a run
// written by hand, records.jsonl alone).
std::vector<std::string> incompleteness(const analysis::LoadedRun &run);

// A run of several ranks (run.json world.size > 1) of which fewer ranks were read than it had:
// the hosts of the ranks read, and why. The ranks not given are nodes the verdict would never
// name (a directory of one node's ranks, a copy that lost some): each host read is not whole.
struct MissingRanks {
  std::string run;                // the run id
  std::vector<std::string> hosts; // of the ranks read, sorted
  std::string why;
};
std::vector<MissingRanks> missing_ranks(const analysis::RunSet &runs);

// One rank of a run as its run.json states it: the fleet history judges the ranks it stored.
struct RankOfRun {
  std::string run, host;
  long long world_size = 0, world_rank = 0;
};
std::vector<MissingRanks> missing_ranks(const std::vector<RankOfRun> &ranks);

} // namespace railgauge::check
