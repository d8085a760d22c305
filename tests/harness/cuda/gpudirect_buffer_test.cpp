// GpuDirectBuffer where no GPU can be used (this file runs in CI): construction fails with the
// reason cuda_unavailable_reason() gives, so a verbs point on GPU memory is waived or fails
// with it, never runs on memory that is not there.
#include <gtest/gtest.h>

#include "harness/cuda/device.h"
#include "harness/cuda/gpudirect_buffer.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {

TEST(GpuDirectBuffer, WithoutAUsableGpuConstructionSaysWhy) {
  const auto why = cuda_unavailable_reason();
  if (!why)
    GTEST_SKIP() << "a CUDA device is usable here: gpudirect_buffer_gpu_test covers it";
  try {
    GpuDirectBuffer buffer(0, 4096);
    FAIL() << "a GPU buffer without a GPU";
  } catch (const BackendError &e) {
    EXPECT_EQ(std::string(e.what()), *why);
  }
}

} // namespace
} // namespace railgauge::gpu
