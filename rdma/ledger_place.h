#pragma once
// Where the pair matrices' coverage ledger (rdma/matrix_ledger.h) is written and read: the run
// directory, filled in by the command line once it has made it (rank 0 writes its lines there,
// and `cover_since` reads the ledgers beside it), and, when the run was given `--db`, the fleet
// history's ledger table, so that runs in other --out directories or on other nodes count too.
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace railgauge::rdma {

// Each NIC cable's latest time (Unix seconds) exercised since `since_s`, by link label. Throws
// when its store cannot be read: the point becomes an error naming it.
using StoredLedger = std::function<std::map<std::string, double>(double since_s)>;

struct LedgerPlace {
  std::string run_dir; // empty: no ledger written or read beside it
  StoredLedger stored; // empty: no store but the run directories
};

using SharedLedgerPlace = std::shared_ptr<const LedgerPlace>;

} // namespace railgauge::rdma
