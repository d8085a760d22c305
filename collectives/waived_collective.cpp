#include "collectives/waived_collective.h"

#include "collectives/collective_point.h"
#include "harness/waived_benchmark.h"

namespace railgauge::collectives {

std::unique_ptr<Benchmark> make_waived_collective(std::string key, Kind kind, bool textbook,
                                                  std::string reason) {
  return make_waived_collective(std::move(key), kind, collective_axes(kind, textbook),
                                std::move(reason));
}

std::unique_ptr<Benchmark> make_waived_collective(std::string key, Kind kind,
                                                  std::vector<Axis> axes, std::string reason) {
  std::string description = std::string(to_string(kind)) + " (" + reason + ")";
  return make_waived_benchmark(std::move(key), std::move(description), std::move(axes),
                               std::move(reason));
}

} // namespace railgauge::collectives
