#include "analysis/history/ingest.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/check/host_names.h"
#include "analysis/check/run_completeness.h"
#include "analysis/history/history_builtins.h"
#include "analysis/history/ledger_rows.h"
#include "analysis/history/lost_ranks.h"
#include "analysis/history/recorded_parts.h"
#include "analysis/history/run_facts.h"
#include "analysis/history/storable_text.h"
#include "analysis/run_machines.h"
#include "analysis/run_points.h"
#include "harness/digest.h"
#include "harness/error.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/run_fields.h"
#include "records/per_gpu_parts.h"

namespace railgauge::history {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::int64_t id_of(Database &db, const std::string &select, const Row &key) {
  const auto rows = db.query(select, key);
  if (rows.empty() || !as_int(rows.front().at(0)))
    throw std::logic_error("history: a row just inserted is not there: " + select);
  return *as_int(rows.front().at(0));
}

std::int64_t host_id(Database &db, const std::string &host) {
  db.execute("INSERT INTO hosts (name) VALUES (?) ON CONFLICT (name) DO NOTHING", {host});
  return id_of(db, "SELECT id FROM hosts WHERE name = ?", {host});
}

std::int64_t part_id(Database &db, std::int64_t host, const Part &p) {
  const auto none = [](const std::string &s) { return s.empty() ? Value(nullptr) : Value(s); };
  db.execute("INSERT INTO parts (host_id, kind, slot, identity, uuid, serial, guid, firmware) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
             "ON CONFLICT (host_id, kind, slot, identity) DO NOTHING",
             {host, p.kind, p.slot, p.identity(), none(p.uuid), none(p.serial), none(p.guid),
              none(p.firmware)});
  return id_of(db,
               "SELECT id FROM parts WHERE host_id = ? AND kind = ? AND slot = ? AND identity = ?",
               {host, p.kind, p.slot, p.identity()});
}

// `point`: analysis/run_points.h's point of the record (of the record it is a GPU of, per_gpu),
// none without axes: a newer run that measured it again leaves it unjudged (newest_runs.h).
Row record_row(std::int64_t run, std::optional<std::int64_t> part, const Record &r, bool per_gpu,
               std::optional<std::uint64_t> point) {
  const auto metric = r.status == Status::ok ? figure_metric(r.metrics) : "";
  Value figure = nullptr, series = nullptr;
  if (!metric.empty() && part) {
    figure = r.metrics.at(metric).get<double>();
    series = fmt::format("{} {} {}", r.key, r.params.dump(), metric);
  }
  return {run,
          part ? Value(*part) : Value(nullptr),
          std::int64_t{r.rank},
          r.key,
          r.params.dump(-1, ' ', false, json::error_handler_t::replace),
          r.device.dump(-1, ' ', false, json::error_handler_t::replace),
          r.metrics.dump(-1, ' ', false, json::error_handler_t::replace),
          std::string(to_string(r.status)),
          r.reason ? Value(*r.reason) : Value(nullptr),
          r.time_utc,
          std::int64_t{per_gpu},
          point ? Value(fmt::format("{:016x}", *point)) : Value(nullptr),
          series,
          metric.empty() ? Value(nullptr) : Value(metric),
          figure};
}

const std::vector<std::string> kRecordColumns = {
    "run_id", "part_id",  "rank",    "key",   "params", "device",        "metrics", "status",
    "reason", "time_utc", "per_gpu", "point", "series", "figure_metric", "figure"};

} // namespace

std::string figure_metric(const json &metrics) {
  for (const char *m :
       {"tflops", "busbw_gbytes_per_s", "bandwidth_gbytes_per_s", "bandwidth_gbits_per_s"}) {
    const auto it = metrics.find(m);
    if (it != metrics.end() && it->is_number())
      return m;
  }
  return "";
}

namespace {

// When the run is stored, by the database's clock: a fleet's PostgreSQL server keeps one clock
// for every node that stores its own run (run --db, burnin --db), where each node's is the one
// the history cannot trust (analysis/history/newest_runs.h). SQLite has no server: the clock of
// the machine that writes the file.
std::string stored_utc(Database &db) {
  if (db.dialect() != "postgresql")
    return utc_timestamp_now();
  const auto rows = db.query("SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', "
                             "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')");
  return rows.empty() ? utc_timestamp_now() : as_text(rows.front().at(0));
}

// A run the database already holds, as it was stored.
struct StoredState {
  std::int64_t row = 0, records = 0;
  std::string status, start, suite;
  std::optional<std::string> incomplete;    // none: stored before schema version 4
  std::optional<std::string> inventory;     // none: stored before schema version 5
  std::optional<std::string> digest;        // none: stored before schema version 6
  std::optional<std::string> lost_ranks;    // none: stored before schema version 8
  std::optional<std::string> points_digest; // none: stored before schema version 9
};

std::optional<StoredState> stored_state(Database &db, const RunFacts &facts, std::int64_t host) {
  const auto rows =
      db.query("SELECT id, records, status, incomplete, inventory, start_utc, suite, "
               "records_digest, lost_ranks, points_digest FROM runs WHERE run_id = ? AND "
               "host_id = ? AND "
               "rank = ?",
               {facts.run_id, host, facts.rank});
  if (rows.empty())
    return std::nullopt;
  const auto &r = rows.front();
  StoredState s;
  s.row = *as_int(r.at(0));
  s.records = as_int(r.at(1)).value_or(0);
  s.status = as_text(r.at(2));
  s.start = as_text(r.at(5));
  s.suite = as_text(r.at(6));
  if (!std::holds_alternative<std::nullptr_t>(r.at(3)))
    s.incomplete = as_text(r.at(3));
  if (!std::holds_alternative<std::nullptr_t>(r.at(4)))
    s.inventory = as_text(r.at(4));
  if (!std::holds_alternative<std::nullptr_t>(r.at(7)))
    s.digest = as_text(r.at(7));
  if (!std::holds_alternative<std::nullptr_t>(r.at(8)))
    s.lost_ranks = as_text(r.at(8));
  if (!std::holds_alternative<std::nullptr_t>(r.at(9)))
    s.points_digest = as_text(r.at(9));
  return s;
}

std::string describe(const StoredState &s) {
  return fmt::format("{} records, status '{}'{}{}{}", s.records, s.status,
                     !s.incomplete           ? ""
                     : s.incomplete->empty() ? ", whole"
                                             : ", not whole",
                     s.inventory ? "" : ", no inventory",
                     s.points_digest ? "" : ", no points measured stored");
}

// The machine id of an inventory's text ("" without one).
std::string machine_id_of(const std::string &inventory) {
  return analysis::machine_of_inventory("", "",
                                        json::parse(inventory, nullptr, /*allow_exceptions=*/false))
      .id;
}

// Why a run the database holds under this run's id, host and rank is another run, not an earlier
// state of this one: another start or suite (`check` over directories judges both), or another
// machine (VMs of one image named alike, started in one second as one PID). Nullopt if it is
// this run.
std::optional<std::string> another_run(const StoredState &stored, const RunFacts &facts) {
  if (stored.start != facts.start || stored.suite != facts.suite)
    return fmt::format("started {} (suite '{}') where this one started {} (suite '{}')",
                       stored.start, stored.suite, facts.start, facts.suite);
  const auto was = stored.inventory ? machine_id_of(*stored.inventory) : "";
  const auto now = machine_id_of(facts.inventory);
  if (!was.empty() && !now.empty() && was != now)
    return fmt::format("of machine-id {} where this one is of machine-id {}", was, now);
  return std::nullopt;
}

// What a runs row holds of its run beyond its key (run id, host, rank), in this order.
const std::vector<std::string> kStoredColumns = {
    "suite",      "source",         "start_utc",    "end_utc",        "status",     "dir",
    "records",    "failed_records", "ingested_utc", "points_planned", "counts",     "world_size",
    "world_rank", "incomplete",     "inventory",    "records_digest", "lost_ranks", "plan_digest",
    "points",     "points_digest"};

Row stored_values(Database &db, const RunFacts &facts, const analysis::LoadedRun &run,
                  std::int64_t failed) {
  return {facts.suite,
          facts.source,
          facts.start,
          facts.end,
          facts.status,
          run.dir,
          static_cast<std::int64_t>(run.records_written()),
          failed,
          stored_utc(db),
          facts.points_planned,
          facts.counts,
          facts.world_size,
          facts.world_rank,
          facts.incomplete,
          facts.inventory,
          facts.records_digest,
          facts.lost_ranks,
          facts.plan_digest,
          facts.points,
          facts.points_digest};
}

// The stored state replaced by this one: its records, ledger and verdicts go (the verdicts
// judged a run that is no longer what it is), its row keeps its id.
void replace_run(Database &db, const RunFacts &facts, const analysis::LoadedRun &run,
                 std::int64_t row, std::int64_t failed) {
  auto values = stored_values(db, facts, run, failed);
  values.push_back(row);
  db.execute(
      fmt::format("UPDATE runs SET {} = ? WHERE id = ?", fmt::join(kStoredColumns, " = ?, ")),
      values);
  for (const char *table : {"records", "ledger", "verdicts"})
    db.execute(fmt::format("DELETE FROM {} WHERE run_id = ?", table), {row});
}

// The run's records (and each GPU of an every-GPU point as a record of its own), its parts and
// its ledger, under the run's row.
void store_records(Database &db, std::int64_t run_row, std::int64_t host,
                   const analysis::LoadedRun &run, const std::vector<records::LedgerLine> &ledger,
                   IngestOutcome &out) {
  const Inventory inventory(run.manifest);
  std::map<StoredPartKey, std::int64_t> parts; // sorted: every ingest takes the rows in one order
  std::vector<std::pair<const Record *, std::optional<StoredPartKey>>> planned;
  std::vector<Record> per_gpu;
  std::vector<std::optional<std::uint64_t>> points; // of run.records, then of per_gpu
  for (const auto &r : run.records)
    points.push_back(analysis::point_of(r));
  for (const auto &r : run.records)
    for (auto &p : records::per_gpu_parts(r)) {
      per_gpu.push_back(std::move(p));
      points.push_back(analysis::point_of(r));
    }
  std::map<StoredPartKey, Part> seen;
  const auto plan = [&](const Record &r) {
    const auto part = inventory.part_of(r);
    std::optional<StoredPartKey> key;
    if (part) {
      key = StoredPartKey{part->kind, part->slot, part->identity()};
      seen.emplace(*key, *part);
    }
    planned.emplace_back(&r, key);
  };
  std::for_each(run.records.begin(), run.records.end(), plan);
  std::for_each(per_gpu.begin(), per_gpu.end(), plan);
  for (const auto &[key, part] : seen) {
    for (const auto *text :
         {&part.kind, &part.slot, &part.uuid, &part.serial, &part.guid, &part.firmware})
      check_storable(run.dir, "part " + part.kind, *text, kMaxIndexedTextBytes);
    parts[key] = part_id(db, host, part);
  }
  std::vector<Row> rows;
  rows.reserve(planned.size());
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const auto &[r, key] = planned[i];
    const auto part = key ? std::optional(parts.at(*key)) : std::nullopt;
    rows.push_back(record_row(run_row, part, *r, i >= run.records.size(), points[i]));
    check_storable(run.dir, "records", kRecordColumns, rows.back());
    out.figures += !std::holds_alternative<std::nullptr_t>(rows.back().back());
  }
  db.insert_rows("records", kRecordColumns, rows);
  if (!ledger.empty()) {
    auto lines = ledger_rows(ledger, run_row, host);
    for (const auto &l : ledger)
      check_storable(run.dir, "ledger link", l.link, kMaxIndexedTextBytes);
    for (const auto &row : lines)
      check_storable(run.dir, "ledger", kLedgerColumns, row);
    db.insert_rows("ledger", kLedgerColumns, lines);
  }
  out.ledger_lines = static_cast<long long>(ledger.size());
  out.added = true;
  out.records = static_cast<long long>(run.records.size());
}

// The history keeps one host and one run a run directory, where `check` judges each record
// under its own host: a records.jsonl holding two hosts' records would drain only the first, and
// another run's records under this run's manifest would be stored as this run (check names such a
// file unreadable).
void refuse_foreign_records(const analysis::LoadedRun &run, const RunFacts &facts) {
  const auto quoted = [](const std::string &s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
  };
  for (const auto &r : run.records) {
    if (r.host != facts.host)
      throw RunNotStorable(
          fmt::format("the run cannot be stored: its records name host {} besides the run's {}",
                      quoted(r.host), quoted(facts.host)),
          run.dir,
          "write each host's records into a run directory of its own (as each rank writes its "
          "own), then ingest them; the other runs are stored");
    if (!r.run.empty() && !facts.run_id.empty() && r.run != facts.run_id)
      throw RunNotStorable(
          fmt::format("the run cannot be stored: its records name run {} besides its run.json's {}",
                      quoted(r.run), quoted(facts.run_id)),
          run.dir, "ingest each run directory as railgauge wrote it; the other runs are stored");
  }
}

// The run's row inserted, its id returned; nothing when the row is held already.
std::vector<Row> claim_run(Database &db, const RunFacts &facts, const analysis::LoadedRun &run,
                           std::int64_t host, std::int64_t failed) {
  Row values{facts.run_id, host, facts.rank};
  const auto stored = stored_values(db, facts, run, failed);
  values.insert(values.end(), stored.begin(), stored.end());
  std::string marks = "?, ?, ?";
  for (std::size_t i = 0; i < kStoredColumns.size(); ++i)
    marks += ", ?";
  return db.query(fmt::format("INSERT INTO runs (run_id, host_id, rank, {}) VALUES ({}) "
                              "ON CONFLICT (run_id, host_id, rank) DO NOTHING RETURNING id",
                              fmt::join(kStoredColumns, ", "), marks),
                  values);
}

} // namespace

IngestOutcome ingest_run(Database &db, const analysis::LoadedRun &run,
                         const std::vector<std::string> &unread) {
  const RunFacts given(run, unread);
  given.check_storable(run.dir); // before anything is sent: a refused run costs only itself
  refuse_foreign_records(run, given);
  IngestOutcome out{.run_id = given.run_id, .host = given.host};
  const auto ledger = read_run_ledger(run.dir); // a bad line refuses the run before it is claimed
  in_transaction(db, [&] {
    out = IngestOutcome{.run_id = given.run_id, .host = given.host};
    RunFacts facts = given;
    // A stored peer this run names lost in turn is judged again whether or not this run is
    // excused (as check over both directories does), and this run's excuse goes with it.
    if (!facts.lost.empty()) {
      lock_lost_ranks_of(db, facts.run_id);
      const auto other = lost_in_turn_stored(db, facts.run_id, facts.host, facts.lost);
      if (other && facts.excused_by_loss)
        facts.incomplete = fmt::format("{}; {}", check::lost_in_turn_text(*other),
                                       facts.incomplete.substr(check::kNotJudged.size()));
    }
    // The point a signal from outside cut, or a lost rank broke, is no failure of the node's
    // (repeat offenders count these).
    const bool excused = facts.incomplete.starts_with(check::kNotJudged);
    std::int64_t failed = 0;
    for (const auto &r : run.records)
      failed += (r.status == Status::failed || r.status == Status::error) &&
                !(excused && check::is_point_that_stopped_the_run(run, r));
    const auto host = host_id(db, facts.host);
    const auto claimed = claim_run(db, facts, run, host, failed);
    std::int64_t run_row = 0;
    if (!claimed.empty()) {
      run_row = *as_int(claimed.front().at(0));
    } else {
      // Held already: ingested before, or by another process this moment. A run stored while it
      // was written, cut short or resumed has changed since: its newer state replaces the one
      // stored, but a copy holding fewer records than the one stored (a partial copy) does not.
      // A run stored before the database kept inventories is stored again, with its inventory;
      // so is one whose records changed though as many (edited, or copied over by another).
      // runs.records counts every record written, replaced ones too: a resume that ran an error
      // point again has the same points as before and one record more.
      const auto stored = stored_state(db, facts, host);
      if (!stored)
        throw std::logic_error("history: a run that conflicts is not there");
      if (const auto why = another_run(*stored, facts))
        throw RunNotStorable(
            fmt::format("the run cannot be stored: the database holds another run under its run "
                        "id {}, host {} and rank {}, {}",
                        facts.run_id, facts.host, facts.rank, *why),
            run.dir,
            "give each machine a host name of its own (hostnamectl set-hostname) and run again, "
            "or store this run in another database; `check` over the run directories judges "
            "both");
      out.before = describe(*stored);
      const auto here = static_cast<std::int64_t>(run.records_written());
      const bool same = here == stored->records && facts.status == stored->status &&
                        stored->incomplete == facts.incomplete &&
                        stored->inventory == facts.inventory &&
                        stored->digest == facts.records_digest &&
                        (stored->lost_ranks ? *stored->lost_ranks == facts.lost_ranks
                                            : facts.lost_ranks.empty()) &&
                        stored->points_digest == facts.points_digest;
      if (same || here < stored->records) {
        out.fuller_stored = here < stored->records;
        return;
      }
      replace_run(db, facts, run, stored->row, failed);
      run_row = stored->row;
      out.refreshed = true;
    }
    store_records(db, run_row, host, run, ledger, out);
  });
  return out;
}

} // namespace railgauge::history
