#pragma once
// The paths an ingest could not read, kept in the unreadable table (schema.h) so that
// `check --history` judges them as `check` over the directories judges a path it cannot read.
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "analysis/run_set.h"

namespace railgauge::history {

// The paths an ingest of `roots` could not read (and the runs it could not store), stored in
// place of those its last ingest of them (or of a directory under them) could not: a path read
// since is no longer held against the fleet. One transaction.
void store_unreadable(Database &db, const std::vector<std::string> &roots,
                      const std::vector<analysis::UnreadablePath> &unreadable);

// The unreadable paths of `set` that are the run's own files, as "path: why".
std::vector<std::string> unread_files_of(const analysis::RunSet &set,
                                         const analysis::LoadedRun &run);

} // namespace railgauge::history
