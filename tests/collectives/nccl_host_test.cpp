// NCCL pieces that run without a GPU (no label; built only with NCCL): the group guard ends
// the thread's NCCL group when its scope is left by an exception, and a session whose peer
// never arrives names it before ncclCommInitRank (which would block on the host).
#include <chrono>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "collectives/nccl/nccl_group.h"
#include "collectives/nccl/nccl_session.h"
#include "harness/store/memory_store.h"

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

// Rank 0 of 2 alone: it makes the unique id (no GPU needed), then the barrier before init names
// rank 1. Without the barrier it would go on to the device and ncclCommInitRank.
TEST(NcclSessionInit, ARankThatNeverArrivesIsNamedBeforeInit) {
  MemoryStore store;
  try {
    NcclSession s(store, "lonely", 0, 2, 0, std::chrono::milliseconds(200));
    FAIL() << "a session of 2 opened with one rank";
  } catch (const StoreTimeout &e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("before ncclCommInitRank"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 1 of 2"), std::string::npos) << what;
  }
}

} // namespace
} // namespace railgauge::collectives
