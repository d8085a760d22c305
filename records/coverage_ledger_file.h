#pragma once
// The coverage ledger's file (fabric_ledger.jsonl in a run directory), one JSON line per link
// and round exercised:
//
//   {"link":"node0017/mlx5_3 - leaf-r3-g00[18]","kind":"nic_leaf","time_s":1795000000.0,
//    "round":2,"phase":"coverage","flows":8,"bad":0,"via":"rdma.pair_matrix write"}
//
// The fabric acceptance and the pair matrices write and read it (rdma/fabric/coverage_ledger.h,
// rdma/matrix_ledger.h); the fleet history ingests it (analysis/history/ledger_rows.h).
#include <string>
#include <vector>

namespace railgauge::records {

inline constexpr const char *kLedgerFileName = "fabric_ledger.jsonl";

struct LedgerLine {
  std::string link, kind, phase;
  double time_s = 0;
  int round = 0, flows = 0, bad = 0;
  std::string via; // what exercised it ("rdma.pair_matrix write"); not written when empty
};

// Appends the lines; InputError naming the file when it cannot be written.
void append_ledger_lines(const std::string &path, const std::vector<LedgerLine> &lines);
// Every line of the file (none when there is no file); InputError naming file:line for a line
// that is not a ledger line.
std::vector<LedgerLine> read_ledger_lines(const std::string &path);

} // namespace railgauge::records
