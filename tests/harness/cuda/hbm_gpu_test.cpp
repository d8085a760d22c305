// HBM benchmarks on a real GPU (label gpu): every kernel's data is right at a few sizes, the
// bandwidth is plausible, its record reads back through MemoryPoint, a corrupted array fails the
// point. Fails, never skips, without a GPU.
#include <regex>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "tests/support/quick_run_context.h"

#include "harness/cuda/device.h"
#include "harness/run_context.h"
#include "harness/runner.h"
#include "memory/cuda/hbm_stream.h"
#include "records/memory_point.h"

namespace railgauge::memory {
namespace {

constexpr auto kAllMakers = {make_hbm_read, make_hbm_write, make_hbm_copy, make_hbm_triad,
                             make_hbm_memcpy_d2d};
// Far above any HBM (H100 3.35 TB/s, H200 4.8 TB/s, B200 8 TB/s); L2 at 4 KiB can beat HBM,
// but not this.
constexpr double kImplausibleGBytesPerS = 10'000;

class HbmOnGpu : public testing::QuickRunContextTest {
protected:
  void SetUp() override {
    const auto why = gpu::cuda_unavailable_reason();
    ASSERT_FALSE(why.has_value()) << "these tests need a CUDA GPU: " << *why;
  }
  static Point point(std::int64_t size_bytes, std::int64_t device = 0) {
    Point p;
    p.set("size_bytes", size_bytes);
    p.set("gpu", device);
    return p;
  }
};

// What the writer put in its MemoryPoint, read back through the same struct from the record the
// runner makes of the outcome.
void expect_reads_back(const HbmStreamBenchmark &bench, Outcome out, const Point &point,
                       const gpu::CudaDeviceInfo &info) {
  Record planned;
  planned.key = std::string(bench.key());
  planned.params = point.params();
  const auto read = record::MemoryPoint::read(outcome_record(planned, out));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->gpu_name, info.name);
  EXPECT_EQ(read->sm_count, info.sm_count);
  EXPECT_EQ(read->l2_bytes, static_cast<std::int64_t>(info.l2_bytes));
  EXPECT_EQ(read->total_bytes, *read->size_bytes * arrays_used(bench.kernel()));
  EXPECT_EQ(read->grid_blocks.has_value(), bench.kernel() != HbmKernel::library_copy);
  EXPECT_EQ(read->block_threads.has_value(), bench.kernel() != HbmKernel::library_copy);
  EXPECT_EQ(read->wrong_elements, 0);
  EXPECT_TRUE(read->verified);
  EXPECT_FALSE(read->telemetry.is_null());
}

TEST_F(HbmOnGpu, EveryKernelIsVerifiedWithPlausibleBandwidth) {
  const gpu::CudaDeviceInfo info = gpu::cuda_device_info(0);
  for (auto make : kAllMakers) {
    auto bench = make();
    for (std::int64_t size : {std::int64_t{4096}, std::int64_t{1} << 20, std::int64_t{3} << 24,
                              std::int64_t{1} << 28}) {
      SCOPED_TRACE(std::string(bench->key()) + " size_bytes=" + std::to_string(size));
      const Outcome out = bench->run(ctx_, point(size));
      ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
      EXPECT_TRUE(out.metrics.at("verified").get<bool>());
      EXPECT_EQ(out.metrics.at("wrong_elements").get<std::uint64_t>(), 0u);
      EXPECT_EQ(out.metrics.at("timer"), "cuda_event");
      EXPECT_EQ(out.metrics.at("bytes_per_call").get<std::uint64_t>(),
                bytes_moved_per_call(bench->kernel(), static_cast<std::uint64_t>(size)));
      const double median = out.metrics.at("bandwidth_gbytes_per_s").get<double>();
      const double best = out.metrics.at("bandwidth_max_gbytes_per_s").get<double>();
      EXPECT_GT(median, 0);
      EXPECT_GE(best, median);
      EXPECT_LT(best, kImplausibleGBytesPerS);
      EXPECT_EQ(out.device.at("gpu"), info.uuid);
      EXPECT_EQ(out.device.at("pci"), info.pci_bus_id);
      expect_reads_back(*bench, out, point(size), info);
    }
  }
  EXPECT_TRUE(
      std::regex_match(info.uuid, std::regex("GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")))
      << info.uuid;
  EXPECT_TRUE(std::regex_match(info.pci_bus_id,
                               std::regex("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]")))
      << info.pci_bus_id;
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0u);
  EXPECT_GT(info.free_memory_bytes, 0u);
  EXPECT_LE(info.free_memory_bytes, info.total_memory_bytes);
}

TEST_F(HbmOnGpu, LargeArraysReachHbmBandwidth) {
  // 1 GiB per array is far past L2: an H100's HBM3 gives about 3 TB/s; anything under 100 GB/s
  // means the kernel is not what it should be (a scalar loop, one block).
  auto bench = make_hbm_copy();
  const Outcome out = bench->run(ctx_, point(std::int64_t{1} << 30));
  ASSERT_EQ(out.status, Status::ok) << out.reason.value_or("");
  EXPECT_GT(out.metrics.at("bandwidth_gbytes_per_s").get<double>(), 100);
}

TEST_F(HbmOnGpu, CorruptedOutputFailsThePoint) {
  for (auto make : kAllMakers) {
    auto bench = make();
    SCOPED_TRACE(std::string(bench->key()));
    bench->set_before_verify([&](const HbmArrays &arrays) {
      double *checked =
          arrays.c != nullptr && bench->kernel() != HbmKernel::triad ? arrays.c : arrays.a;
      ASSERT_EQ(cudaMemset(checked + 100, 0xff, 3 * sizeof(double)), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    });
    const Outcome out = bench->run(ctx_, point(1 << 20));
    EXPECT_EQ(out.status, Status::failed);
    EXPECT_NE(out.reason.value_or("").find("3 of 131072 elements"), std::string::npos)
        << out.reason.value_or("");
    EXPECT_FALSE(out.metrics.at("verified").get<bool>());
  }
}

TEST_F(HbmOnGpu, WaivesAGpuThatDoesNotExistAndOddSizes) {
  auto bench = make_hbm_read();
  const auto missing = bench->supported(ctx_, point(4096, gpu::cuda_device_count()));
  ASSERT_TRUE(missing.has_value());
  EXPECT_NE(missing->find("does not exist"), std::string::npos) << *missing;
  const auto odd = bench->supported(ctx_, point(4100));
  ASSERT_TRUE(odd.has_value());
  EXPECT_NE(odd->find("multiple of 16"), std::string::npos) << *odd;
  const auto huge = bench->supported(ctx_, point(std::int64_t{1} << 50));
  ASSERT_TRUE(huge.has_value());
  EXPECT_NE(huge->find("free"), std::string::npos) << *huge;
}

TEST_F(HbmOnGpu, DefaultsCoverEveryGpuAndReachPastL2) {
  auto bench = make_hbm_triad();
  const auto axes = bench->axes();
  const auto gpus = bench->defaults_here(axes[1], ctx_);
  EXPECT_EQ(gpus.size(), static_cast<std::size_t>(gpu::cuda_device_count()));
  const auto sizes = bench->defaults_here(axes[0], ctx_);
  EXPECT_EQ(std::get<std::int64_t>(sizes.front()), 4096);
  EXPECT_GT(static_cast<std::uint64_t>(std::get<std::int64_t>(sizes.back())),
            8 * gpu::cuda_device_info(0).l2_bytes);
}

} // namespace
} // namespace railgauge::memory
