// The CUDA error macros, on error codes made up here: no GPU needed.
#include <string>

#include <gtest/gtest.h>

#include "harness/cuda/check.h"
#include "harness/error.h"

namespace railgauge::gpu {
namespace {

cudaError_t returns(cudaError_t error) { return error; }

TEST(CudaCheck, ThrowsBackendErrorWithNameTextCallAndPlace) {
  try {
    RAILGAUGE_CUDA_CALL(returns(cudaErrorMemoryAllocation));
    FAIL() << "no exception";
  } catch (const BackendError &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("returns(cudaErrorMemoryAllocation) failed"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorMemoryAllocation (out of memory)"), std::string::npos) << what;
    EXPECT_NE(what.find("check_test.cpp:"), std::string::npos) << what;
  }
}

TEST(CudaCheck, SuccessPassesAndTheNoexceptVariantOnlyReports) {
  EXPECT_NO_THROW(RAILGAUGE_CUDA_CALL(returns(cudaSuccess)));
  ::testing::internal::CaptureStderr();
  RAILGAUGE_CUDA_CALL_NOEXCEPT(returns(cudaErrorInvalidValue));
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(printed.find("cudaErrorInvalidValue"), std::string::npos) << printed;
  static_assert(noexcept(report_status(cudaSuccess, "", "", 0)));
}

} // namespace
} // namespace railgauge::gpu
