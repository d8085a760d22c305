// GPU selection for one process per GPU: by local rank, not global rank, and two ranks on one
// GPU named.
#include <stdexcept>

#include <gtest/gtest.h>

#include "collectives/gpu_placement.h"

namespace railgauge::collectives {
namespace {

TEST(GpuPlacement, LocalRankCountsOnlyTheSameHost) {
  // Block distribution, 3 ranks per node.
  const std::vector<std::string> block = {"n0", "n0", "n0", "n1", "n1", "n1"};
  for (int r = 0; r < 6; ++r)
    EXPECT_EQ(local_rank_of(block, r), r % 3) << r;
  // Cyclic distribution.
  const std::vector<std::string> cyclic = {"n0", "n1", "n0", "n1"};
  EXPECT_EQ(local_rank_of(cyclic, 0), 0);
  EXPECT_EQ(local_rank_of(cyclic, 1), 0);
  EXPECT_EQ(local_rank_of(cyclic, 2), 1);
  EXPECT_EQ(local_rank_of(cyclic, 3), 1);
  EXPECT_THROW(local_rank_of(cyclic, 4), std::invalid_argument);
}

TEST(GpuPlacement, CyclicDistributionGetsDistinctGpusPerHost) {
  // srun -m cyclic, 2 nodes, 2 GPUs visible to each rank: rank % 2 would put ranks 0 and 2 on
  // n0's GPU 0 (and 1 and 3 on n1's GPU 1); the local rank gives each host GPUs 0 and 1.
  const std::vector<std::string> hosts = {"n0", "n1", "n0", "n1"};
  const std::vector<int> expected = {0, 0, 1, 1};
  for (int r = 0; r < 4; ++r)
    EXPECT_EQ(device_for_local_rank(local_rank_of(hosts, r), 2), expected[r]) << r;
}

TEST(GpuPlacement, OneVisibleGpuIsAlwaysDeviceZero) {
  // srun --gpu-bind or CUDA_VISIBLE_DEVICES per rank: each process sees only its own GPU.
  EXPECT_EQ(device_for_local_rank(0, 1), 0);
  EXPECT_EQ(device_for_local_rank(5, 1), 0);
  EXPECT_EQ(device_for_local_rank(5, 4), 1); // more ranks than GPUs: shared_gpu_problem says so
  EXPECT_THROW(device_for_local_rank(0, 0), std::invalid_argument);
}

TEST(GpuPlacement, TwoRanksOnOneGpuAreNamed) {
  const std::vector<std::string> hosts = {"n0", "n0", "n1", "n1"};
  EXPECT_FALSE(
      shared_gpu_problem(hosts, {"0000:1b:00.0", "0000:43:00.0", "0000:1b:00.0", "0000:43:00.0"}));
  const auto why =
      shared_gpu_problem(hosts, {"0000:1b:00.0", "0000:43:00.0", "0000:1b:00.0", "0000:1b:00.0"});
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("ranks 2 and 3 on host n1 both drive GPU 0000:1b:00.0"), std::string::npos)
      << *why;
}

} // namespace
} // namespace railgauge::collectives
