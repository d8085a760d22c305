#pragma once
// Samples straight from the timer in a plain loop, without Google Benchmark: it keeps one
// registry per process, which ranks as threads would share, and tests of the measurement core
// want to count the rounds it asks for.
#include <string_view>
#include <vector>

#include "harness/measure.h"

namespace railgauge::testing {

class LoopSampler final : public Sampler {
public:
  std::string_view name() const override { return "loop"; }
  std::vector<double> take(Timer &timer, const Operation &op, std::int64_t batch, int n) override {
    std::vector<double> out;
    for (int i = 0; i < n; ++i)
      out.push_back(timer.time_batch_s(op, batch));
    ++rounds;
    return out;
  }
  int rounds = 0; // calls of take()
};

} // namespace railgauge::testing
