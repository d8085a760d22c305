#include "analysis/history/storable_text.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace railgauge::history {
namespace {

// nlohmann's strict dump refuses bytes that are not UTF-8; ASCII (nearly every text) is valid
// without it.
bool is_utf8(const std::string &text) {
  if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x80; }))
    return true;
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error &) {
    return false;
  }
}

} // namespace

void check_storable(const std::string &run_dir, const std::string &field, const std::string &text,
                    std::size_t max_bytes) {
  const auto refuse = [&](const std::string &why) {
    throw RunNotStorable(
        fmt::format("the run cannot be stored: its {} {}", field, why), run_dir,
        "correct that field in the run's run.json or records.jsonl (or re-import the run), then "
        "ingest it again; the other runs are stored");
  };
  if (std::memchr(text.data(), '\0', text.size()) != nullptr)
    refuse("holds a NUL character, which PostgreSQL cannot store in text");
  if (!is_utf8(text))
    refuse("is not UTF-8");
  if (text.size() > max_bytes)
    refuse(fmt::format("is {} bytes long, over the {} an index of the history holds", text.size(),
                       max_bytes));
}

void check_storable(const std::string &run_dir, const std::string &table,
                    const std::vector<std::string> &columns, const Row &row) {
  for (std::size_t i = 0; i < row.size() && i < columns.size(); ++i)
    if (const auto *text = std::get_if<std::string>(&row[i]))
      check_storable(run_dir, fmt::format("{}.{}", table, columns[i]), *text);
}

} // namespace railgauge::history
