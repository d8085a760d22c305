// The verbs benchmarks' axes: the bandwidth tests take `memory` (host or gpu:N), the latency
// tests poll from the CPU and have none; a bad memory value is an input error that says how to
// write it.
#include <algorithm>

#include <gtest/gtest.h>

#include "harness/error.h"
#include "harness/store/memory_store.h"
#include "rdma/verbs_benchmark.h"
#include "tests/support/thread_ranks.h"

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

// Every verbs point takes `iterations` (0: the --measure rule; N: perftest's -n); a negative
// count is an input error saying what to use, before anything is opened.
TEST(VerbsBenchmark, IterationsAxis) {
  Topology topology = Topology::load_this_machine();
  testing::LoopSampler sampler;
  RunContext ctx(topology, sampler, "test", 0);
  for (const auto &make :
       {make_write_bw, make_read_bw, make_send_bw, make_write_lat, make_read_lat, make_send_lat}) {
    const auto b = make();
    ASSERT_TRUE(has_axis(*b, "iterations")) << b->key();
    Point p = testing::first_default_point(*b);
    EXPECT_EQ(p.integer("iterations"), 0) << b->key();
    p.set("iterations", std::int64_t{-5});
    try {
      b->supported(ctx, p);
      ADD_FAILURE() << b->key() << " accepted iterations=-5";
    } catch (const InputError &e) {
      EXPECT_NE(e.fix().find("2000"), std::string::npos) << e.what();
    }
  }
}

// rdma.pair_matrix on a machine without RDMA devices (this one, CI): every rank waives the point
// with the reason the verbs layer gave, the same on every rank; one rank is not a matrix.
TEST(VerbsPairMatrix, WithoutDevicesEveryRankWaivesSayingWhy) {
  std::string why;
  if (!verbs_device_names(why).empty())
    GTEST_SKIP() << "this machine has RDMA devices (the softroce tier runs the matrix)";
  MemoryStore store;
  const auto outs =
      testing::run_ranks_as_threads(3, store, testing::brief_measure_spec(), [](RunContext &ctx) {
        auto bench = make_verbs_pair_matrix();
        Point p = testing::first_default_point(*bench);
        EXPECT_FALSE(bench->supported(ctx, p).has_value());
        return bench->run(ctx, p);
      });
  for (const Outcome &o : outs) {
    EXPECT_EQ(o.status, Status::waived);
    EXPECT_EQ(o.reason.value_or(""), outs[0].reason.value_or(""));
    EXPECT_NE(o.reason.value_or("").find(why), std::string::npos) << *o.reason << " / " << why;
  }
  Topology topology = Topology::load_this_machine();
  testing::LoopSampler sampler;
  RunContext alone(topology, sampler, "test", 0);
  Point p;
  auto bench = make_verbs_pair_matrix();
  EXPECT_NE(bench->supported(alone, p).value_or("").find("at least 2 ranks"), std::string::npos);
}

} // namespace
} // namespace railgauge::rdma
