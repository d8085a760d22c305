#pragma once
// `railgauge db ingest`: run directories into the fleet history. A run is keyed by its
// manifest's run id, host and rank, so ingesting it again changes nothing; each run is one
// transaction, so a run is in the database whole or not at all; and a run that another process
// ingests at the same moment is stored once (the unique key decides, the loser skips it).
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/run_set.h"

namespace railgauge::history {

struct IngestOutcome {
  std::string run_id;
  std::string host;
  bool added = false;    // false: the database already held the run
  long long records = 0; // the run's records (the per-GPU parts stored beside them not counted)
  long long figures = 0; // records with a figure a part's history trends
  long long ledger_lines = 0; // its coverage ledger's lines (analysis/history/ledger_rows.h)
};

IngestOutcome ingest_run(Database &db, const analysis::LoadedRun &run);

// Every run directory (one holding records.jsonl) at or under each path, sorted, each once.
// Throws InputError naming a path that does not exist or holds no run.
std::vector<std::string> run_directories(const std::vector<std::string> &paths);

// The metric a record's history trends ("" when none): the first of tflops,
// busbw_gbytes_per_s, bandwidth_gbytes_per_s, bandwidth_gbits_per_s it holds as a number.
// Every one is higher-is-better.
std::string figure_metric(const nlohmann::json &metrics);

} // namespace railgauge::history
