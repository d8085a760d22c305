#include "analysis/history/db_command.h"

#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/history/database.h"
#include "analysis/history/ingest.h"
#include "harness/error.h"
#include "harness/exit_status.h"

namespace railgauge::history {
namespace {

// One run directory read from disk, or why it could not be.
struct Loaded {
  analysis::RunSet set;
  std::optional<std::string> error;
};

Loaded load(const std::string &dir) {
  try {
    return {analysis::load_runs({dir}), std::nullopt};
  } catch (const InputError &e) {
    return {{}, std::string(e.what())};
  }
}

struct IngestOptions {
  DbFlags db;
  std::vector<std::string> runs;
  bool quiet = false;
};

int run_ingest(const CLI::App &cmd, const IngestOptions &o) {
  if (!cmd.remaining().empty())
    throw InputError(fmt::format("unknown argument '{}'", cmd.remaining().front()), "db ingest",
                     "see railgauge db ingest --help");
  if (o.runs.empty())
    throw InputError("no run directories to ingest", "db ingest",
                     "give one or more run directories (or directories of runs) after the flags");
  const auto url = db_url(o.db, "--db");
  const auto dirs = run_directories(o.runs);
  const auto start = std::chrono::steady_clock::now();
  auto db = open_database(url, {.timeout_s = o.db.timeout_s, .password_file = o.db.password_file});
  long long added = 0, present = 0, records = 0;
  int unreadable = 0;
  // The next run is read (JSON parsed) while this one is stored: the two take about as long,
  // and a server's work overlaps the parsing too.
  auto next = std::async(std::launch::async, load, dirs.front());
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    auto loaded = next.get();
    if (i + 1 < dirs.size())
      next = std::async(std::launch::async, load, dirs[i + 1]);
    if (loaded.error) {
      // One unreadable run costs only itself: the others are stored, and the exit status says.
      std::cerr << "railgauge: error: " << *loaded.error << '\n';
      ++unreadable;
      continue;
    }
    for (const auto &problem : loaded.set.problems)
      std::cerr << "railgauge: note: " << problem << '\n';
    for (const auto &run : loaded.set.runs) {
      const auto out = ingest_run(*db, run);
      added += out.added;
      present += !out.added;
      records += out.records;
      if (!o.quiet)
        std::cout << fmt::format(
            "{} {} ({}){}\n", out.added ? "ingested" : "already there:", out.run_id, out.host,
            out.added ? fmt::format(", {} records{}", out.records,
                                    out.ledger_lines > 0
                                        ? fmt::format(", {} ledger lines", out.ledger_lines)
                                        : "")
                      : "");
    }
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format("{}: {} run(s) ingested ({} records), {} already there, in {:.1f} s\n",
                           db->name(), added, records, present, wall_s);
  return unreadable ? code(ExitStatus::bad_input) : code(ExitStatus::ok);
}

} // namespace

void add_db_flags(CLI::App *cmd, DbFlags &flags) {
  cmd->add_option("--db-password-file", flags.password_file,
                  "PostgreSQL: a file holding the password on its first line, readable by its "
                  "owner only (mode 0600); else libpq's PGPASSWORD or ~/.pgpass. Never in the URL");
  cmd->add_option("--db-timeout-s", flags.timeout_s,
                  "Wait at most this long to connect and for a lock another writer holds, then "
                  "give up (exit 4)")
      ->capture_default_str();
}

std::string db_url(const DbFlags &flags, const char *flag) {
  if (!flags.url.empty())
    return flags.url;
  if (const char *env = std::getenv("RAILGAUGE_DB"); env && *env)
    return env;
  throw InputError("no database given, and RAILGAUGE_DB is not set", flag,
                   fmt::format("give {} sqlite:PATH or {} postgresql://[USER@]HOST[:PORT]/DB, "
                               "or set RAILGAUGE_DB",
                               flag, flag));
}

void add_db_command(CLI::App &app, int &exit_code) {
  auto *db = app.add_subcommand("db", "The fleet history: every run in a database (SQLite or "
                                      "PostgreSQL), each part's figures across runs");
  db->require_subcommand(1);
  auto o = std::make_shared<IngestOptions>();
  auto *cmd = db->add_subcommand(
      "ingest", "Store run directories in the history: idempotent (a run ingested again is one "
                "run), one transaction a run, safe with many nodes ingesting at once.\n"
                "Exit status: 0 stored, 4 the database unreachable, locked or of a newer schema, "
                "or a run unreadable (nothing measured is lost: the run directories stay).");
  cmd->add_option("--db", o->db.url,
                  "sqlite:PATH or postgresql://[USER@]HOST[:PORT]/DB (default $RAILGAUGE_DB)");
  add_db_flags(cmd, o->db);
  cmd->add_flag("--quiet", o->quiet, "Only the summary line, not a line a run");
  cmd->add_option("runs", o->runs,
                  "Run directories, directories holding many, or records.jsonl files (imports "
                  "of nccl-tests, perftest and nvbandwidth too)");
  cmd->allow_extras();
  cmd->callback([cmd, o, &exit_code] {
    try {
      exit_code = run_ingest(*cmd, *o);
    } catch (const InputError &e) {
      std::cerr << "railgauge: error: " << e.what() << '\n';
      exit_code = code(ExitStatus::bad_input);
    }
  });
}

} // namespace railgauge::history
