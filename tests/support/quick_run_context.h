#pragma once
// A test fixture base for running whole benchmark points: this machine's topology, the real
// Google Benchmark sampler and a RunContext with a short measurement (a few samples, 50 ms),
// so that a point runs through the same core as in `railgauge run`, only briefly.
#include <gtest/gtest.h>

#include "harness/run_context.h"

namespace railgauge::testing {

class QuickRunContextTest : public ::testing::Test {
protected:
  QuickRunContextTest()
      : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "test", 0) {
    MeasureSpec spec;
    spec.warmup_runs = 1;
    spec.min_samples = 3;
    spec.max_samples = 50;
    spec.time_budget_s = 0.05;
    ctx_.set_measure_spec(spec);
  }
  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
};

} // namespace railgauge::testing
