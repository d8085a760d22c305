#include <set>

#include <gtest/gtest.h>

#include "collectives/collective_point.h"
#include "collectives/groups.h"
#include "harness/error.h"

namespace railgauge::collectives {
namespace {

constexpr int kGpusPerNode = 8;

// Every rank is in exactly one group per axis, groups have the axis's size, a rank's group
// (by colour) is the same set whichever member computes it, tensor groups are consecutive ranks
// of one node, and every later axis is rail-aligned (one rank per node, same local rank).
void check_layout(const GroupLayout &layout) {
  for (const auto &axis : layout.axes) {
    std::vector<std::set<int>> by_colour(static_cast<std::size_t>(layout.group_count(axis.name)));
    for (int r = 0; r < layout.world; ++r) {
      const auto g = group_of(layout, axis.name, r);
      ASSERT_LT(g.index, layout.group_count(axis.name));
      ASSERT_EQ(static_cast<int>(g.members.size()), axis.size);
      ASSERT_EQ(g.members[static_cast<std::size_t>(g.rank_in_group)], r);
      auto &set = by_colour[static_cast<std::size_t>(g.index)];
      if (set.empty())
        set.insert(g.members.begin(), g.members.end());
      else
        ASSERT_EQ(set, std::set<int>(g.members.begin(), g.members.end())) << axis.name << " " << r;
      for (std::size_t j = 1; j < g.members.size(); ++j) {
        const int a = g.members[j - 1], b = g.members[j];
        if (&axis == &layout.axes.front()) {
          EXPECT_EQ(b, a + 1); // consecutive
          EXPECT_EQ(a / kGpusPerNode, b / kGpusPerNode) << "tensor group leaves its node";
        } else {
          EXPECT_EQ(a % kGpusPerNode, b % kGpusPerNode) << axis.name << " not rail-aligned";
          EXPECT_NE(a / kGpusPerNode, b / kGpusPerNode);
        }
      }
    }
    std::set<int> all;
    for (const auto &s : by_colour) {
      ASSERT_EQ(static_cast<int>(s.size()), axis.size);
      all.insert(s.begin(), s.end());
    }
    EXPECT_EQ(static_cast<int>(all.size()), layout.world); // a partition of the world
  }
  EXPECT_TRUE(placement_notes(layout, kGpusPerNode).empty());
}

TEST(Groups, OneTwoAndSixteenNodesOfEight) {
  check_layout(parse_group_layout("tp=8,dp=rest", 8, "t"));
  check_layout(parse_group_layout("tp=8,dp=rest", 16, "t"));
  check_layout(parse_group_layout("tp=8,pp=4,dp=rest", 128, "t"));
  check_layout(parse_group_layout("tp=8,dp=4,pp=rest", 128, "t"));
  check_layout(parse_group_layout("tp=8+pp=4+dp=rest", 128, "t"));
  const auto l = parse_group_layout("tp=8,pp=4,dp=rest", 128, "t");
  EXPECT_EQ(l.axis("dp").size, 4);
  EXPECT_EQ(l.axis("pp").stride, 8);
  EXPECT_EQ(l.axis("dp").stride, 32);
  // Rank 77 = node 9, GPU 5: tensor group = node 9, pipeline stages = nodes 8..11 at GPU 5,
  // data-parallel peers = GPU 5 of nodes 1, 5, 9, 13.
  EXPECT_EQ(group_of(l, "tp", 77).members, (std::vector<int>{72, 73, 74, 75, 76, 77, 78, 79}));
  EXPECT_EQ(group_of(l, "pp", 77).members, (std::vector<int>{69, 77, 85, 93}));
  EXPECT_EQ(group_of(l, "dp", 77).members, (std::vector<int>{13, 45, 77, 109}));
  EXPECT_EQ(group_of(l, "pp", 77).rank_in_group, 1);
}

TEST(Groups, SmallerTensorGroupsAndNotes) {
  const auto l = parse_group_layout("tp=2,dp=rest", 4, "t");
  EXPECT_EQ(group_of(l, "tp", 3).members, (std::vector<int>{2, 3}));
  EXPECT_EQ(group_of(l, "dp", 3).members, (std::vector<int>{1, 3}));
  EXPECT_EQ(group_of(l, "dp", 3).index, 1);
  const auto notes = placement_notes(parse_group_layout("tp=4,dp=rest", 16, "t"), 8);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("not rail-aligned"), std::string::npos);
  EXPECT_EQ(placement_notes(parse_group_layout("tp=16,dp=rest", 32, "t"), 8).size(), 1u);
}

TEST(Groups, BadSpecsAreInputErrorsNamingWhere) {
  for (const char *spec : {"tp=8,dp=rest,pp=rest", "tp=3,dp=rest", "tp=8,dp=3", "tp", "tp=0",
                           "tp=x", "tp=2,tp=rest", "world=2,dp=rest", "TP=2,dp=rest"}) {
    try {
      parse_group_layout(spec, 16, "--axis groups");
      ADD_FAILURE() << spec << " accepted";
    } catch (const InputError &e) {
      EXPECT_EQ(e.where(), "--axis groups") << spec;
      EXPECT_FALSE(e.fix().empty());
    }
  }
}

// What a point runs on, which the MPI and NCCL backends share: the group type's axis, every axis
// for "concurrent" (sized by the smallest), the world by default.
TEST(Groups, APointRunsOnItsGroupTypeOrEveryAxis) {
  CollectivePoint p;
  EXPECT_EQ(group_size_for(p, 16), 16);
  p.groups = "tp=8,pp=2";
  const auto layout = parse_group_layout(p.groups, 16, "axis groups");
  p.group_type = "pp";
  EXPECT_EQ(group_size_for(p, 16), 2);
  EXPECT_EQ(group_types_of(p, layout), std::vector<std::string>{"pp"});
  p.group_type = "concurrent";
  EXPECT_EQ(group_size_for(p, 16), 2);
  EXPECT_EQ(group_types_of(p, layout), (std::vector<std::string>{"tp", "pp"}));
  p.group_type = "dp";
  EXPECT_THROW(group_types_of(p, layout), InputError);
}

} // namespace
} // namespace railgauge::collectives
