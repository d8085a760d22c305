#include "analysis/history/ledger_rows.h"

#include <filesystem>

namespace railgauge::history {

const std::vector<std::string> kLedgerColumns = {
    "run_id", "host_id", "link", "kind", "phase", "via", "time_s", "round_index", "flows", "bad"};

std::vector<records::LedgerLine> read_run_ledger(const std::string &run_dir) {
  return records::read_ledger_lines(
      (std::filesystem::path(run_dir) / records::kLedgerFileName).string());
}

std::vector<Row> ledger_rows(const std::vector<records::LedgerLine> &lines, std::int64_t run_row,
                             std::int64_t host_row) {
  std::vector<Row> rows;
  rows.reserve(lines.size());
  for (const auto &l : lines)
    rows.push_back({run_row, host_row, l.link, l.kind, l.phase,
                    l.via.empty() ? Value(nullptr) : Value(l.via), l.time_s, std::int64_t{l.round},
                    std::int64_t{l.flows}, std::int64_t{l.bad}});
  return rows;
}

} // namespace railgauge::history
