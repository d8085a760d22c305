#pragma once
// A rail-optimised two-level fat tree, as the tests' fabric: rail r of every node is cabled to
// a leaf of rail r (nodes_per_leaf nodes a leaf), and every leaf of rail r to each of the
// rail's spines with one cable. 1,024 nodes x 8 rails with 32 nodes a leaf and 32 spines a rail
// is 256 leaves, 8,192 NIC cables and 8,192 uplinks.
#include "rdma/fabric/topology.h"

namespace railgauge::rdma::fabric {

struct FatTreeShape {
  int nodes = 1024;
  int rails = 8;
  int nodes_per_leaf = 32;
  int spines_per_rail = 32;
};

Topology fat_tree(const FatTreeShape &shape);

} // namespace railgauge::rdma::fabric
