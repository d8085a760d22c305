#pragma once
// The fabric under load: rdma.qp_scaling (one stream over 1..64 QPs: the entropy curve),
// rdma.incast (N-1 senders to one receiver: fairness, aggregate, congestion counters at every end)
// and rdma.latency_under_load (a ping-pong behind bulk WRITEs or an incast). docs/rdma.md.
#include <memory>

#include "harness/benchmark.h"

namespace railgauge::rdma {

std::unique_ptr<Benchmark> make_qp_scaling();
std::unique_ptr<Benchmark> make_incast();
std::unique_ptr<Benchmark> make_latency_under_load();

} // namespace railgauge::rdma
