// The default size sweep and the host memory it is bounded by.
#include <gtest/gtest.h>

#include "offload/offload_sizes.h"

namespace railgauge::offload {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

TEST(OffloadSizes, ParsesMemAvailable) {
  const std::string meminfo = "MemTotal:       16303668 kB\n"
                              "MemFree:         1234567 kB\n"
                              "MemAvailable:    8151834 kB\n"
                              "Buffers:          120000 kB\n";
  EXPECT_EQ(parse_mem_available_bytes(meminfo), std::uint64_t{8151834} * 1024);
  EXPECT_FALSE(parse_mem_available_bytes("MemTotal: 1 kB\n")) << "no MemAvailable line";
  EXPECT_FALSE(parse_mem_available_bytes("MemAvailable: lots\n"));
  EXPECT_FALSE(parse_mem_available_bytes("MemAvailable: 100 MB\n")) << "unknown unit";
  EXPECT_TRUE(host_available_bytes().has_value()) << "this Linux machine has /proc/meminfo";
  EXPECT_FALSE(host_available_bytes("/nonexistent/meminfo"));
}

TEST(OffloadSizes, WithoutAFigureTheFullSweep) {
  const auto sizes = offload_default_sizes_bytes(std::nullopt, 1);
  ASSERT_EQ(sizes.size(), 21u);
  EXPECT_EQ(sizes.front(), 4096);
  EXPECT_EQ(sizes.back(), std::int64_t{4} << 30);
  for (std::size_t i = 1; i < sizes.size(); ++i)
    EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
}

TEST(OffloadSizes, BoundedByHalfTheAvailableMemory) {
  EXPECT_EQ(offload_default_sizes_bytes(64 * kGiB, 1).back(), std::int64_t{4} << 30);
  EXPECT_EQ(offload_default_sizes_bytes(4 * kGiB, 1).back(), std::int64_t{2} << 30);
  EXPECT_EQ(offload_default_sizes_bytes(4 * kGiB, 2).back(), std::int64_t{1} << 30)
      << "two buffers (bidir)";
  EXPECT_EQ(offload_default_sizes_bytes(16 * kGiB, 8).back(), std::int64_t{1} << 30)
      << "eight GPUs at once";
  EXPECT_EQ(offload_default_sizes_bytes(4 * kGiB - 1, 1).back(), std::int64_t{1} << 30);
  EXPECT_EQ(offload_default_sizes_bytes(1024, 1), std::vector<std::int64_t>{4096})
      << "always one point";
}

} // namespace
} // namespace railgauge::offload
