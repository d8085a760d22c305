// The fleet history in one SQLite file: the embedded default, no server. Write-ahead logging
// lets a `check --history` read while an ingest writes; a writer waits for another at most
// OpenOptions::timeout_s (the busy timeout), then the database is refused as locked.
#include <chrono>
#include <thread>

#include <sqlite3.h>

#include <filesystem>

#include <fmt/format.h>

#include "analysis/history/database.h"
#include "harness/error.h"

namespace railgauge::history {
namespace {

class Statement {
public:
  Statement(sqlite3 *db, const std::string &sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
      stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;
  sqlite3_stmt *get() const { return stmt_; }

private:
  sqlite3_stmt *stmt_ = nullptr;
};

class SqliteDatabase final : public Database {
public:
  SqliteDatabase(const std::string &path, const OpenOptions &options) : path_(path) {
    std::error_code ec;
    if (!options.create && !std::filesystem::exists(path, ec))
      throw InputError(fmt::format("no database at {}", path), name(),
                       "give the path of a database that `railgauge db ingest` (or `check "
                       "--history DB RUNS`) wrote; this command only reads one");
    const int rc =
        sqlite3_open_v2(path.c_str(), &db_,
                        SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0), nullptr);
    if (rc != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      throw InputError(fmt::format("cannot open the SQLite database: {}", why), name(),
                       "give --db sqlite:PATH a file in a directory this user can write");
    }
    sqlite3_busy_timeout(db_, static_cast<int>(options.timeout_s * 1000));
    use_wal(options.timeout_s);
    execute("PRAGMA synchronous=NORMAL", {});
  }
  ~SqliteDatabase() override { sqlite3_close(db_); }

  std::string dialect() const override { return "sqlite"; }
  std::string name() const override { return "sqlite:" + path_; }

  void execute(const std::string &sql, const Row &params) override {
    for_each(sql, params, [](const Row &) {});
  }

  std::vector<Row> query(const std::string &sql, const Row &params) override {
    std::vector<Row> rows;
    for_each(sql, params, [&](const Row &r) { rows.push_back(r); });
    return rows;
  }

  void for_each(const std::string &sql, const Row &params,
                const std::function<void(const Row &)> &visit) override {
    Statement stmt(db_, sql);
    if (!stmt.get())
      fail(sql);
    bind(stmt.get(), params);
    Row row;
    for (;;) {
      const int rc = sqlite3_step(stmt.get());
      if (rc == SQLITE_DONE)
        return;
      if (rc != SQLITE_ROW)
        fail(sql);
      read_row(stmt.get(), row);
      visit(row);
    }
  }

  void insert_rows(const std::string &table, const std::vector<std::string> &columns,
                   const std::vector<Row> &rows) override {
    std::string sql = fmt::format("INSERT INTO {} ({}) VALUES (", table, fmt::join(columns, ", "));
    for (std::size_t i = 0; i < columns.size(); ++i)
      sql += i ? ", ?" : "?";
    sql += ")";
    Statement stmt(db_, sql);
    if (!stmt.get())
      fail(sql);
    for (const auto &row : rows) {
      bind(stmt.get(), row);
      if (sqlite3_step(stmt.get()) != SQLITE_DONE)
        fail(sql);
      sqlite3_reset(stmt.get());
    }
  }

  // IMMEDIATE: the write lock is taken at the start (waiting the busy timeout for it), never
  // half-way through a run's records.
  void begin() override { execute("BEGIN IMMEDIATE", {}); }
  void commit() override { execute("COMMIT", {}); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(db_))
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }

private:
  void bind(sqlite3_stmt *stmt, const Row &params) {
    sqlite3_clear_bindings(stmt);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const auto &v = params[i];
      if (const auto *n = std::get_if<std::int64_t>(&v))
        sqlite3_bind_int64(stmt, at, *n);
      else if (const auto *d = std::get_if<double>(&v))
        sqlite3_bind_double(stmt, at, *d);
      else if (const auto *s = std::get_if<std::string>(&v))
        sqlite3_bind_text(stmt, at, s->data(), static_cast<int>(s->size()), SQLITE_STATIC);
      else
        sqlite3_bind_null(stmt, at);
    }
  }

  static void read_row(sqlite3_stmt *stmt, Row &row) {
    const int n = sqlite3_column_count(stmt);
    row.assign(static_cast<std::size_t>(n), nullptr);
    for (int i = 0; i < n; ++i) {
      switch (sqlite3_column_type(stmt, i)) {
      case SQLITE_INTEGER:
        row[i] = static_cast<std::int64_t>(sqlite3_column_int64(stmt, i));
        break;
      case SQLITE_FLOAT:
        row[i] = sqlite3_column_double(stmt, i);
        break;
      case SQLITE_NULL:
        break;
      default:
        row[i] = std::string(reinterpret_cast<const char *>(sqlite3_column_text(stmt, i)),
                             static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
      }
    }
  }

  // Several processes opening one new file at once (each rank of a run with --db): switching it
  // to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY at once there instead of
  // through the busy handler (1 to 2 of 90 concurrent ingests into a new file failed so on the
  // 2-core VM). So it is tried again until the same timeout.
  void use_wal(double timeout_s) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
      const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK)
        return;
      const int primary = rc & 0xff;
      if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) ||
          std::chrono::steady_clock::now() >= deadline)
        fail("PRAGMA journal_mode=WAL");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  // A locked database is the common failure (another writer held it past the busy timeout):
  // said so, with what to do.
  [[noreturn]] void fail(const std::string &sql) {
    const int rc = sqlite3_errcode(db_);
    const std::string why = sqlite3_errmsg(db_);
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
      throw InputError(fmt::format("the database is locked by another process: {}", why), name(),
                       "wait for the other writer to finish (or stop it) and run again, or "
                       "raise --db-timeout-s");
    throw StatementRefused(
        fmt::format("the database refused a statement: {} ({})", why, sql.substr(0, 60)), name(),
        "check that the file is a railgauge history database");
  }

  std::string path_;
  sqlite3 *db_ = nullptr;
};

} // namespace

std::unique_ptr<Database> open_sqlite(const std::string &path, const OpenOptions &options) {
  return std::make_unique<SqliteDatabase>(path, options);
}

} // namespace railgauge::history
