#pragma once
#include <memory>
#include <string>

#include "harness/benchmark.h"
#include "rdma/ledger_place.h"

namespace railgauge::rdma {

std::unique_ptr<Benchmark> make_tcp_lat();
std::unique_ptr<Benchmark> make_tcp_bw();
// The run directory, once made, is where rank 0 writes the coverage ledger (rdma/matrix_ledger.h).
std::unique_ptr<Benchmark> make_tcp_pair_matrix(SharedLedgerPlace ledger = {});

// The axes both TCP point benchmarks share: mode and bind_address.
void add_tcp_axes(std::vector<Axis> &axes);

} // namespace railgauge::rdma
