#pragma once
// What the fleet history stores of a run directory in its runs row (schema.h), read once from
// its run.json and records by `db ingest` (ingest.h).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/history/lost_ranks.h"
#include "analysis/run_set.h"

namespace railgauge::history {

struct RunFacts {
  std::string run_id, host, suite, source, start, end, status;
  std::int64_t rank = 0;
  // What run-complete reads of run.json, and the run's completeness as `check` judges it.
  Value points_planned = nullptr, counts = nullptr, world_size = nullptr, world_rank = nullptr;
  std::string incomplete;
  LostRanks lost;               // the ranks run.json names lost
  std::string lost_ranks;       // runs.lost_ranks (lost_ranks.h), `lost` as stored
  bool excused_by_loss = false; // incomplete begins with check::lost_ranks_elsewhere's excuse
  // run.json's inventory as written ("" when it holds none): the inventory rules read it.
  std::string inventory;
  // FNV-1a 64 of the records as stored, in hex: a run whose records were edited since it was
  // stored (as many, same status) is not "already there".
  std::string records_digest;
  // run.json's plan.digest, the points measured (analysis/run_points.h) and their digest: what a
  // newer run of the host must measure again to supersede this one (newest_runs.h).
  std::string plan_digest, points, points_digest;

  RunFacts(const analysis::LoadedRun &run, const std::vector<std::string> &unread);

  // What ingest refuses before it sends anything: a host name `check` cannot write, and text
  // the database cannot store (storable_text.h).
  void check_storable(const std::string &dir) const;
};

} // namespace railgauge::history
