#include "analysis/history/database.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "analysis/history/schema.h"
#include "harness/error.h"

namespace railgauge::history {

std::optional<std::int64_t> as_int(const Value &v) {
  if (std::holds_alternative<std::nullptr_t>(v))
    return std::nullopt;
  if (const auto *i = std::get_if<std::int64_t>(&v))
    return *i;
  throw std::logic_error("history: an integer column holds something else");
}

std::optional<double> as_double(const Value &v) {
  if (std::holds_alternative<std::nullptr_t>(v))
    return std::nullopt;
  if (const auto *d = std::get_if<double>(&v))
    return *d;
  if (const auto *i = std::get_if<std::int64_t>(&v))
    return static_cast<double>(*i);
  throw std::logic_error("history: a number column holds text");
}

std::string as_text(const Value &v) {
  if (const auto *s = std::get_if<std::string>(&v))
    return *s;
  if (const auto *i = std::get_if<std::int64_t>(&v))
    return std::to_string(*i);
  if (const auto *d = std::get_if<double>(&v))
    return fmt::format("{}", *d);
  return "";
}

namespace {

constexpr const char *kUrlFix =
    "give --db sqlite:PATH (a file, created when missing) or --db postgresql://[USER@]HOST[:PORT]/"
    "DATABASE, the password in PGPASSWORD, ~/.pgpass or --db-password-file";

// A password never travels on a command line (every user of the machine reads it in `ps`) nor
// in a record: a URL holding one is refused, and says where it belongs.
void refuse_password_in(const std::string &url) {
  const auto scheme_end = url.find("://");
  const auto authority_start = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const auto authority_end = url.find_first_of("/?", authority_start);
  const auto authority = url.substr(authority_start, authority_end == std::string::npos
                                                         ? std::string::npos
                                                         : authority_end - authority_start);
  const auto at = authority.rfind('@');
  const bool in_userinfo =
      at != std::string::npos && authority.substr(0, at).find(':') != std::string::npos;
  const auto query = url.find('?');
  const bool in_query =
      query != std::string::npos && (url.find("?password=", query) != std::string::npos ||
                                     url.find("&password=", query) != std::string::npos);
  if (in_userinfo || in_query)
    throw InputError("the database URL holds a password", "--db",
                     "leave the password out of the URL: put it in PGPASSWORD, in ~/.pgpass "
                     "(mode 0600), or in a file given with --db-password-file (mode 0600)");
}

// The password file: owned by this user and readable by nobody else, as libpq asks of
// ~/.pgpass; its first line is the password.
std::string read_password_file(const std::string &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw InputError(fmt::format("cannot read the password file: {}", std::strerror(errno)), path,
                     "give --db-password-file a file holding the password on its first line");
  if ((st.st_mode & 077) != 0 || st.st_uid != ::geteuid())
    throw InputError(
        fmt::format("the password file is readable by others (mode {:04o})", st.st_mode & 07777),
        path, fmt::format("chmod 600 {} (and own it as this user)", path));
  std::ifstream in(path);
  std::string password;
  if (!in || !std::getline(in, password) || password.empty())
    throw InputError("the password file holds no password", path,
                     "write the password on the file's first line");
  return password;
}

bool is_postgresql(const std::string &url) {
  return url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
}

// The file of a sqlite: URL; "" when the URL is not SQLite's.
std::string sqlite_path(const std::string &url) {
  if (url.rfind("sqlite:", 0) != 0)
    return "";
  auto path = url.substr(7);
  if (path.rfind("//", 0) == 0)
    path = path.substr(2); // sqlite:///abs/path
  if (path.empty())
    throw InputError("the SQLite URL names no file", url, kUrlFix);
  return path;
}

} // namespace

void check_database_url(const std::string &url) {
  if (!sqlite_path(url).empty())
    return;
  if (!is_postgresql(url))
    throw InputError(fmt::format("unknown database URL '{}'", url), "--db", kUrlFix);
  refuse_password_in(url);
}

std::unique_ptr<Database> open_database(const std::string &url, const OpenOptions &options) {
  check_database_url(url);
  std::unique_ptr<Database> db;
  if (const auto path = sqlite_path(url); !path.empty()) {
    db = open_sqlite(path, options);
  } else {
    std::optional<std::string> password;
    if (options.password_file)
      password = read_password_file(*options.password_file);
    db = open_postgresql(url, password, options);
  }
  prepare_schema(*db);
  return db;
}

void in_transaction(Database &db, const std::function<void()> &body, int attempts) {
  for (int attempt = 1;; ++attempt) {
    db.begin();
    try {
      body();
      db.commit();
      return;
    } catch (...) {
      const bool retry = db.retryable_failure() && attempt < attempts;
      db.rollback();
      if (!retry)
        throw;
    }
  }
}

} // namespace railgauge::history
