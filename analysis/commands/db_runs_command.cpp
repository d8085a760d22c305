// `railgauge db list` and `railgauge db remove`: what the history holds, run by run, and a run
// taken out of it. A run ingested by mistake (a test run, a copy under the wrong host) would
// otherwise be judged for ever: the database is the run directories' index, and a row must be
// removable without editing the database by hand.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/check/host_names.h"
#include "analysis/commands/db_command.h"
#include "analysis/commands/exit_status_of.h"
#include "analysis/history/database.h"
#include "harness/error.h"
#include "harness/exit_status.h"

namespace railgauge::history {
namespace {

struct RunsOptions {
  DbFlags db;
  std::vector<std::string> hosts;
  std::string run_id;
  std::optional<std::int64_t> rank;
};

// A stored text as it can be printed: one a terminal or a script reads safely is written as it
// is, any other (a host stored before ingest refused control characters) as JSON.
std::string printable(const std::string &text) {
  return check::host_name_problem(text)
             ? nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
             : text;
}

// "h.name IN (?, ?)" for the hosts given; "1 = 1" for none.
std::string host_filter(const std::vector<std::string> &hosts, Row &params) {
  if (hosts.empty())
    return "1 = 1";
  std::string in;
  for (const auto &h : hosts) {
    in += in.empty() ? "?" : ", ?";
    params.push_back(h);
  }
  return "h.name IN (" + in + ")";
}

int list_runs(const RunsOptions &o) {
  auto db = open_database(
      db_url(o.db, "--db"),
      {.timeout_s = o.db.timeout_s, .password_file = o.db.password_file, .create = false});
  Row params;
  const auto where = host_filter(o.hosts, params);
  long long n = 0;
  std::cout << "run\thost\trank\tsuite\tstart_utc\tstatus\trecords\twhole\tdir\n";
  db->for_each("SELECT ru.run_id, h.name, ru.rank, ru.suite, ru.start_utc, ru.status, "
               "ru.records, ru.incomplete, ru.dir FROM runs ru JOIN hosts h ON h.id = ru.host_id "
               "WHERE " +
                   where + " ORDER BY h.name, ru.start_utc, ru.run_id, ru.rank",
               params, [&](const Row &r) {
                 ++n;
                 // whole: as check judged it when it was ingested; "?" before schema version 4.
                 const auto whole = std::holds_alternative<std::nullptr_t>(r[7]) ? "?"
                                    : as_text(r[7]).empty()                      ? "yes"
                                                                                 : "no";
                 std::cout << fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                                          printable(as_text(r[0])), printable(as_text(r[1])),
                                          as_text(r[2]), printable(as_text(r[3])), as_text(r[4]),
                                          printable(as_text(r[5])), as_text(r[6]), whole,
                                          printable(as_text(r[8])));
               });
  std::cerr << fmt::format("railgauge: {}: {} run(s)\n", db->name(), n);
  return code(ExitStatus::ok);
}

int remove_runs(const RunsOptions &o) {
  if (o.run_id.empty())
    throw InputError("no run to remove", "db remove",
                     "give --run RUN_ID (railgauge db list shows them), and --host and --rank to "
                     "remove one host's or one rank's rows only");
  auto db = open_database(
      db_url(o.db, "--db"),
      {.timeout_s = o.db.timeout_s, .password_file = o.db.password_file, .create = false});
  Row params{o.run_id};
  auto where = "ru.run_id = ? AND " + host_filter(o.hosts, params);
  if (o.rank) {
    where += " AND ru.rank = ?";
    params.push_back(*o.rank);
  }
  long long removed = 0, records = 0;
  in_transaction(*db, [&] {
    removed = records = 0;
    for (const auto &r : db->query("SELECT ru.id, h.name, ru.rank, ru.records FROM runs ru "
                                   "JOIN hosts h ON h.id = ru.host_id WHERE " +
                                       where,
                                   params)) {
      for (const char *table : {"records", "ledger", "verdicts"})
        db->execute(fmt::format("DELETE FROM {} WHERE run_id = ?", table), {r[0]});
      db->execute("DELETE FROM runs WHERE id = ?", {r[0]});
      ++removed;
      records += as_int(r[3]).value_or(0);
      std::cout << fmt::format("removed {} ({}) rank {}: {} records\n", printable(o.run_id),
                               printable(as_text(r[1])), as_text(r[2]), as_text(r[3]));
    }
  });
  if (removed == 0)
    throw InputError(fmt::format("the database holds no run '{}'{}", printable(o.run_id),
                                 o.hosts.empty() ? "" : " of the hosts given"),
                     db->name(), "see railgauge db list --db URL for the runs it holds");
  std::cout << fmt::format("{}: {} run row(s) removed ({} records)\n", db->name(), removed,
                           records);
  return code(ExitStatus::ok);
}

void add_runs_command(CLI::App &db, int &exit_code, const char *name, const char *help,
                      int (*body)(const RunsOptions &)) {
  auto o = std::make_shared<RunsOptions>();
  auto *cmd = db.add_subcommand(name, help);
  cmd->add_option("--db", o->db.url,
                  "sqlite:PATH or postgresql://[USER@]HOST[:PORT]/DB (default $RAILGAUGE_DB)");
  add_db_flags(cmd, o->db);
  cmd->add_option("--host", o->hosts, "Only the runs of this host (may be given again)");
  if (std::string(name) == "remove") {
    cmd->add_option("--run", o->run_id, "The run id to remove (every rank and host of it)")
        ->required();
    cmd->add_option("--rank", o->rank, "Only this rank's row of the run");
  }
  cmd->callback(
      [o, &exit_code, body] { exit_code = analysis::exit_status_of([&] { return body(*o); }); });
}

} // namespace

void add_db_runs_commands(CLI::App &db, int &exit_code) {
  add_runs_command(db, exit_code, "list",
                   "List the runs the history holds, one a line (tab-separated): run id, host, "
                   "rank, suite, start, status, records, whole (as check judged it when it was "
                   "ingested; ? before schema 4) and run directory",
                   list_runs);
  add_runs_command(db, exit_code, "remove",
                   "Take a run out of the history: its rows, records, ledger and verdicts (the "
                   "run directory stays; ingest it again to put it back).\nExit status: 0 "
                   "removed, 4 no such run or the database refused",
                   remove_runs);
}

} // namespace railgauge::history
