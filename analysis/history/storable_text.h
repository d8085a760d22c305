#pragma once
// Text the history stores is checked before it is sent, so that SQLite and PostgreSQL store or
// refuse a run alike: PostgreSQL refuses a NUL in text and bytes that are not UTF-8 (SQLite
// stores both), and a key of a unique index longer than a third of its 8 kB page (SQLite has no
// such limit). One run refused costs only itself: ingest names it with the reason and stores
// the others.
#include <cstddef>
#include <string>

#include "analysis/history/database.h"
#include "harness/error.h"

namespace railgauge::history {

// A run the history cannot store as it is: named by its directory, with what to fix.
class RunNotStorable : public InputError {
public:
  using InputError::InputError;
};

// The longest text of a column in a unique index (a run id, a part's slot and identity, a
// ledger link): a PostgreSQL btree row holds at most 2,704 bytes, and the parts index holds
// three such texts.
inline constexpr std::size_t kMaxIndexedTextBytes = 512;

// Throws RunNotStorable naming `field` of the run in `run_dir` when `text` holds a NUL, is not
// UTF-8, or is longer than `max_bytes`.
void check_storable(const std::string &run_dir, const std::string &field, const std::string &text,
                    std::size_t max_bytes = std::string::npos);

// Every text of `row` (the columns named by `columns`) checked as check_storable does.
void check_storable(const std::string &run_dir, const std::string &table,
                    const std::vector<std::string> &columns, const Row &row);

} // namespace railgauge::history
