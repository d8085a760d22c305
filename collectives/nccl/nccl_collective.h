#pragma once
// The NCCL backend's benchmarks: collectives.nccl_<kind> (built only with NCCL).
#include <memory>

#include "collectives/bus_bandwidth.h"
#include "harness/benchmark.h"

namespace railgauge::collectives {
std::unique_ptr<Benchmark> make_nccl_collective(Kind kind);
} // namespace railgauge::collectives
