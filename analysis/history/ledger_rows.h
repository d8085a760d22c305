#pragma once
// The coverage ledger of a run (fabric_ledger.jsonl beside its records, written by the fabric
// acceptance and the pair matrices: records/coverage_ledger_file.h) as rows of the history's
// `ledger` table, so that a fleet can ask which links were exercised when, across every run.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/history/database.h"
#include "records/coverage_ledger_file.h"

namespace railgauge::history {

// run_id, host_id, link, kind, phase, via, time_s, round_index, flows, bad
extern const std::vector<std::string> kLedgerColumns;

// The ledger in `run_dir` (none when the run has none). InputError naming file:line for a line
// that is not a ledger line.
std::vector<records::LedgerLine> read_run_ledger(const std::string &run_dir);

std::vector<Row> ledger_rows(const std::vector<records::LedgerLine> &lines, std::int64_t run_row,
                             std::int64_t host_row);

} // namespace railgauge::history
