#include "analysis/history/schema.h"

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/error.h"

namespace railgauge::history {
namespace {

// {id}: the key column, the one spelling the two databases differ in (SQLite's rowid alias must
// be spelled INTEGER PRIMARY KEY).
constexpr const char *kTables[] = {
    "CREATE TABLE IF NOT EXISTS hosts ({id}, name TEXT NOT NULL UNIQUE)",
    "CREATE TABLE IF NOT EXISTS runs ({id}, run_id TEXT NOT NULL, "
    "host_id BIGINT NOT NULL REFERENCES hosts(id), rank BIGINT NOT NULL, suite TEXT NOT NULL, "
    "source TEXT NOT NULL, start_utc TEXT NOT NULL, end_utc TEXT, status TEXT, dir TEXT NOT NULL, "
    "records BIGINT NOT NULL, failed_records BIGINT NOT NULL, ingested_utc TEXT NOT NULL, "
    "{run_columns}, UNIQUE (run_id, host_id, rank))",
    "CREATE INDEX IF NOT EXISTS runs_by_host ON runs (host_id, start_utc)",
    "CREATE TABLE IF NOT EXISTS parts ({id}, host_id BIGINT NOT NULL REFERENCES hosts(id), "
    "kind TEXT NOT NULL, slot TEXT NOT NULL, identity TEXT NOT NULL, uuid TEXT, serial TEXT, "
    "guid TEXT, firmware TEXT, UNIQUE (host_id, kind, slot, identity))",
    // No REFERENCES on records: PostgreSQL checks a foreign key row by row (a query a row, half
    // the server's time when a fleet's million records are copied in), and ingest writes a run's
    // records in the transaction that claimed the run and its parts, so they cannot dangle.
    // SQLite never checked them (foreign_keys is off by default): both now say the same.
    "CREATE TABLE IF NOT EXISTS records ({id}, run_id BIGINT NOT NULL, "
    "part_id BIGINT, rank BIGINT NOT NULL, key TEXT NOT NULL, "
    "params TEXT NOT NULL, device TEXT NOT NULL, metrics TEXT NOT NULL, status TEXT NOT NULL, "
    "reason TEXT, time_utc TEXT, per_gpu BIGINT NOT NULL, series TEXT, figure_metric TEXT, "
    "figure DOUBLE PRECISION, point TEXT)",
    "CREATE INDEX IF NOT EXISTS figures_by_part ON records (part_id) "
    "WHERE figure IS NOT NULL",
    "CREATE TABLE IF NOT EXISTS verdicts ({id}, run_id BIGINT NOT NULL REFERENCES runs(id), "
    "host_id BIGINT NOT NULL REFERENCES hosts(id), part_id BIGINT REFERENCES parts(id), "
    "rule TEXT NOT NULL, level TEXT NOT NULL, what TEXT NOT NULL, judged_utc TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS verdicts_by_run ON verdicts (run_id)",
    // Version 3. Written with its run in one transaction, as the records are: no REFERENCES.
    "CREATE TABLE IF NOT EXISTS ledger ({id}, run_id BIGINT NOT NULL, host_id BIGINT NOT NULL, "
    "link TEXT NOT NULL, kind TEXT NOT NULL, phase TEXT NOT NULL, via TEXT, "
    "time_s DOUBLE PRECISION NOT NULL, round_index BIGINT NOT NULL, flows BIGINT NOT NULL, "
    "bad BIGINT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ledger_by_link ON ledger (link, time_s)",
    // Version 5. The paths the last ingest of each directory could not read, named as the walk
    // named them (path) and as an absolute path (under: an ingest of a directory replaces the
    // rows under it). No index on either: a path may be longer than a btree row holds.
    "CREATE TABLE IF NOT EXISTS unreadable ({id}, path TEXT NOT NULL, under TEXT NOT NULL, "
    "what TEXT NOT NULL, seen_utc TEXT NOT NULL, host TEXT)",
};

// Version 4: what run-complete reads of run.json (points_planned, counts, world.size and
// world.rank) and the run's completeness as `check` judged it when it was ingested (incomplete:
// "" whole, else why not; NULL in a run ingested before version 4, which is judged by its status).
// Version 5: run.json's inventory as it was written, so that the inventory rules judge it as
// over the run's directory (inventory: its JSON text, "" when run.json holds none; NULL in a
// run ingested before version 5, whose inventory rules are not judged).
// Version 6: records_digest, FNV-1a 64 of the records in hex (NULL before version 6).
// Version 8: lost_ranks, the ranks run.json names as lost, as JSON [[rank, host], ...] ("" when
// it names none; NULL before version 8): a survivor's peer is known when the peer is stored.
// Version 9: plan_digest (run.json's plan.digest, "" when none), points (the points the run
// measured, analysis/run_points.h's text) and points_digest (FNV-1a 64 of that text in hex): a
// newer run supersedes an older one only where it measured all the older one did (NULL before
// version 9: superseded by any newer run, as before). Version 10: records.point, each record's
// point, so that an older run judged beside newer ones is judged for the points they did not
// measure again.
constexpr const char *kRunColumns[] = {
    "points_planned BIGINT", "counts TEXT",    "world_size BIGINT",   "world_rank BIGINT",
    "incomplete TEXT",       "inventory TEXT", "records_digest TEXT", "lost_ranks TEXT",
    "plan_digest TEXT",      "points TEXT",    "points_digest TEXT"};

std::string key_column(const Database &db) {
  return db.dialect() == "sqlite" ? "id INTEGER PRIMARY KEY"
                                  : "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
}

// Whether `table` has `column`: SQLite cannot ADD COLUMN IF NOT EXISTS.
bool has_column(Database &db, const std::string &table, const std::string &column) {
  const auto rows =
      db.dialect() == "sqlite"
          ? db.query("SELECT COUNT(*) FROM pragma_table_info(?) WHERE name = ?", {table, column})
          : db.query("SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = "
                     "current_schema() AND table_name = ? AND column_name = ?",
                     {table, column});
  return !rows.empty() && as_int(rows.front().at(0)).value_or(0) > 0;
}

// Version 1 to 2: the records' foreign keys dropped (PostgreSQL; SQLite never enforced them).
// 2 to 3: the ledger table, which kTables creates in any database that lacks it (4 to 5 the
// unreadable table likewise). 3 to 4: the runs' completeness columns; 4 to 5: their inventory; 5
// to 6: their records' digest (one ALTER each: SQLite adds one column a statement); 6 to 7: the
// host of an unreadable run; 7 to 8: the runs' lost ranks; 8 to 9: their plan and points; 9 to
// 10: the records' point.
void upgrade(Database &db, std::int64_t from_version) {
  if (from_version < 2 && db.dialect() == "postgresql")
    db.execute("ALTER TABLE records DROP CONSTRAINT IF EXISTS records_run_id_fkey, "
               "DROP CONSTRAINT IF EXISTS records_part_id_fkey");
  if (from_version < 9)
    for (const std::string column : kRunColumns)
      if (!has_column(db, "runs", column.substr(0, column.find(' '))))
        db.execute("ALTER TABLE runs ADD COLUMN " + column);
  if (from_version < 10 && !has_column(db, "records", "point"))
    db.execute("ALTER TABLE records ADD COLUMN point TEXT");
  if (from_version < 7 && !has_column(db, "unreadable", "host"))
    db.execute("ALTER TABLE unreadable ADD COLUMN host TEXT");
}

} // namespace

void prepare_schema(Database &db) {
  in_transaction(db, [&] {
    // Eight nodes creating one new database at once: PostgreSQL's CREATE TABLE IF NOT EXISTS
    // is not safe against itself, so the creators take turns.
    if (db.dialect() == "postgresql")
      db.execute("SELECT pg_advisory_xact_lock(7304150039)");
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)");
    const auto rows = db.query("SELECT MAX(version) FROM schema_version");
    const auto version = rows.empty() ? std::nullopt : as_int(rows.front().at(0));
    if (version && *version > kSchemaVersion)
      throw InputError(fmt::format("the database's schema is version {}, newer than the version "
                                   "{} this railgauge reads and writes",
                                   *version, kSchemaVersion),
                       db.name(),
                       "use the railgauge that made this database (or a newer one), or give "
                       "--db another database; nothing was written to this one");
    const auto id = key_column(db);
    const auto run_columns = fmt::format("{}", fmt::join(kRunColumns, ", "));
    for (const char *table : kTables)
      db.execute(fmt::format(fmt::runtime(table), fmt::arg("id", id),
                             fmt::arg("run_columns", run_columns)));
    if (version && *version < kSchemaVersion)
      upgrade(db, *version);
    if (!version || *version < kSchemaVersion)
      db.execute("INSERT INTO schema_version (version) VALUES (?)", {std::int64_t{kSchemaVersion}});
  });
}

} // namespace railgauge::history
