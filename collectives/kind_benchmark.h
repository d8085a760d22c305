#pragma once
// What every benchmark of one collective kind holds, whatever its backend: the kind it runs and
// the registry key and description made from it.
#include <string>
#include <string_view>
#include <utility>

#include "harness/benchmark.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

class KindBenchmark : public Benchmark {
public:
  std::string_view key() const override { return key_; }
  std::string_view description() const override { return description_; }

protected:
  KindBenchmark(Kind kind, std::string key, std::string description)
      : kind_(kind), key_(std::move(key)), description_(std::move(description)) {}

  Kind kind_;

private:
  std::string key_, description_;
};

} // namespace railgauge::collectives
