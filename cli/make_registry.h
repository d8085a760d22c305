#pragma once
// Every family's benchmarks in one registry: the command line's (railgauge_cli), which links the
// families; the core (registry.h) knows none of them.
#include <memory>
#include <string>

#include "harness/registry.h"
#include "rdma/ledger_place.h"

namespace railgauge {

// All families, in the order `railgauge list` shows them. `ledger`: the run directory once
// measure_entries has made it, and the fleet history with --db (the pair matrices' coverage
// ledger).
Registry make_registry(rdma::SharedLedgerPlace ledger = {});

} // namespace railgauge
