#pragma once
// Group splits that mirror a 3D-parallel job's placement (Megatron-LM's rank layout): a spec
// such as "tp=8,pp=4,dp=rest" names the parallel axes, fastest-varying first, and their sizes
// ("rest": world size over the product of the others, at most once). On the command line, where
// ',' separates an axis's values, write '+' between groups: -a groups=tp=8+pp=4+dp=rest. A rank's
// coordinate on axis k is (rank / stride_k) % size_k, with stride_0 = 1 and stride_k = stride_(k-1)
// * size_(k-1). A group of axis k holds the ranks that differ only in that coordinate.
//
// With 8 ranks per node and tp=8 first, tensor groups are the 8 consecutive ranks of a node;
// every later axis has a stride that is a multiple of 8, so its groups hold one rank per node
// with the same local rank: the same GPU index and so the same rail (NIC and leaf switch) on a
// rail-optimised fabric. pp=4 after tp makes pipeline stages neighbouring nodes.
//
// Pure functions: the MPI and NCCL backends split their communicators by group_of().index.
#include <string>
#include <string_view>
#include <vector>

namespace railgauge::collectives {

struct GroupAxis {
  std::string name;
  int size = 1;
  int stride = 1;
};

struct GroupLayout {
  std::vector<GroupAxis> axes;
  int world = 1;
  const GroupAxis &axis(std::string_view name) const; // throws std::out_of_range
  int group_count(std::string_view name) const { return world / axis(name).size; }
};

// Throws InputError naming `where` (the flag or suite line) when the spec does not parse, a
// size is not a positive integer, a name repeats, or the sizes do not multiply to `world`.
GroupLayout parse_group_layout(std::string_view spec, int world, const std::string &where);

struct Group {
  std::string type;         // the axis name ("tp", "dp", ...)
  int index = 0;            // 0 .. group_count - 1, the colour of a communicator split
  int rank_in_group = 0;    // this rank's coordinate on the axis: the key of the split
  std::vector<int> members; // world ranks, in rank_in_group order
};

Group group_of(const GroupLayout &layout, std::string_view axis, int rank);

// Where the layout departs from the placement above on nodes of `ranks_per_node` ranks: a first
// axis that straddles nodes, or a later axis whose groups mix local ranks (rails). Empty when
// the layout is rail-aligned.
std::vector<std::string> placement_notes(const GroupLayout &layout, int ranks_per_node);

} // namespace railgauge::collectives
