// The every-GPU device check without a GPU to load: a device past the visible ones and one that
// cannot be queried are named before any per-device problem is asked (the burns' waivers).
#include <gtest/gtest.h>

#include "harness/cuda/every_gpu_check.h"

namespace railgauge::gpu {
namespace {

std::optional<std::string> never_asked(int device, const CudaDeviceInfo &) {
  ADD_FAILURE() << "the device problem was asked for device " << device;
  return std::nullopt;
}

TEST(EveryGpuCheck, AGpuPastTheVisibleOnesIsNamed) {
  const int visible = cuda_device_count();
  EXPECT_EQ(every_gpu_problem({visible}, visible, never_asked),
            "gpu=" + std::to_string(visible) + " does not exist here: " + std::to_string(visible) +
                " CUDA device(s) visible");
}

TEST(EveryGpuCheck, ADeviceThatCannotBeQueriedIsNamed) {
  // One more device said visible than there is: its query fails, and the reason names it.
  const int visible = cuda_device_count();
  const auto why = every_gpu_problem({visible}, visible + 1, never_asked);
  ASSERT_TRUE(why);
  EXPECT_EQ(why->rfind("CUDA device " + std::to_string(visible) + " cannot be queried: ", 0), 0u)
      << *why;
}

TEST(EveryGpuCheck, NoDevicesHaveNoProblem) {
  EXPECT_EQ(every_gpu_problem({}, 0, never_asked), std::nullopt);
}

// Without usable CUDA the point's options are never read; with it, an axis out of range is the
// reason, and a point read well is judged by its check.
TEST(EveryGpuCheck, APointIsReadOnlyWhereCudaRuns) {
  const auto out_of_range = [](int) -> int {
    throw InputError("gpu = 9 is out of range", "gpu", "give 0");
  };
  const auto fine = [](int, int) -> std::optional<std::string> { return std::nullopt; };
  if (const auto why = cuda_unavailable_reason()) {
    EXPECT_EQ(every_gpu_point_problem(out_of_range, fine), why);
    return;
  }
  EXPECT_EQ(every_gpu_point_problem(out_of_range, fine), "gpu = 9 is out of range");
  EXPECT_EQ(every_gpu_point_problem([](int visible) { return visible; },
                                    [](int read, int visible) -> std::optional<std::string> {
                                      return read == visible ? "checked" : "not checked";
                                    }),
            "checked");
}

// A point's one named GPU: below zero or past the visible ones, named with their range.
TEST(EveryGpuCheck, ANamedGpuOutsideTheVisibleRangeIsNamedWithTheRange) {
  EXPECT_EQ(gpu_not_visible(1, 2), std::nullopt);
  EXPECT_EQ(gpu_not_visible(2, 2), "gpu=2 does not exist here: 2 CUDA device(s) visible (0..1); "
                                   "CUDA_VISIBLE_DEVICES renumbers them");
  EXPECT_TRUE(gpu_not_visible(-1, 2));
  EXPECT_TRUE(gpu_not_visible(0, 0));
}

// Sizes for 16-byte vector accesses: positive multiples of 16 only.
TEST(EveryGpuCheck, ASizeForVectorAccessesIsAPositiveMultipleOf16) {
  EXPECT_EQ(vector_size_problem(16), std::nullopt);
  EXPECT_EQ(vector_size_problem(24), "size_bytes=24 is not a positive multiple of 16 (16-byte "
                                     "vector accesses)");
  EXPECT_TRUE(vector_size_problem(0));
  EXPECT_TRUE(vector_size_problem(-16));
}

} // namespace
} // namespace railgauge::gpu
