// The fleet history in PostgreSQL (libpq): one server for a fleet whose nodes ingest at once.
// The password comes from libpq's own PGPASSWORD or ~/.pgpass, or from --db-password-file;
// never from the URL. Waits are bounded: connect_timeout for the connection, lock_timeout for a
// row or table another ingest holds.
#include <libpq-fe.h>

#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "analysis/history/database.h"
#include "harness/error.h"

namespace railgauge::history {
namespace {

struct ResultFree {
  void operator()(PGresult *r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultFree>;

// `?` -> `$1`, `$2`, ...: one spelling of every statement for both databases. The statements
// are railgauge's own and hold no `?` in a literal.
std::string numbered(const std::string &sql) {
  std::string out;
  int n = 0;
  for (char c : sql)
    if (c == '?')
      out += fmt::format("${}", ++n);
    else
      out += c;
  return out;
}

// COPY's text format: tab between columns, \N for null, backslash escapes.
void append_copy_field(std::string &out, const Value &v) {
  if (std::holds_alternative<std::nullptr_t>(v)) {
    out += "\\N";
    return;
  }
  if (!std::holds_alternative<std::string>(v)) {
    out += as_text(v);
    return;
  }
  // Runs of plain characters are appended whole: a fleet's records are a few hundred million
  // characters, and a character at a time was a tenth of an ingest's own CPU time.
  const auto &text = std::get<std::string>(v);
  std::size_t plain = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char *escaped = c == '\\'   ? "\\\\"
                          : c == '\t' ? "\\t"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                                      : nullptr;
    if (!escaped)
      continue;
    out.append(text, plain, i - plain);
    out += escaped;
    plain = i + 1;
  }
  out.append(text, plain, std::string::npos);
}

class PostgresDatabase final : public Database {
public:
  PostgresDatabase(const std::string &url, const std::optional<std::string> &password,
                   const OpenOptions &options)
      : url_(url) {
    const std::string timeout = std::to_string(std::max(1L, std::lround(options.timeout_s)));
    std::vector<const char *> keys{"dbname", "connect_timeout", "application_name"};
    std::vector<const char *> values{url.c_str(), timeout.c_str(), "railgauge"};
    if (password) {
      keys.push_back("password");
      values.push_back(password->c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    conn_ = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      const auto why = last_error();
      PQfinish(conn_);
      conn_ = nullptr;
      throw InputError(fmt::format("cannot reach the PostgreSQL server: {}", why), name(),
                       "start the server or fix the URL's host, port and database; the "
                       "password goes in PGPASSWORD, ~/.pgpass or --db-password-file");
    }
    PQsetNoticeProcessor(
        conn_, [](void *, const char *) {}, nullptr); // "already exists"
    execute(fmt::format("SET lock_timeout = {}", std::lround(options.timeout_s * 1000)), {});
  }
  ~PostgresDatabase() override { PQfinish(conn_); }

  std::string dialect() const override { return "postgresql"; }
  std::string name() const override { return url_; }

  void execute(const std::string &sql, const Row &params) override { run(sql, params); }

  std::vector<Row> query(const std::string &sql, const Row &params) override {
    const auto r = run(sql, params);
    std::vector<Row> rows;
    for (int i = 0; i < PQntuples(r.get()); ++i)
      rows.push_back(read_row(r.get(), i));
    return rows;
  }

  void for_each(const std::string &sql, const Row &params,
                const std::function<void(const Row &)> &visit) override {
    const auto text = text_params(params);
    streaming_ = true;
    const struct Done {
      bool &streaming;
      ~Done() { streaming = false; }
    } done{streaming_};
    if (!PQsendQueryParams(conn_, numbered(sql).c_str(), static_cast<int>(text.size()), nullptr,
                           pointers(text).data(), nullptr, nullptr, 0) ||
        !PQsetSingleRowMode(conn_))
      fail(nullptr, sql);
    std::optional<std::string> failure;
    while (Result r{PQgetResult(conn_)}) {
      const auto status = PQresultStatus(r.get());
      if (status == PGRES_SINGLE_TUPLE && !failure)
        visit(read_row(r.get(), 0));
      else if (status != PGRES_TUPLES_OK && status != PGRES_SINGLE_TUPLE && !failure)
        note_failure(r.get(), failure);
    }
    if (failure)
      fail_with(*failure, sql);
  }

  void insert_rows(const std::string &table, const std::vector<std::string> &columns,
                   const std::vector<Row> &rows) override {
    const auto sql = fmt::format("COPY {} ({}) FROM STDIN", table, fmt::join(columns, ", "));
    not_streaming(sql);
    Result start{PQexec(conn_, sql.c_str())};
    if (PQresultStatus(start.get()) != PGRES_COPY_IN)
      fail(start.get(), sql);
    std::string chunk;
    const auto flush = [&] {
      if (PQputCopyData(conn_, chunk.data(), static_cast<int>(chunk.size())) != 1)
        fail(nullptr, sql);
      chunk.clear();
    };
    for (const auto &row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (i)
          chunk += '\t';
        append_copy_field(chunk, row[i]);
      }
      chunk += '\n';
      if (chunk.size() > (1 << 20))
        flush();
    }
    flush();
    if (PQputCopyEnd(conn_, nullptr) != 1)
      fail(nullptr, sql);
    std::optional<std::string> failure;
    while (Result r{PQgetResult(conn_)})
      if (PQresultStatus(r.get()) != PGRES_COMMAND_OK && !failure)
        note_failure(r.get(), failure);
    if (failure)
      fail_with(*failure, sql);
  }

  void begin() override {
    retryable_ = false;
    execute("BEGIN", {});
  }
  void commit() override { execute("COMMIT", {}); }
  void rollback() noexcept override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE)
      PQclear(PQexec(conn_, "ROLLBACK"));
  }
  bool retryable_failure() const override { return retryable_; }

private:
  bool streaming_ = false; // inside for_each: no other statement may run
  // libpq would drop the stream's rows not yet read, without a word, to run another statement:
  // every record after it would go unjudged.
  void not_streaming(const std::string &sql) const {
    if (streaming_)
      throw std::logic_error(
          "a statement inside a streamed query (Database::for_each) would end its stream: " + sql);
  }
  static std::vector<std::optional<std::string>> text_params(const Row &params) {
    std::vector<std::optional<std::string>> text;
    for (const auto &v : params)
      text.push_back(std::holds_alternative<std::nullptr_t>(v) ? std::nullopt
                                                               : std::optional(as_text(v)));
    return text;
  }
  static std::vector<const char *> pointers(const std::vector<std::optional<std::string>> &text) {
    std::vector<const char *> p;
    for (const auto &t : text)
      p.push_back(t ? t->c_str() : nullptr);
    return p;
  }

  Result run(const std::string &sql, const Row &params) {
    not_streaming(sql);
    const auto text = text_params(params);
    Result r{PQexecParams(conn_, numbered(sql).c_str(), static_cast<int>(text.size()), nullptr,
                          pointers(text).data(), nullptr, nullptr, 0)};
    const auto status = PQresultStatus(r.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      fail(r.get(), sql);
    return r;
  }

  static Row read_row(const PGresult *r, int i) {
    Row row(static_cast<std::size_t>(PQnfields(r)), nullptr);
    for (int c = 0; c < PQnfields(r); ++c) {
      if (PQgetisnull(r, i, c))
        continue;
      const char *text = PQgetvalue(r, i, c);
      switch (PQftype(r, c)) {
      case 20:
      case 21:
      case 23: // int8, int2, int4
        row[c] = static_cast<std::int64_t>(std::stoll(text));
        break;
      case 700:
      case 701:
      case 1700: // float4, float8, numeric
        row[c] = std::stod(text);
        break;
      default:
        row[c] = std::string(text, static_cast<std::size_t>(PQgetlength(r, i, c)));
      }
    }
    return row;
  }

  std::string last_error() const {
    std::string e = conn_ ? PQerrorMessage(conn_) : "out of memory";
    while (!e.empty() && (e.back() == '\n' || e.back() == ' '))
      e.pop_back();
    return e;
  }

  void note_failure(const PGresult *r, std::optional<std::string> &failure) {
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    const std::string sqlstate = state ? state : "";
    retryable_ = sqlstate == "40001" || sqlstate == "40P01";
    std::string message = PQresultErrorMessage(r);
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    failure = (sqlstate == "55P03" ? "locked: " : "") + message;
  }

  [[noreturn]] void fail(const PGresult *r, const std::string &sql) {
    std::optional<std::string> failure;
    if (r)
      note_failure(r, failure);
    fail_with(failure.value_or(last_error()), sql);
  }

  [[noreturn]] void fail_with(const std::string &why, const std::string &sql) {
    if (PQstatus(conn_) != CONNECTION_OK)
      throw InputError(fmt::format("lost the PostgreSQL server: {}", why), name(),
                       "check that the server is up and reachable, then run again");
    if (why.rfind("locked: ", 0) == 0)
      throw InputError(fmt::format("the database is locked by another session: {}", why.substr(8)),
                       name(),
                       "wait for the other session to finish and run again, or raise "
                       "--db-timeout-s");
    throw StatementRefused(
        fmt::format("the database refused a statement: {} ({})", why, sql.substr(0, 60)), name(),
        "check that the database is a railgauge history database");
  }

  std::string url_;
  PGconn *conn_ = nullptr;
  bool retryable_ = false;
};

} // namespace

std::unique_ptr<Database> open_postgresql(const std::string &url,
                                          const std::optional<std::string> &password,
                                          const OpenOptions &options) {
  return std::make_unique<PostgresDatabase>(url, password, options);
}

} // namespace railgauge::history
