#pragma once
// The ranks a run names as lost (run.json lost_ranks), as the fleet history keeps them. `check`
// over directories sees every rank's run at once; the history stores one run at a time. A
// survivor is stored excused (check::lost_ranks_elsewhere) until the run of a rank it lost is
// stored naming the survivor's node lost in turn: then neither is excused (the link between
// them, or either node, failed), whichever was stored first.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/run_set.h"

namespace railgauge::history {

using LostRanks = std::vector<std::pair<long long, std::string>>; // (rank, host)

// runs.lost_ranks of a run: JSON [[rank, host], ...], "" when its run.json names none.
std::string stored_lost_ranks(const analysis::LoadedRun &run);
// Those ranks back; none from "" or NULL (a run stored before schema version 8) or bad text.
LostRanks parsed_lost_ranks(const Value &text);

// The host of a rank that the run (`run_id` on `host`, naming `lost` as lost) lost whose stored
// run names `host` lost in turn, or nothing. Each such stored run that was excused by its loss
// is judged again: its run-complete words say so, and its failed records count the point the loss
// broke.
std::optional<std::string> lost_in_turn_stored(Database &db, const std::string &run_id,
                                               const std::string &host, const LostRanks &lost);

// Holds, until the transaction ends, every other ingest of run `run_id` that names lost ranks.
// Two ranks that name each other lost, ingested at once into PostgreSQL (READ COMMITTED), would
// each miss the other's uncommitted row and both stay excused; the second now waits for the
// first's commit and reads it. SQLite's BEGIN IMMEDIATE serializes every ingest already.
void lock_lost_ranks_of(Database &db, const std::string &run_id);

// The excuse of a stored run's run-complete that a lost rank stopped ("stopped by lost rank 1 on
// node-b; 6 of 9 planned points not measured (not passed)"), read back from runs.incomplete; none
// for a run not so excused.
std::optional<std::string> lost_rank_excuse(const std::string &incomplete);

// Whether the error record with `reason` is the point at which a run whose incomplete is that
// stopped (check::is_point_that_stopped_the_run, from the failure run.json gave).
bool stopped_at(const std::string &incomplete, const std::string &reason);

} // namespace railgauge::history
