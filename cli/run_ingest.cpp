#include "cli/run_ingest.h"

#include <iostream>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/history/database.h"
#include "analysis/history/ingest.h"
#include "analysis/run_set.h"
#include "harness/error.h"
#include "harness/exit_status.h"

namespace railgauge {

void add_run_db_options(CLI::App &cmd, history::DbFlags &db) {
  cmd.add_option("--db", db.url,
                 "Store the run in the fleet history when it finishes: sqlite:PATH, "
                 "postgresql://[USER@]HOST[:PORT]/DB, or env (the URL in $RAILGAUGE_DB, so that "
                 "it is in no command line). The run directory is written first: a database "
                 "that refuses the run costs no record (exit 4, and the command that stores it "
                 "later)");
  history::add_db_flags(&cmd, db);
}

std::string run_db_url(const history::DbFlags &db) {
  if (db.url.empty())
    return "";
  // "env": the URL in $RAILGAUGE_DB, found as `db` and `check --history` find it.
  history::DbFlags from_env = db;
  if (from_env.url == "env")
    from_env.url.clear();
  const std::string url = history::db_url(from_env, "--db");
  history::check_database_url(url);
  return url;
}

int ingest_finished_run(const history::DbFlags &db, const std::string &url,
                        const std::string &run_dir, int status) {
  try {
    auto database =
        history::open_database(url, {.timeout_s = db.timeout_s, .password_file = db.password_file});
    const auto loaded = analysis::load_runs({run_dir});
    for (const auto &run : loaded.runs) {
      const auto out = history::ingest_run(*database, run, history::unread_files_of(loaded, run));
      std::cerr << fmt::format("railgauge: --db: run {} {} {}{}\n", out.run_id,
                               out.refreshed ? "refreshed in"
                               : out.added   ? "stored in"
                                             : "already in",
                               database->name(),
                               out.added ? fmt::format(" ({} records)", out.records) : "");
    }
    return status;
  } catch (const InputError &e) {
    // The URL as given (it holds no password: check_database_url refused one); `db ingest`
    // reads $RAILGAUGE_DB itself.
    const auto db_flag = db.url == "env" ? std::string() : fmt::format(" --db '{}'", db.url);
    std::cerr << fmt::format("railgauge: error: --db: {}\n  the run directory {} is complete and "
                             "holds every record; store it once the database is back with:\n"
                             "  railgauge db ingest{} '{}'\n",
                             e.what(), run_dir, db_flag, run_dir);
    return code(ExitStatus::bad_input);
  }
}

rdma::StoredLedger stored_ledger(const history::DbFlags &db, const std::string &url) {
  return [db, url](double since_s) {
    auto database =
        history::open_database(url, {.timeout_s = db.timeout_s, .password_file = db.password_file});
    std::map<std::string, double> latest;
    for (const auto &row : database->query(
             "SELECT link, MAX(time_s) FROM ledger WHERE time_s >= ? GROUP BY link", {since_s}))
      latest[history::as_text(row.at(0))] = history::as_double(row.at(1)).value_or(0);
    return latest;
  };
}

} // namespace railgauge
