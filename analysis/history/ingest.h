#pragma once
// `railgauge db ingest`: run directories into the fleet history. A run is keyed by its
// manifest's run id, host and rank, so ingesting it again changes nothing unless it changed
// (then its newer state replaces the stored one); each run is one
// transaction, so a run is in the database whole or not at all; and a run that another process
// ingests at the same moment is stored once (the unique key decides, the loser skips it).
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/history/unreadable_paths.h"
#include "analysis/run_set.h"

namespace railgauge::history {

struct IngestOutcome {
  std::string run_id;
  std::string host;
  bool added = false;         // stored now (new, or refreshed); false: the database held it already
  bool refreshed = false;     // the database held an older state of the run, now replaced
  bool fuller_stored = false; // not stored: the database holds a copy with more records
  std::string before;         // refreshed or not stored: what the database held
  long long records = 0; // the run's records (the per-GPU parts stored beside them not counted)
  long long figures = 0; // records with a figure a part's history trends
  long long ledger_lines = 0; // its coverage ledger's lines (analysis/history/ledger_rows.h)
};

// Stores the run, or refreshes the state the database holds of it when the run has changed
// since (more records, another status or completeness: a run ingested while it was written, cut
// short, or resumed); a copy with fewer records than the one stored is not stored. `unread`:
// the run's files that could not be read whole ("path: why"), stored with its completeness so
// that the history judges the run as `check` judges its directory. Throws RunNotStorable
// (storable_text.h) for a run the database cannot hold as it is, before anything is sent.
IngestOutcome ingest_run(Database &db, const analysis::LoadedRun &run,
                         const std::vector<std::string> &unread = {});

// The metric a record's history trends ("" when none): the first of tflops,
// busbw_gbytes_per_s, bandwidth_gbytes_per_s, bandwidth_gbits_per_s it holds as a number.
// Every one is higher-is-better.
std::string figure_metric(const nlohmann::json &metrics);

} // namespace railgauge::history
