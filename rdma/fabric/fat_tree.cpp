#include "rdma/fabric/fat_tree.h"

#include <fmt/format.h>

namespace railgauge::rdma::fabric {

Topology fat_tree(const FatTreeShape &shape) {
  std::vector<RawCable> cables;
  const int groups = (shape.nodes + shape.nodes_per_leaf - 1) / shape.nodes_per_leaf;
  for (int n = 0; n < shape.nodes; ++n)
    for (int r = 0; r < shape.rails; ++r)
      cables.push_back({fmt::format("node{:04}", n), fmt::format("mlx5_{}", r),
                        fmt::format("leaf-r{}-g{:02}", r, n / shape.nodes_per_leaf),
                        std::to_string(n % shape.nodes_per_leaf + 1), true, r});
  for (int r = 0; r < shape.rails; ++r)
    for (int g = 0; g < groups; ++g)
      for (int s = 0; s < shape.spines_per_rail; ++s)
        cables.push_back({fmt::format("leaf-r{}-g{:02}", r, g),
                          std::to_string(shape.nodes_per_leaf + s + 1),
                          fmt::format("spine-r{}-{:02}", r, s), std::to_string(g + 1), false, -1});
  return build_topology(cables, "fat tree");
}

} // namespace railgauge::rdma::fabric
