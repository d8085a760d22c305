#include "analysis/commands/db_command.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "analysis/check/host_names.h"
#include "analysis/commands/exit_status_of.h"
#include "analysis/commands/unknown_arguments.h"
#include "analysis/history/database.h"
#include "analysis/history/ingest.h"
#include "analysis/history/storable_text.h"
#include "harness/error.h"
#include "harness/exit_status.h"
#include "harness/number_text.h"

namespace railgauge::history {
namespace {

struct IngestOptions {
  DbFlags db;
  std::vector<std::string> runs;
  bool quiet = false;
};

struct IngestTally {
  long long added = 0, refreshed = 0, present = 0, records = 0;
  int failed = 0; // paths unreadable and runs refused: each costs only itself, and exit 4
  // The runs refused, kept with the paths not read: the history cannot judge them, so they are
  // not passed either.
  std::vector<analysis::UnreadablePath> not_stored;
};

void say_outcome(const IngestOutcome &out, bool quiet) {
  if (quiet)
    return;
  const auto what =
      fmt::format(", {} records{}", out.records,
                  out.ledger_lines > 0 ? fmt::format(", {} ledger lines", out.ledger_lines) : "");
  if (out.refreshed)
    std::cout << fmt::format("refreshed {} ({}){} (was {})\n", out.run_id, out.host, what,
                             out.before);
  else if (out.added)
    std::cout << fmt::format("ingested {} ({}){}\n", out.run_id, out.host, what);
  else if (out.fuller_stored)
    std::cout << fmt::format("already there: {} ({}), a fuller copy ({}); this one not stored\n",
                             out.run_id, out.host, out.before);
  else
    std::cout << fmt::format("already there: {} ({})\n", out.run_id, out.host);
}

// One records.jsonl found by the walk: its run stored, or why not. A file of the run that
// cannot be read is an error (exit 4), and the run is still stored when its run.json could be
// read, its completeness saying what was lost, so the history judges it as `check` does.
// The host of a run the history could not store, kept with its row so that check --history
// judges that host's newest run as unknown; "" where the run names none (its directory is no
// host) or a name check cannot write (the refusal itself names it, as a path).
std::string host_of_refused(const analysis::LoadedRun &run) {
  auto host = analysis::host_of(run);
  return host == run.dir || check::host_name_problem(host) ? "" : host;
}

void ingest_file(Database &db, const analysis::RunSet &set, IngestTally &tally, bool quiet) {
  // An unreadable path is one of the problems too: said once, below, as an error.
  for (const auto &problem : set.problems)
    if (std::none_of(set.unreadable.begin(), set.unreadable.end(), [&](const auto &u) {
          return problem == fmt::format("{}: cannot be read: {}", u.path, u.what) ||
                 problem == fmt::format("{}: {}", u.path, u.what); // a torn run.json
        }))
      std::cerr << "railgauge: note: " << problem << '\n';
  for (const auto &u : set.unreadable) {
    // Lines of a records.jsonl that could not be decoded (each a note above): the records read
    // are stored, and the run's completeness names the lines lost.
    const bool lines_lost = std::any_of(set.runs.begin(), set.runs.end(), [&](const auto &run) {
      return !run.records.empty() && u.path == run.dir + "/records.jsonl";
    });
    if (lines_lost)
      continue;
    std::cerr << fmt::format("railgauge: error: {}: cannot be read: {}\n", u.path, u.what);
    ++tally.failed;
  }
  for (const auto &run : set.runs) {
    if (run.records.empty() && !run.manifest.is_object())
      continue; // nothing of it to store; its path is named above
    try {
      const auto out = ingest_run(db, run, unread_files_of(set, run));
      tally.added += out.added && !out.refreshed;
      tally.refreshed += out.refreshed;
      tally.present += !out.added;
      tally.records += out.added ? out.records : 0;
      say_outcome(out, quiet);
    } catch (const RunNotStorable &e) {
      std::cerr << "railgauge: error: " << e.what() << '\n';
      ++tally.failed;
      tally.not_stored.push_back({run.dir, e.problem(), host_of_refused(run)});
    } catch (const StatementRefused &e) {
      // The database refused this run's rows (the transaction is rolled back): named, and the
      // other runs are stored.
      std::cerr << fmt::format("railgauge: error: {}: the run was not stored: {}\n", run.dir,
                               e.what());
      ++tally.failed;
      tally.not_stored.push_back(
          {run.dir, "the run was not stored: " + e.problem(), host_of_refused(run)});
    }
  }
}

int run_ingest(const CLI::App &cmd, const IngestOptions &o) {
  analysis::refuse_unknown_arguments(cmd, "db ingest");
  if (o.runs.empty())
    throw InputError("no run directories to ingest", "db ingest",
                     "give one or more run directories (or directories of runs) after the flags");
  const auto url = db_url(o.db, "--db");
  // check's own walk: directory links followed with loop detection, every path that cannot be
  // read named (and failing), never skipped.
  const auto found = analysis::find_runs(o.runs);
  const auto start = std::chrono::steady_clock::now();
  auto db = open_database(url, {.timeout_s = o.db.timeout_s, .password_file = o.db.password_file});
  IngestTally tally;
  ingest_file(*db, analysis::RunSet{{}, found.problems, found.unreadable, ""}, tally, o.quiet);
  // Every path the walk and the runs' loading could not read, and every run refused, kept for
  // check --history.
  auto unreadable = found.unreadable;
  const auto &files = found.record_files;
  // The next run is read (JSON parsed) while this one is stored: the two take about as long,
  // and a server's work overlaps the parsing too.
  std::future<analysis::RunSet> next;
  if (!files.empty())
    next = std::async(std::launch::async, analysis::load_run_file, files.front());
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto loaded = next.get();
    if (i + 1 < files.size())
      next = std::async(std::launch::async, analysis::load_run_file, files[i + 1]);
    ingest_file(*db, loaded, tally, o.quiet);
    unreadable.insert(unreadable.end(), loaded.unreadable.begin(), loaded.unreadable.end());
  }
  unreadable.insert(unreadable.end(), tally.not_stored.begin(), tally.not_stored.end());
  store_unreadable(*db, o.runs, unreadable);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << fmt::format("{}: {} run(s) ingested ({} records), {} already there, {} refreshed, "
                           "{} failed, in {:.1f} s\n",
                           db->name(), tally.added, tally.records, tally.present, tally.refreshed,
                           tally.failed, wall_s);
  return tally.failed ? code(ExitStatus::bad_input) : code(ExitStatus::ok);
}

// --db-timeout-s's bounds: a millisecond (the finest lock timeout either database takes) to a
// day (a busy timeout in milliseconds fits an int).
constexpr double kLeastDbTimeoutS = 0.001;
constexpr double kMostDbTimeoutS = 86400;

} // namespace

void add_db_flags(CLI::App *cmd, DbFlags &flags) {
  cmd->add_option("--db-password-file", flags.password_file,
                  "PostgreSQL: a file holding the password on its first line, readable by its "
                  "owner only (mode 0600); else libpq's PGPASSWORD or ~/.pgpass. Never in the URL");
  cmd->add_option("--db-timeout-s", flags.timeout_s,
                  "Wait at most this long to connect and for a lock another writer holds, then "
                  "give up (exit 4)")
      ->capture_default_str()
      // 0 was PostgreSQL's "no lock timeout" (an ingest waited forever on a lock), and nan, inf
      // or -1 SQLite's "give up at once": a bounded wait, said in seconds.
      ->check(CLI::Validator(
          [](std::string &text) -> std::string {
            const auto value = finite_number(text);
            if (value && *value >= kLeastDbTimeoutS && *value <= kMostDbTimeoutS)
              return {};
            return fmt::format("'{}' is not a wait of {} to {} seconds; give e.g. "
                               "--db-timeout-s 30 (the default)",
                               text, kLeastDbTimeoutS, kMostDbTimeoutS);
          },
          "SECONDS"));
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
  add_db_runs_commands(*db, exit_code);
  auto o = std::make_shared<IngestOptions>();
  auto *cmd = db->add_subcommand(
      "ingest", "Store run directories in the history: idempotent (a run ingested again is one "
                "run; one that changed since, such as a run stored while it was written, is "
                "refreshed), one transaction a run, safe with many nodes ingesting at once.\n"
                "Exit status: 0 stored, 4 the database unreachable, locked or of a newer schema, "
                "or a path unreadable or a run refused (the others are stored; nothing measured "
                "is lost: the run directories stay).");
  cmd->add_option("--db", o->db.url,
                  "sqlite:PATH or postgresql://[USER@]HOST[:PORT]/DB (default $RAILGAUGE_DB)");
  add_db_flags(cmd, o->db);
  cmd->add_flag("--quiet", o->quiet, "Only the summary line, not a line a run");
  cmd->add_option("runs", o->runs,
                  "Run directories, directories holding many, or records.jsonl files (imports "
                  "of nccl-tests, perftest and nvbandwidth too)");
  cmd->allow_extras();
  cmd->callback([cmd, o, &exit_code] {
    exit_code = analysis::exit_status_of([&] { return run_ingest(*cmd, *o); });
  });
}

} // namespace railgauge::history
