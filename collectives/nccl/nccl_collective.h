#pragma once
// The NCCL backend's benchmarks (built only with NCCL): collectives.nccl_<kind>, NCCL's own
// collective, and collectives.nccl_textbook_<kind>, a textbook algorithm over NCCL send/recv.
#include <memory>

#include "harness/benchmark.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {
std::unique_ptr<Benchmark> make_nccl_collective(Kind kind);
// all_reduce, all_gather and reduce_scatter (algorithms_for() is not empty).
std::unique_ptr<Benchmark> make_nccl_textbook(Kind kind);
// collectives.nccl_all_reduce_with_gemm: an all_reduce beside a cuBLASLt GEMM on each GPU.
std::unique_ptr<Benchmark> make_nccl_all_reduce_with_gemm();
} // namespace railgauge::collectives
