// Offload benchmarks without a GPU: registration and axes, byte accounting, the data pattern,
// and that every benchmark waives with a reason (never crashes) where CUDA cannot run.
#include <set>

#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "harness/cuda/gemm_load_values.h"
#include "harness/registry.h"
#include "harness/run_context.h"
#include "offload/offload_benchmark.h"
#include "offload/pattern.h"
#include "offload/register_offload.h"

namespace railgauge::offload {
namespace {

std::vector<std::string> axis_names(const Benchmark &b) {
  std::vector<std::string> names;
  for (const auto &a : b.axes())
    names.push_back(a.name);
  return names;
}

TEST(OffloadRegistration, EightKeysWithTheirAxes) {
  Registry registry;
  register_offload(registry);
  std::vector<std::string> keys;
  for (const Benchmark *b : registry.all()) {
    keys.emplace_back(b->key());
    EXPECT_FALSE(b->description().empty());
    for (const auto &axis : b->axes()) {
      EXPECT_FALSE(axis.help.empty()) << b->key() << " " << axis.name;
      EXPECT_FALSE(axis.defaults.empty()) << b->key() << " " << axis.name;
    }
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"offload.h2d", "offload.d2h", "offload.bidir",
                                            "offload.zero_copy_read", "offload.zero_copy_write",
                                            "offload.all_gpus_h2d", "offload.all_gpus_d2h",
                                            "offload.with_gemm"}));
  using V = std::vector<std::string>;
  EXPECT_EQ(axis_names(*registry.find("offload.h2d")),
            (V{"size_bytes", "gpu", "host_memory", "placement"}));
  EXPECT_EQ(axis_names(*registry.find("offload.d2h")),
            (V{"size_bytes", "gpu", "host_memory", "placement"}));
  EXPECT_EQ(axis_names(*registry.find("offload.bidir")), (V{"size_bytes", "gpu", "placement"}));
  EXPECT_EQ(axis_names(*registry.find("offload.zero_copy_read")),
            (V{"size_bytes", "gpu", "placement"}));
  EXPECT_EQ(axis_names(*registry.find("offload.all_gpus_h2d")), (V{"size_bytes", "placement"}));
  EXPECT_EQ(axis_names(*registry.find("offload.with_gemm")),
            (V{"size_bytes", "gpu", "placement", "direction", "gemm_mnk"}));
  EXPECT_EQ(registry.match("offload.*").size(), 8u);
}

TEST(OffloadBytes, CountedOnceAcrossTheLinkPerDirectionAndGpu) {
  const std::uint64_t n = 1 << 20;
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::h2d, n), n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::d2h, n), n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::zero_copy_read, n), n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::zero_copy_write, n), n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::with_gemm, n), n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::bidir, n), 2 * n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::all_gpus_h2d, n, 8), 8 * n);
  EXPECT_EQ(offload_bytes_per_call(OffloadPath::all_gpus_d2h, n, 3), 3 * n);
  EXPECT_EQ(host_buffers(OffloadPath::bidir, 8), 2);
  EXPECT_EQ(host_buffers(OffloadPath::all_gpus_h2d, 8), 8);
  EXPECT_EQ(host_buffers(OffloadPath::h2d, 8), 1);
  EXPECT_EQ(device_buffers(OffloadPath::bidir), 2);
  EXPECT_EQ(device_buffers(OffloadPath::zero_copy_write), 1);
  const std::uint64_t mnk = 8192;
  EXPECT_EQ(gpu::gemm_load_device_bytes(8192),
            2 * mnk * mnk * 2 + mnk * mnk * 4 + (std::uint64_t{32} << 20));
}

TEST(OffloadPattern, NeighboursAndSeedsDiffer) {
  std::set<std::uint32_t> words;
  for (std::uint64_t i = 0; i < 4096; ++i)
    words.insert(pattern_word(i, 7));
  EXPECT_EQ(words.size(), 4096u) << "a misplaced word within 16 KiB shows";
  for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{12345}, std::uint64_t{1} << 33})
    EXPECT_NE(pattern_word(i, 1), pattern_word(i, 2));
  EXPECT_NE(pattern_word(5, 1), pattern_word(5 + (std::uint64_t{1} << 32), 1))
      << "indexes past 2^32 words (16 GiB) do not alias";
  std::set<int> values;
  for (std::uint64_t i = 0; i < 1000; ++i)
    values.insert(gpu::gemm_load_input_value(i, 3));
  EXPECT_EQ(values, (std::set<int>{-1, 0, 1}));
}

class OffloadWithoutGpu : public ::testing::Test {
protected:
  OffloadWithoutGpu()
      : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "t", 0) {}
  void SetUp() override {
    reason_ = gpu::cuda_unavailable_reason();
    if (!reason_)
      GTEST_SKIP() << "a CUDA device is usable here; offload_gpu_tests (label gpu) cover it";
    register_offload(registry_);
  }
  Point point(const Benchmark &b) const {
    Point p;
    for (const auto &axis : b.axes())
      p.set(axis.name, axis.defaults.front());
    return p;
  }
  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
  Registry registry_;
  std::optional<std::string> reason_;
};

TEST_F(OffloadWithoutGpu, EveryBenchmarkWaivesWithTheCudaReason) {
  for (Benchmark *b : registry_.all()) {
    SCOPED_TRACE(std::string(b->key()));
    const Point p = point(*b);
    const auto why = b->supported(ctx_, p);
    ASSERT_TRUE(why.has_value());
    EXPECT_EQ(*why, *reason_);
    Outcome out;
    ASSERT_NO_THROW(out = b->run(ctx_, p));
    EXPECT_EQ(out.status, Status::waived);
    EXPECT_EQ(out.reason, reason_);
  }
}

TEST_F(OffloadWithoutGpu, DefaultsHereKeepTheSweepAndGpuZero) {
  for (Benchmark *b : registry_.all()) {
    SCOPED_TRACE(std::string(b->key()));
    for (const auto &axis : b->axes()) {
      const auto values = b->defaults_here(axis, ctx_);
      ASSERT_FALSE(values.empty());
      if (axis.name == "gpu") {
        EXPECT_EQ(values, (std::vector<AxisValue>{std::int64_t{0}}));
      }
      if (axis.name == "size_bytes" && b->key() != "offload.with_gemm") {
        EXPECT_EQ(std::get<std::int64_t>(values.front()), 4096);
        // Bounded by this machine's available memory, never past 4 GiB.
        EXPECT_LE(std::get<std::int64_t>(values.back()), std::int64_t{4} << 30);
      }
    }
  }
}

} // namespace
} // namespace railgauge::offload
