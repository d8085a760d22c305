#include "analysis/history/unreadable_paths.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/history/storable_text.h"
#include "harness/record.h"

namespace railgauge::history {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The absolute path, its links resolved (as far as it exists), lexically normal and without a
// trailing separator: how rows are matched to the directories an ingest walks. Through a link
// (data -> /mnt) a run fixed and ingested again by the other path once left its row behind.
std::string absolute_of(const std::string &path) {
  std::error_code ec;
  auto resolved = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec)
    resolved = fs::absolute(path);
  auto p = resolved.lexically_normal().string();
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  return p;
}

// A path as text the database stores: bytes that are not UTF-8 replaced (U+FFFD), in quotes.
std::string storable_path(const std::string &path) {
  try {
    check_storable(path, "path", path);
    return path;
  } catch (const RunNotStorable &) {
    return json(path).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

} // namespace

void store_unreadable(Database &db, const std::vector<std::string> &roots,
                      const std::vector<analysis::UnreadablePath> &unreadable) {
  std::vector<std::string> under;
  for (const auto &root : roots)
    under.push_back(absolute_of(root));
  const auto now = utc_timestamp_now();
  std::vector<Row> rows;
  for (const auto &u : unreadable)
    rows.push_back({storable_path(u.path), storable_path(absolute_of(u.path)),
                    storable_path(u.what), now,
                    u.host.empty() ? Value(nullptr) : Value(storable_path(u.host))});
  in_transaction(db, [&] {
    std::vector<std::int64_t> stale;
    db.for_each("SELECT id, under FROM unreadable", {}, [&](const Row &row) {
      const auto path = as_text(row[1]);
      if (std::any_of(under.begin(), under.end(), [&](const std::string &root) {
            return path == root ||
                   (path.starts_with(root) && (root == "/" || path[root.size()] == '/'));
          }))
        stale.push_back(as_int(row[0]).value_or(0));
    });
    for (const auto id : stale)
      db.execute("DELETE FROM unreadable WHERE id = ?", {id});
    if (!rows.empty())
      db.insert_rows("unreadable", {"path", "under", "what", "seen_utc", "host"}, rows);
  });
}

std::vector<std::string> unread_files_of(const analysis::RunSet &set,
                                         const analysis::LoadedRun &run) {
  std::vector<std::string> out;
  for (const auto &u : set.unreadable)
    if (fs::path(u.path).parent_path() == fs::path(run.dir))
      out.push_back(fmt::format("{}: {}", u.path, u.what));
  return out;
}

} // namespace railgauge::history
