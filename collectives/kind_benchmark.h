#pragma once
// What every benchmark of one collective kind holds, whatever its backend: the kind it runs and
// the registry key and description made from it.
#include <string>
#include <string_view>
#include <utility>

#include "harness/benchmark.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

class KindBenchmark : public KeyedBenchmark {
protected:
  KindBenchmark(Kind kind, std::string key, std::string description)
      : KeyedBenchmark(std::move(key), std::move(description)), kind_(kind) {}

  Kind kind_;
};

} // namespace railgauge::collectives
