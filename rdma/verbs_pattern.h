#pragma once
// The verbs and traffic patterns of the rdma family, shared by the benchmarks (built with or
// without libibverbs) and the verbs backend.
#include <string_view>

namespace railgauge::rdma {

enum class Verb { write, read, send };
enum class Pattern { bandwidth, bandwidth_bidirectional, latency };

constexpr std::string_view to_string(Verb v) {
  return v == Verb::write ? "write" : v == Verb::read ? "read" : "send";
}

} // namespace railgauge::rdma
