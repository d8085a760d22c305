#pragma once
// `railgauge run --db URL|env` (and every command that measures): the run, once finished,
// stored in the fleet history (analysis/history). The run directory is written first and
// stays the source of truth: a database that cannot be reached, is locked or is of a newer
// schema costs no record, only the ingest (exit 4, with the command that stores it later).
#include <string>

#include "analysis/commands/db_command.h"
#include "rdma/ledger_place.h"

namespace CLI {
class App;
}

namespace railgauge {

// --db, --db-password-file and --db-timeout-s on `cmd`.
void add_run_db_options(CLI::App &cmd, history::DbFlags &db);

// Before anything is measured: the URL of --db (env: $RAILGAUGE_DB) resolved and checked
// without connecting (scheme, no password in it); "" when --db was not given. InputError when
// it could never be used.
std::string run_db_url(const history::DbFlags &db);

// After the run: its directory ingested into `url` (a note on stderr says what was stored).
// Returns `status` (the run's own exit status), or 4 when the database refused the run.
int ingest_finished_run(const history::DbFlags &db, const std::string &url,
                        const std::string &run_dir, int status);

// The fleet history's coverage ledger, read when a pair matrix plans with cover_since: each
// link's latest time since then, over every run stored (other --out directories, other nodes).
// The database is opened for each read, within --db-timeout-s; a database that cannot be read
// throws, and the point that asked becomes an error naming it.
rdma::StoredLedger stored_ledger(const history::DbFlags &db, const std::string &url);

} // namespace railgauge
