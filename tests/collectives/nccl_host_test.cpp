// NCCL pieces that run without a GPU (no label; built only with NCCL): the group guard ends
// the thread's NCCL group when its scope is left by an exception.
#include <stdexcept>

#include <gtest/gtest.h>

#include "collectives/nccl/nccl_group.h"

namespace railgauge::collectives {
namespace {

// ncclGroupStart/ncclGroupEnd only move the thread's group depth when the group holds no call;
// a ncclGroupEnd at depth 0 is ncclInvalidUsage, which tells whether a group was left open.
bool group_left_open() { return ncclGroupEnd() == ncclSuccess; }

TEST(NcclGroupGuard, AnExceptionInsideTheGroupEndsIt) {
  EXPECT_THROW(
      {
        NcclGroup group;
        throw std::runtime_error("an NCCL call failed inside the group");
      },
      std::runtime_error);
  EXPECT_FALSE(group_left_open());
}

TEST(NcclGroupGuard, EndClosesTheGroupOnce) {
  {
    NcclGroup group;
    group.end();
  }
  EXPECT_FALSE(group_left_open());
}

TEST(NcclGroupGuard, TheCheckSeesAnOpenGroup) {
  // The check itself can fail: a group opened by hand is seen (and closed by the check).
  ASSERT_EQ(ncclGroupStart(), ncclSuccess);
  EXPECT_TRUE(group_left_open());
}

} // namespace
} // namespace railgauge::collectives
