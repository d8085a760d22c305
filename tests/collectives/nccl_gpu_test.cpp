// NCCL collectives on the GPUs of this machine, one process driving all of them (label gpu):
// every kind's data is right in and out of place, and a group split runs on the split
// communicators with the group's size. Fails, never skips, without a GPU.
#include <gtest/gtest.h>

#include "tests/support/quick_run_context.h"

#include "collectives/bus_bandwidth.h"
#include "collectives/nccl/nccl_collective.h"
#include "harness/cuda/device.h"

namespace railgauge::collectives {
namespace {

// Every axis at its default, then the given overrides.
Point point_of(const Benchmark &bench, const std::vector<std::pair<std::string, AxisValue>> &set) {
  Point p;
  for (const auto &a : bench.axes()) {
    bool overridden = false;
    for (const auto &[name, value] : set)
      overridden = overridden || name == a.name;
    if (!overridden)
      p.set(a.name, a.defaults.front());
  }
  for (const auto &[name, value] : set)
    p.set(name, value);
  return p;
}

class NcclOnGpus : public testing::QuickRunContextTest {
protected:
  void SetUp() override {
    const auto why = gpu::cuda_unavailable_reason();
    ASSERT_FALSE(why.has_value()) << "these tests need a CUDA GPU: " << *why;
    gpus_ = gpu::cuda_device_count();
  }
  int gpus_ = 0;
};

TEST_F(NcclOnGpus, EveryKindIsVerifiedInAndOutOfPlace) {
  for (const Kind kind : all_kinds()) {
    auto bench = make_nccl_collective(kind);
    for (const char *placement : {"out_of_place", "in_place"}) {
      const Point p = point_of(
          *bench, {{"size_bytes", std::int64_t{1} << 20}, {"in_place", std::string(placement)}});
      SCOPED_TRACE(std::string(bench->key()) + " " + p.label());
      if (const auto why = bench->supported(ctx_, p)) {
        ADD_FAILURE() << "waived: " << *why;
        continue;
      }
      const Outcome out = bench->run(ctx_, p);
      ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
      EXPECT_TRUE(out.metrics.at("verified").get<bool>());
      EXPECT_GT(out.metrics.at("busbw_gbytes_per_s").get<double>(), 0);
      EXPECT_EQ(out.derived_params.at("group_type"), "world");
      EXPECT_EQ(out.derived_params.at("group_size"), gpus_);
    }
  }
}

TEST_F(NcclOnGpus, GroupSplitsRunOnTheGroupsCommunicators) {
  auto bench = make_nccl_collective(Kind::all_reduce);
  // tp=1: every GPU its own tensor group; dp: all of them.
  for (const auto &[type, size] : {std::pair{"tp", 1}, std::pair{"dp", gpus_}}) {
    const Point p = point_of(*bench, {{"size_bytes", std::int64_t{1} << 20},
                                      {"groups", std::string("tp=1+dp=rest")},
                                      {"group_type", std::string(type)}});
    SCOPED_TRACE(p.label());
    ASSERT_FALSE(bench->supported(ctx_, p).has_value()) << *bench->supported(ctx_, p);
    const Outcome out = bench->run(ctx_, p);
    ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
    EXPECT_TRUE(out.metrics.at("verified").get<bool>());
    EXPECT_EQ(out.derived_params.at("group_type"), type);
    EXPECT_EQ(out.derived_params.at("group_size"), size);
    EXPECT_EQ(out.derived_params.at("world_size"), gpus_);
  }
  const Point concurrent = point_of(
      *bench, {{"groups", std::string("tp=1+dp=rest")}, {"group_type", std::string("concurrent")}});
  EXPECT_TRUE(bench->supported(ctx_, concurrent).has_value());
}

} // namespace
} // namespace railgauge::collectives
