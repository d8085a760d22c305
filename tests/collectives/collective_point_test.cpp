// Which in-place / out-of-place points each backend waives, and that the NCCL benchmarks say so
// before anything about GPUs (the result would be undefined on any machine).
#include <string>

#include <gtest/gtest.h>

#include "tests/support/quick_run_context.h"

#include "collectives/collective_point.h"
#include "collectives/nccl/register_collectives_nccl.h"
#include "harness/registry.h"
#include "harness/waiver.h"
#include "railgauge/config.h"

namespace railgauge::collectives {
namespace {

CollectivePoint point(Kind kind, bool in_place) {
  CollectivePoint p;
  p.kind = kind;
  p.in_place = in_place;
  return p;
}

// One GPU's NCCL communicator has one rank (min_ranks 1), and its point is still checked: a root
// beyond rank 0, no iterations or a size that is not whole elements is waived, not run.
TEST(PointProblem, ASingleRankGroupIsCheckedLikeAnyOther) {
  CollectivePoint p = point(Kind::broadcast, false);
  p.size_bytes = 1024;
  EXPECT_TRUE(point_problem(p, 1)) << "two ranks needed by default";
  EXPECT_FALSE(point_problem(p, 1, 1));
  p.root = 1;
  ASSERT_TRUE(point_problem(p, 1, 1));
  EXPECT_EQ(*point_problem(p, 1, 1), "root 1 is not a rank of a group of 1");
  p.root = 0;
  p.iterations = 0;
  EXPECT_TRUE(point_problem(p, 1, 1));
  p.iterations = 20;
  p.size_bytes = 6; // not whole float32 elements
  EXPECT_TRUE(point_problem(p, 1, 1));
}

TEST(PlacementProblem, InPlaceSendrecvIsWaivedOnBothBackends) {
  for (const Backend b : {Backend::mpi, Backend::nccl}) {
    const auto why = placement_problem(point(Kind::sendrecv, true), b);
    ASSERT_TRUE(why.has_value());
    EXPECT_NE(why->find("undefined"), std::string::npos) << *why;
    EXPECT_FALSE(placement_problem(point(Kind::sendrecv, false), b));
  }
}

TEST(PlacementProblem, InPlaceAlltoallIsWaivedOnNcclOnly) {
  const auto why = placement_problem(point(Kind::alltoall, true), Backend::nccl);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("ncclSend/ncclRecv"), std::string::npos) << *why;
  // MPI_Alltoall with MPI_IN_PLACE is defined.
  EXPECT_FALSE(placement_problem(point(Kind::alltoall, true), Backend::mpi));
  EXPECT_FALSE(placement_problem(point(Kind::alltoall, false), Backend::nccl));
}

TEST(PlacementProblem, OtherKindsRunBothWaysExceptMpiBroadcast) {
  for (const Kind k : all_kinds()) {
    if (k == Kind::sendrecv || k == Kind::alltoall)
      continue;
    for (const bool in_place : {false, true}) {
      EXPECT_FALSE(placement_problem(point(k, in_place), Backend::nccl)) << to_string(k);
      const bool mpi_waived = k == Kind::broadcast && !in_place;
      EXPECT_EQ(placement_problem(point(k, in_place), Backend::mpi).has_value(), mpi_waived)
          << to_string(k);
    }
  }
}

class NcclPlacement : public testing::QuickRunContextTest {};

// Every axis at its default, in_place set.
Point with_in_place(const Benchmark &bench, const std::string &placement) {
  Point p;
  for (const auto &a : bench.axes())
    p.set(a.name, a.defaults.front());
  p.set("in_place", AxisValue(placement));
  return p;
}

TEST_F(NcclPlacement, TheBenchmarkWaivesInPlaceAlltoallAndSendrecvWithTheReason) {
  Registry registry;
  register_collectives_nccl(registry);
  for (const char *key : {"collectives.nccl_alltoall", "collectives.nccl_sendrecv"}) {
    const Benchmark *bench = registry.find(key);
    ASSERT_NE(bench, nullptr) << key;
    const auto why = bench->supported(ctx_, with_in_place(*bench, "in_place"));
    ASSERT_TRUE(why.has_value()) << key;
    if constexpr (RAILGAUGE_HAS_NCCL)
      EXPECT_NE(why->find("undefined result"), std::string::npos) << key << ": " << *why;
    else
      EXPECT_NE(why->find("built without NCCL"), std::string::npos) << key << ": " << *why;
  }
}

// Waivers by construction say so in words that `check` reads: they are not applicable, never
// missing hardware that fails a node.
TEST(CollectivePoint, WaiversByConstructionAreNotApplicable) {
  EXPECT_TRUE(is_not_applicable(kNeedsRanks));
  EXPECT_TRUE(is_not_applicable(*placement_problem(point(Kind::sendrecv, true), Backend::mpi)));
  EXPECT_TRUE(is_not_applicable(*placement_problem(point(Kind::alltoall, true), Backend::nccl)));
  EXPECT_TRUE(is_not_applicable(*placement_problem(point(Kind::broadcast, false), Backend::mpi)));
}

} // namespace
} // namespace railgauge::collectives
