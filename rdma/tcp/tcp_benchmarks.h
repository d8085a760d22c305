#pragma once
#include <memory>

#include "harness/benchmark.h"

namespace railgauge::rdma {

std::unique_ptr<Benchmark> make_tcp_lat();
std::unique_ptr<Benchmark> make_tcp_bw();
std::unique_ptr<Benchmark> make_tcp_pair_matrix();

// The axes both TCP point benchmarks share: mode and bind_address.
void add_tcp_axes(std::vector<Axis> &axes);

} // namespace railgauge::rdma
