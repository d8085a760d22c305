#pragma once
// Whether a run's ranks each had cores of their own. Calculon's model gives every rank its own
// processor; on a host with fewer cores than ranks × BLAS threads the ranks take turns, and a
// rank's work takes as many times longer as ranks share its core (docs/calibrate.md, "A block
// predicted").
#include <algorithm>

#include <nlohmann/json.hpp>

namespace railgauge::calibrate {

struct CoreShare {
  int ranks_per_host = 0, threads_per_rank = 0, host_cores = 0; // 0: not recorded

  // The most ranks one core runs: ⌈ranks · threads / cores⌉ (mpirun and srun bind ranks to
  // cores round-robin), 1 where each rank has cores of its own or where any count is unknown.
  int ranks_per_core() const {
    if (ranks_per_host <= 0 || host_cores <= 0)
      return 1;
    const int threads = ranks_per_host * std::max(1, threads_per_rank);
    return std::max(1, (threads + host_cores - 1) / host_cores);
  }
  bool shared() const { return ranks_per_core() > 1; }
};

// The host's cores from a run's manifest (inventory.machine.cores), 0 when it does not say.
inline int manifest_host_cores(const nlohmann::json &manifest) {
  if (!manifest.is_object())
    return 0;
  return static_cast<int>(manifest.value("/inventory/machine/cores"_json_pointer, 0.0));
}

} // namespace railgauge::calibrate
