// The waiver of a machine whose driver is too old for this build names the driver branch that
// is needed and, where the driver runs an older CUDA major, the toolkit to build with instead.
#include <gtest/gtest.h>

#include "harness/cuda/driver_needed.h"

namespace railgauge::gpu {
namespace {

TEST(DriverNeeded, BranchPerCudaMajor) {
  EXPECT_EQ(minimum_driver_branch(13000), 580);
  EXPECT_EQ(minimum_driver_branch(13020), 580);
  EXPECT_EQ(minimum_driver_branch(12080), 525);
  EXPECT_EQ(minimum_driver_branch(11080), 450);
  EXPECT_EQ(minimum_driver_branch(10020), 0);
}

TEST(DriverNeeded, AnR570FleetIsToldTheBranchAndTheCuda12Build) {
  // R570 drivers report CUDA 12.8.
  const auto why = insufficient_driver_reason(12080, 13000);
  EXPECT_NE(why.find("supports CUDA 12.8"), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA 13.0 runtime"), std::string::npos) << why;
  EXPECT_NE(why.find("R580 or newer"), std::string::npos) << why;
  EXPECT_NE(why.find("CUDA 12.x toolkit"), std::string::npos) << why;
}

TEST(DriverNeeded, NoDriverAtAllSaysSo) {
  const auto why = insufficient_driver_reason(0, 13000);
  EXPECT_NE(why.find("no NVIDIA driver is loaded"), std::string::npos) << why;
  EXPECT_NE(why.find("R580"), std::string::npos) << why;
  EXPECT_EQ(why.find("toolkit"), std::string::npos) << why;
}

TEST(DriverNeeded, SameMajorOlderMinorNeedsOnlyTheDriver) {
  const auto why = insufficient_driver_reason(12020, 12080);
  EXPECT_NE(why.find("R525 or newer"), std::string::npos) << why;
  EXPECT_EQ(why.find("toolkit"), std::string::npos) << why;
}

} // namespace
} // namespace railgauge::gpu
