#pragma once
// The MPI backend's benchmarks (built only with MPI; register_collectives_mpi registers them).
#include <memory>

#include "collectives/mpi/mpi_point.h"
#include "harness/benchmark.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

std::unique_ptr<Benchmark> make_mpi_collective(Kind kind, std::shared_ptr<MpiFamily> family,
                                               std::shared_ptr<MpiTestHooks> hooks);
std::unique_ptr<Benchmark> make_mpi_textbook(Kind kind, std::shared_ptr<MpiFamily> family,
                                             std::shared_ptr<MpiTestHooks> hooks);
// collectives.mpi_all_reduce_with_gemm: an all_reduce beside a CPU GEMM on every rank.
std::unique_ptr<Benchmark> make_mpi_all_reduce_with_gemm(std::shared_ptr<MpiFamily> family,
                                                         std::shared_ptr<MpiTestHooks> hooks);

} // namespace railgauge::collectives
