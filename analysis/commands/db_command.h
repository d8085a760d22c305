#pragma once
// `railgauge db ingest [--db URL] RUN...`: run directories into the fleet history (ingest.h);
// `db list` and `db remove`: the runs it holds, and one taken out.
// Exit status: 0 every run stored (or already there), 4 a database that cannot be reached, is
// locked, or is of a newer schema, or a run that cannot be read (the others are still stored).
#include <optional>
#include <string>

namespace CLI {
class App;
}

namespace railgauge::history {

// The flags every command that opens the history takes.
struct DbFlags {
  std::string url;
  std::optional<std::string> password_file;
  double timeout_s = 30;
};

// --db-password-file and --db-timeout-s on `cmd` (the URL flag is each command's own).
void add_db_flags(CLI::App *cmd, DbFlags &flags);

// The URL given, else $RAILGAUGE_DB; InputError when neither is.
std::string db_url(const DbFlags &flags, const char *flag);

void add_db_command(CLI::App &app, int &exit_code);

// `db list` and `db remove` under `db` (db_runs_command.cpp): the runs the history holds, and a
// run taken out of it (the run directory stays).
void add_db_runs_commands(CLI::App &db, int &exit_code);

} // namespace railgauge::history
