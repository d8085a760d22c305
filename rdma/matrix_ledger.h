#pragma once
// The pair matrix and the coverage ledger (rdma/fabric/coverage_ledger.h): rank 0 appends one
// line per NIC cable its pairs exercised to fabric_ledger.jsonl in its run directory, and
// `-a cover_since=DURATION` plans only the NIC cables that no ledger of the runs beside this one
// (the same --out directory), nor with --db the fleet history's, saw exercised since then. A pair's flow also climbs an uplink, but
// ECMP picks which and the matrix traces no path, so its lines name NIC cables only.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/axis.h"
#include "harness/store/store.h"
#include "rdma/coverage_rounds.h"
#include "rdma/ledger_place.h"
#include "rdma/pair_matrix_run.h"

namespace railgauge::rdma {

inline constexpr const char *kLedgerFileName = records::kLedgerFileName;

Axis cover_since_axis();

// The ledgers of the runs under the same output directory as `run_dir` (<out>/<run>/ or
// <out>/<run>/rank-NNNNN/), this one's included; sorted.
std::vector<std::string> ledgers_beside(const std::string &run_dir);

// What `cover_since` ("" when unset) asks of this point, the same on every rank: rank 0 reads
// the ledgers beside `run_dir` and the `stored` one (the fleet history's, when given), and shares
// each link's latest time since then through the store under `key`; the others wait for them at
// most `timeout`. InputError for a bad duration.
CoverSince agree_cover_since(const std::string &cover_since, const std::string &run_dir,
                             Store &store, const std::string &key, int rank, Milliseconds timeout,
                             double now_s, const StoredLedger &stored = {});

// The lines of a finished matrix from rank 0's metrics (pairs and retests): per NIC cable and
// phase ("matrix", "retest"), how many pairs crossed it and how many of those were bad or
// failed. `via`: how, e.g. "rdma.pair_matrix write".
std::vector<fabric::LedgerLine> matrix_ledger_lines(const MatrixTopology &m,
                                                    const nlohmann::json &metrics, double time_s,
                                                    const std::string &via);

// Appends rank 0's lines to <run_dir>/fabric_ledger.jsonl (nothing without a run directory).
void write_matrix_ledger(const std::string &run_dir, const MatrixTopology &m,
                         const nlohmann::json &metrics, const std::string &via);

// A matrix point's cover_since axis into `spec`, agreed by every rank (before its rounds).
// InputError when it is given without coverage_k.
void agree_matrix_cover_since(RunContext &ctx, const Point &p, PairMatrixSpec &spec,
                              const SharedLedgerPlace &place);
// Rank 0, after a matrix that ran: its ledger lines into its run directory.
void write_matrix_ledger(const RunContext &ctx, const Outcome &out, const MatrixEndpoints &eps,
                         const PairMatrixSpec &spec, const SharedLedgerPlace &place,
                         const std::string &via);

} // namespace railgauge::rdma
