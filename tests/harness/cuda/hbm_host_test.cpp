// HBM benchmarks without a GPU: byte accounting, the default sweep, registration, and that
// every benchmark waives with a reason (never crashes) where CUDA cannot run.
#include <bit>
#include <set>

#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/error.h"
#include "harness/registry.h"
#include "harness/run_context.h"
#include "memory/cuda/hbm_burn.h"
#include "memory/cuda/hbm_stream.h"
#include "memory/cuda/register_memory_cuda.h"

namespace railgauge::memory {
namespace {

constexpr HbmKernel kAllKernels[] = {HbmKernel::read, HbmKernel::write, HbmKernel::copy,
                                     HbmKernel::triad, HbmKernel::library_copy};
constexpr auto kAllMakers = {make_hbm_read, make_hbm_write, make_hbm_copy, make_hbm_triad,
                             make_hbm_memcpy_d2d};

TEST(HbmBytes, CountsReadPlusWriteOncePerArrayLikeBabelStream) {
  const std::uint64_t n = 1 << 20;
  EXPECT_EQ(bytes_moved_per_call(HbmKernel::read, n), n);
  EXPECT_EQ(bytes_moved_per_call(HbmKernel::write, n), n);
  EXPECT_EQ(bytes_moved_per_call(HbmKernel::copy, n), 2 * n);
  EXPECT_EQ(bytes_moved_per_call(HbmKernel::triad, n), 3 * n);
  EXPECT_EQ(bytes_moved_per_call(HbmKernel::library_copy, n), 2 * n) << "not nvbandwidth's 1x";
  EXPECT_EQ(arrays_used(HbmKernel::read), 1);
  EXPECT_EQ(arrays_used(HbmKernel::write), 1);
  EXPECT_EQ(arrays_used(HbmKernel::copy), 2);
  EXPECT_EQ(arrays_used(HbmKernel::triad), 3);
  EXPECT_EQ(arrays_used(HbmKernel::library_copy), 2);
}

TEST(HbmSweep, WithoutGpuIsFixedFourKiBToFourGiB) {
  for (HbmKernel kernel : kAllKernels) {
    const auto sizes = hbm_default_sizes_bytes(kernel, std::nullopt);
    ASSERT_EQ(sizes.size(), 21u);
    EXPECT_EQ(sizes.front(), 4096);
    EXPECT_EQ(sizes.back(), std::int64_t{4} << 30);
  }
}

TEST(HbmSweep, ReachesMostOfFreeMemoryAndStaysInsideIt) {
  const std::uint64_t free_bytes = 79'000'000'000; // an H100 80GB with a context
  for (HbmKernel kernel : kAllKernels) {
    SCOPED_TRACE(static_cast<int>(kernel));
    const auto sizes = hbm_default_sizes_bytes(kernel, free_bytes);
    ASSERT_FALSE(sizes.empty());
    EXPECT_EQ(sizes.front(), 4096) << "starts inside L2";
    for (std::size_t i = 1; i < sizes.size(); ++i)
      EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
    const auto total_bytes = static_cast<std::uint64_t>(sizes.back()) * arrays_used(kernel);
    EXPECT_LE(total_bytes, free_bytes * 9 / 10);
    EXPECT_GT(2 * total_bytes, free_bytes * 9 / 10) << "the next power of two would not fit";
    EXPECT_GE(static_cast<std::uint64_t>(sizes.back()), std::uint64_t{16} << 30)
        << "far past the 50 MiB L2, whatever the kernel";
  }
  EXPECT_EQ(hbm_default_sizes_bytes(HbmKernel::read, 1024), std::vector<std::int64_t>{4096})
      << "at least one point, even when nothing fits";
}

TEST(HbmRegistration, AddsTheFiveKeysWithSizeAndGpuAxes) {
  Registry registry;
  register_memory_cuda(registry);
  std::vector<std::string> keys;
  for (const Benchmark *b : registry.all()) {
    keys.emplace_back(b->key());
    // every GPU at once: HbmBurn below, memory.pattern in hbm_pattern_host_test.cpp, and every
    // pair of GPUs: memory.peer_copy in peer_copy_host_test.cpp
    if (b->key() == "memory.burn" || b->key() == "memory.pattern" || b->key() == "memory.peer_copy")
      continue;
    EXPECT_FALSE(b->description().empty());
    const auto axes = b->axes();
    ASSERT_EQ(axes.size(), 2u);
    EXPECT_EQ(axes[0].name, "size_bytes");
    EXPECT_EQ(axes[0].type, AxisType::bytes);
    EXPECT_EQ(axes[1].name, "gpu");
    EXPECT_EQ(axes[1].type, AxisType::integer);
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"memory.hbm_read", "memory.hbm_write", "memory.hbm_copy",
                                      "memory.hbm_triad", "memory.hbm_memcpy_d2d", "memory.burn",
                                      "memory.pattern", "memory.peer_copy"}));
  EXPECT_EQ(registry.match("memory.hbm_*").size(), 5u);
}

// These tests are about a machine where CUDA cannot run (this build's CI machine); with a GPU,
// cuda_tests cover the same benchmarks for real.
class HbmWithoutGpu : public ::testing::Test {
protected:
  HbmWithoutGpu() : topology_(Topology::load_this_machine()), ctx_(topology_, sampler_, "t", 0) {}
  void SetUp() override {
    reason_ = gpu::cuda_unavailable_reason();
    if (!reason_)
      GTEST_SKIP() << "a CUDA device is usable here; cuda_tests (label gpu) cover it";
  }
  static Point point(std::int64_t size_bytes, std::int64_t device) {
    Point p;
    p.set("size_bytes", size_bytes);
    p.set("gpu", device);
    return p;
  }
  Topology topology_;
  GBenchSampler sampler_;
  RunContext ctx_;
  std::optional<std::string> reason_;
};

TEST_F(HbmWithoutGpu, ReasonNamesTheCudaCause) {
  EXPECT_EQ(gpu::cuda_device_count(), 0);
  // "no CUDA device: cudaGetDeviceCount returned cudaErrorNoDevice (...)", "no CUDA driver ...",
  // or "built without CUDA (...)".
  EXPECT_NE(reason_->find("CUDA"), std::string::npos) << *reason_;
  EXPECT_TRUE(reason_->find("cudaGetDeviceCount returned cudaError") != std::string::npos ||
              reason_->find("built without CUDA") != std::string::npos)
      << *reason_;
}

TEST_F(HbmWithoutGpu, EveryBenchmarkWaivesWithTheReasonAndNeverThrows) {
  for (auto make : kAllMakers) {
    auto bench = make();
    SCOPED_TRACE(std::string(bench->key()));
    for (std::int64_t device : {0, 3}) {
      const Point p = point(1 << 20, device);
      const auto why = bench->supported(ctx_, p);
      ASSERT_TRUE(why.has_value());
      EXPECT_EQ(*why, *reason_);
      Outcome out;
      ASSERT_NO_THROW(out = bench->run(ctx_, p));
      EXPECT_EQ(out.status, Status::waived);
      EXPECT_EQ(out.reason, reason_);
    }
  }
}

TEST_F(HbmWithoutGpu, DefaultsStillCarryTheFixedSweepAndGpuZero) {
  for (auto make : kAllMakers) {
    auto bench = make();
    SCOPED_TRACE(std::string(bench->key()));
    const auto axes = bench->axes();
    const auto sizes = bench->defaults_here(axes[0], ctx_);
    ASSERT_EQ(sizes.size(), 21u);
    EXPECT_EQ(std::get<std::int64_t>(sizes.front()), 4096);
    EXPECT_EQ(std::get<std::int64_t>(sizes.back()), std::int64_t{4} << 30);
    const auto gpus = bench->defaults_here(axes[1], ctx_);
    EXPECT_EQ(gpus, (std::vector<AxisValue>{std::int64_t{0}}));
  }
}

TEST_F(HbmWithoutGpu, CudaObjectsThrowBackendErrorNotCrash) {
  EXPECT_THROW(gpu::cuda_device_info(0), BackendError);
  EXPECT_THROW(gpu::CudaEventTimer timer(0), BackendError);
}

} // namespace
} // namespace railgauge::memory

namespace railgauge::memory {
namespace {

HbmBurnGpuResult burned(int gpu, double gbytes_per_s) {
  HbmBurnGpuResult g;
  g.gpu = gpu;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-" + std::to_string(gpu);
  g.pci = "0000:1" + std::to_string(gpu) + ":00.0";
  g.bandwidth_gbytes_per_s = gbytes_per_s;
  g.elements = 1 << 27;
  g.calls = 1000;
  return g;
}

TEST(HbmBurn, AxesAndWaiverWithoutAGpu) {
  const auto bench = make_hbm_burn();
  EXPECT_EQ(bench->key(), "memory.burn");
  const auto axes = bench->axes();
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].name, "size_bytes");
  EXPECT_EQ(axes[0].type, AxisType::bytes);
  EXPECT_EQ(axes[1].name, "duration_s");
  EXPECT_EQ(axes[2].name, "gpu");
  if (!gpu::cuda_unavailable_reason())
    GTEST_SKIP() << "a CUDA device is usable here";
  Topology topology = Topology::load_this_machine();
  GBenchSampler sampler;
  RunContext ctx(topology, sampler, "t", 0);
  Point p;
  p.set("size_bytes", std::int64_t{1} << 30);
  p.set("duration_s", 30.0);
  p.set("gpu", std::int64_t{-1});
  const Outcome out = bench->run(ctx, p);
  EXPECT_EQ(out.status, Status::waived);
  EXPECT_EQ(*out.reason, *gpu::cuda_unavailable_reason());
}

TEST(HbmBurn, OutcomeComparesTheGpusAndNamesWrongData) {
  std::vector<HbmBurnGpuResult> gpus = {burned(0, 4000), burned(1, 4100), burned(2, 3400)};
  Outcome ok = hbm_burn_outcome(gpus);
  EXPECT_EQ(ok.status, Status::ok);
  EXPECT_EQ(ok.metrics.at("slowest_gpu"), 2);
  EXPECT_DOUBLE_EQ(ok.metrics.at("bandwidth_gbytes_per_s_median"), 4000);
  EXPECT_DOUBLE_EQ(ok.metrics.at("slowest_vs_median"), 3400.0 / 4000);
  EXPECT_EQ(ok.metrics.at("per_gpu").size(), 3u);
  EXPECT_TRUE(ok.metrics.at("verified").get<bool>());

  gpus[1].wrong_elements = 5;
  const Outcome bad = hbm_burn_outcome(gpus);
  EXPECT_EQ(bad.status, Status::failed);
  EXPECT_NE(bad.reason->find("GPU 1 (NVIDIA H200, GPU-1"), std::string::npos) << *bad.reason;
  EXPECT_EQ(bad.metrics.at("per_gpu")[1].at("verdict"), "failed");
  EXPECT_FALSE(bad.metrics.at("verified").get<bool>());

  gpus[1].wrong_elements = 0;
  gpus[0].error = "cudaErrorECCUncorrectable";
  const Outcome broke = hbm_burn_outcome(gpus);
  EXPECT_EQ(broke.status, Status::error);
  EXPECT_NE(broke.reason->find("cudaErrorECCUncorrectable"), std::string::npos);
  EXPECT_EQ(hbm_burn_outcome({}).status, Status::error);
}

} // namespace
} // namespace railgauge::memory
