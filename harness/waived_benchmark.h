#pragma once
// A benchmark this build cannot run (built without its backend): the same key and axes as the
// real one, so that suites and `railgauge list` are the same on every build, and every point
// waived with the reason.
#include <memory>
#include <string>
#include <vector>

#include "harness/benchmark.h"

namespace railgauge {

std::unique_ptr<Benchmark> make_waived_benchmark(std::string key, std::string description,
                                                 std::vector<Axis> axes, std::string reason);

} // namespace railgauge
