// The verbs benchmarks' axes: the bandwidth tests take `memory` (host or gpu:N), the latency
// tests poll from the CPU and have none; a bad memory value is an input error that says how to
// write it.
#include <algorithm>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "rdma/verbs_benchmark.h"

namespace railgauge::rdma {
namespace {

bool has_axis(const Benchmark &b, const std::string &name) {
  const auto axes = b.axes();
  return std::any_of(axes.begin(), axes.end(), [&](const Axis &a) { return a.name == name; });
}

TEST(VerbsBenchmark, MemoryAxisOnBandwidthTestsOnly) {
  for (const auto &make : {make_write_bw, make_read_bw, make_send_bw}) {
    const auto b = make();
    EXPECT_TRUE(has_axis(*b, "memory")) << b->key();
    for (const auto &a : b->axes()) {
      if (a.name == "memory") {
        EXPECT_EQ(std::get<std::string>(a.defaults.at(0)), "host") << b->key();
      }
    }
  }
  for (const auto &make : {make_write_lat, make_read_lat, make_send_lat})
    EXPECT_FALSE(has_axis(*make(), "memory")) << make()->key();
}

TEST(VerbsBenchmark, MemoryValues) {
  EXPECT_EQ(parse_rdma_memory("host"), -1);
  EXPECT_EQ(parse_rdma_memory("gpu:0"), 0);
  EXPECT_EQ(parse_rdma_memory("gpu:12"), 12);
  for (const char *bad : {"", "gpu", "gpu:", "gpu:-1", "gpu:1x", "gpu: 1", "GPU:0", "hbm"}) {
    try {
      parse_rdma_memory(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError &e) {
      EXPECT_NE(e.fix().find("gpu:0"), std::string::npos) << e.what();
    }
  }
}

} // namespace
} // namespace railgauge::rdma
