#pragma once
// The fleet history's database: one small interface, two implementations behind it. SQLite is
// the embedded default (one file, no server); PostgreSQL serves a fleet whose nodes ingest at
// once. Every statement is written once, in the SQL both accept: `?` marks a parameter (the
// PostgreSQL side numbers them $1, $2, ...), and `INSERT ... ON CONFLICT ... DO NOTHING
// RETURNING` is how a row is claimed exactly once.
//
// Every failure to reach, lock or read the database is an InputError (exit 4) naming the
// database and how to fix it: nothing measured is ever written only to the database, so a
// refused database loses nothing (the run directories stay the source of truth).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "harness/error.h"

namespace railgauge::history {

// The database refused one statement (not a connection lost, nor a lock held past the timeout):
// what it refused costs only the transaction it was in, and a command may go on with the next.
class StatementRefused : public InputError {
public:
  using InputError::InputError;
};

using Value = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using Row = std::vector<Value>;

// A column of a row read back: null, or the type asked for (an integer column read as a
// double is converted; anything else is a bug in the query and throws std::logic_error).
std::optional<std::int64_t> as_int(const Value &v);
std::optional<double> as_double(const Value &v);
std::string as_text(const Value &v); // "" for null

class Database {
public:
  virtual ~Database() = default;
  // "sqlite" or "postgresql": the little DDL that differs (schema.cpp) asks.
  virtual std::string dialect() const = 0;
  // The URL without anything secret, for messages.
  virtual std::string name() const = 0;

  virtual void execute(const std::string &sql, const Row &params = {}) = 0;
  virtual std::vector<Row> query(const std::string &sql, const Row &params = {}) = 0;
  // Row by row, never the whole result in memory (PostgreSQL's single-row mode).
  virtual void for_each(const std::string &sql, const Row &params,
                        const std::function<void(const Row &)> &visit) = 0;
  // Many rows into one table inside the open transaction: SQLite a prepared INSERT, PostgreSQL
  // COPY (a record a row, a million rows a fleet).
  virtual void insert_rows(const std::string &table, const std::vector<std::string> &columns,
                           const std::vector<Row> &rows) = 0;

  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // True when the last failure was one a retry of the whole transaction cures (PostgreSQL
  // serialization failure or deadlock).
  virtual bool retryable_failure() const { return false; }
};

struct OpenOptions {
  // How long a statement waits for a lock another writer holds (SQLite busy timeout,
  // PostgreSQL lock_timeout) and for a connection, before the database is refused as locked
  // or unreachable.
  double timeout_s = 30;
  // A file holding the PostgreSQL password, readable by its owner only (mode 0600 or tighter).
  std::optional<std::string> password_file;
  // SQLite: create the file where there is none. A command that only reads the history (check
  // --history without runs, db list, report --history) refuses a path that holds no database: a
  // typo created an empty one, which db list read as 0 runs, exit 0.
  bool create = true;
};

// `sqlite:PATH` (the file is created), or `postgresql://[user@]host[:port]/db[?param=...]`
// (also `postgres://`). A password in the URL is refused: it belongs in PGPASSWORD, ~/.pgpass
// or --db-password-file. The schema is created or checked (schema.h) before this returns.
std::unique_ptr<Database> open_database(const std::string &url, const OpenOptions &options = {});

// What open_database checks of the URL before it connects (its scheme, a file for SQLite, no
// password in it), without connecting: a command that opens the database only at its end (`run
// --db`) refuses a URL it could never use before it measures anything. InputError when bad.
void check_database_url(const std::string &url);

// The backends, each in its own file (a stub where the build lacks its library).
std::unique_ptr<Database> open_sqlite(const std::string &path, const OpenOptions &options);
// `password`: read from --db-password-file; otherwise libpq's own PGPASSWORD or ~/.pgpass.
std::unique_ptr<Database> open_postgresql(const std::string &url,
                                          const std::optional<std::string> &password,
                                          const OpenOptions &options);

// Runs `body` in one transaction, committed when it returns, rolled back when it throws; a
// transaction the database says to retry (a serialization failure) is retried, at most
// `attempts` times.
void in_transaction(Database &db, const std::function<void()> &body, int attempts = 5);

} // namespace railgauge::history
