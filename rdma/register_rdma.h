#pragma once
#include <memory>
#include <string>

#include "harness/registry.h"
#include "rdma/ledger_place.h"

namespace railgauge {
// Adds every rdma benchmark to the registry, in the order `railgauge list` shows them.
// `ledger`: where the pair matrices' coverage ledger is written and read (ledger_place.h).
void register_rdma(Registry &registry, rdma::SharedLedgerPlace ledger = {});
} // namespace railgauge
