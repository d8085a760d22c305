#pragma once
// A collectives benchmark of a backend this build does not have: the same key and axes as the
// real one, every point waived with the reason (so suites and `railgauge list` are the same on
// every build).
#include <memory>
#include <string>
#include <vector>

#include "harness/benchmark.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

std::unique_ptr<Benchmark> make_waived_collective(std::string key, Kind kind, bool textbook,
                                                  std::string reason);
// The same for a benchmark whose axes are not a kind's (collectives.*_all_reduce_with_gemm).
std::unique_ptr<Benchmark> make_waived_collective(std::string key, Kind kind,
                                                  std::vector<Axis> axes, std::string reason);

} // namespace railgauge::collectives
