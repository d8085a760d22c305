#pragma once
// A fixture for running FakeBenchmarks through the runner: this machine's topology, a context on
// host "testhost", a registry of fakes, and the suite entry (as if from s.yaml:3) that selects
// every fake with a measurement short enough for a unit test.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "harness/registry.h"
#include "harness/run_context.h"
#include "harness/suite.h"
#include "tests/harness/fake_benchmark.h"

namespace railgauge::testing {

class FakeRunFixture : public ::testing::Test {
protected:
  FakeRunFixture(const std::vector<std::string> &keys, double time_budget_s)
      : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "testhost", 0) {
    for (const auto &key : keys)
      registry_.add(std::make_unique<FakeBenchmark>(key));
    entry_.key_glob = "fake.*";
    entry_.where = "s.yaml:3";
    entry_.measure.min_samples = 2;
    entry_.measure.time_budget_s = time_budget_s;
    entry_.measure.max_rel_noise = 1;
  }

  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
  Registry registry_;
  SuiteEntry entry_;
};

} // namespace railgauge::testing
