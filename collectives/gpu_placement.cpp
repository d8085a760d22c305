#include "collectives/gpu_placement.h"

#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace railgauge::collectives {

int local_rank_of(const std::vector<std::string> &hosts, int rank) {
  if (rank < 0 || rank >= static_cast<int>(hosts.size()))
    throw std::invalid_argument(fmt::format("rank {} of {} hosts", rank, hosts.size()));
  int local = 0;
  for (int r = 0; r < rank; ++r)
    local += hosts[r] == hosts[rank];
  return local;
}

int device_for_local_rank(int local_rank, int visible_gpus) {
  if (visible_gpus < 1 || local_rank < 0)
    throw std::invalid_argument(
        fmt::format("local rank {} on {} visible GPUs", local_rank, visible_gpus));
  return local_rank % visible_gpus;
}

std::optional<std::string> shared_gpu_problem(const std::vector<std::string> &hosts,
                                              const std::vector<std::string> &pci_bus_ids) {
  if (hosts.size() != pci_bus_ids.size())
    throw std::invalid_argument("shared_gpu_problem: one host and one bus id per rank");
  std::map<std::pair<std::string, std::string>, int> first;
  for (int r = 0; r < static_cast<int>(hosts.size()); ++r) {
    const auto [at, fresh] = first.emplace(std::pair{hosts[r], pci_bus_ids[r]}, r);
    if (!fresh)
      return fmt::format("ranks {} and {} on host {} both drive GPU {}: NCCL needs one GPU per "
                         "rank (fewer ranks per node, or one GPU visible to each: srun "
                         "--gpu-bind, CUDA_VISIBLE_DEVICES)",
                         at->second, r, hosts[r], pci_bus_ids[r]);
  }
  return std::nullopt;
}

} // namespace railgauge::collectives
