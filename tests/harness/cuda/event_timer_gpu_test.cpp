// The CUDA-event timer and its blocking kernel on a real GPU (label gpu).
#include <chrono>
#include <stdexcept>
#include <thread>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "harness/cuda/check.h"
#include "harness/cuda/device.h"
#include "harness/cuda/event_timer.h"
#include "harness/cuda/resources.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {

class EventTimerOnGpu : public ::testing::Test {
protected:
  void SetUp() override {
    const auto why = cuda_unavailable_reason();
    ASSERT_FALSE(why.has_value()) << "these tests need a CUDA GPU: " << *why;
  }
};

TEST_F(EventTimerOnGpu, TimesABatchOnTheGpu) {
  CudaEventTimer timer(0);
  EXPECT_EQ(timer.name(), "cuda_event");
  const DeviceGuard guard(0);
  DeviceBuffer buffer(std::size_t{64} << 20);
  const auto memset = [&] {
    RAILGAUGE_CUDA_CALL(cudaMemsetAsync(buffer.get(), 1, buffer.bytes(), timer.stream()));
  };
  const double one_s = timer.time_batch_s(memset, 1);
  const double ten_s = timer.time_batch_s(memset, 10);
  EXPECT_GT(one_s, 0);
  EXPECT_LT(one_s, 1.0);
  EXPECT_GT(ten_s, 5 * one_s) << "ten memsets take about ten times one";
  EXPECT_GE(timer.time_batch_s(memset, 0), 0) << "an empty batch releases too";
}

TEST_F(EventTimerOnGpu, SlowEnqueueIsExcluded) {
  // The host takes 50 ms to enqueue a batch of short memsets; the GPU waits behind the blocking
  // kernel, so the events time only the memsets.
  CudaEventTimer timer(0);
  const DeviceGuard guard(0);
  DeviceBuffer buffer(4096);
  const double s = timer.time_batch_s(
      [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        RAILGAUGE_CUDA_CALL(cudaMemsetAsync(buffer.get(), 0, buffer.bytes(), timer.stream()));
      },
      5);
  EXPECT_LT(s, 0.01) << "the host's enqueue time leaked into the GPU time";
}

TEST_F(EventTimerOnGpu, BlockingKernelGivesUpInsteadOfHanging) {
  CudaEventTimer timer(0, /*spin_timeout_s=*/0.2);
  const auto start = std::chrono::steady_clock::now();
  try {
    timer.time_batch_s([] { std::this_thread::sleep_for(std::chrono::milliseconds(600)); }, 1);
    FAIL() << "a batch enqueued slower than the spin timeout must be an error";
  } catch (const BackendError &e) {
    EXPECT_NE(std::string(e.what()).find("blocking kernel"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // The stream is free again: the next batch works.
  EXPECT_GE(timer.time_batch_s([] {}, 1), 0);
}

TEST_F(EventTimerOnGpu, AThrowingOperationReleasesTheStream) {
  CudaEventTimer timer(0, /*spin_timeout_s=*/30);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(timer.time_batch_s([] { throw std::runtime_error("boom"); }, 1), std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5))
      << "released at once, not after the 30 s timeout";
  EXPECT_GE(timer.time_batch_s([] {}, 3), 0);
}

TEST_F(EventTimerOnGpu, DeviceInfoMatchesTheRuntime) {
  const CudaDeviceInfo info = cuda_device_info(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_capability, 70);
  EXPECT_THROW(cuda_device_info(cuda_device_count()), BackendError);
}

} // namespace
} // namespace railgauge::gpu
