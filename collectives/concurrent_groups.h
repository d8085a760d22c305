#pragma once
// group_type=concurrent: one group of every axis of the split runs its collective at once on
// each rank, as 3D-parallel training runs its tensor, pipeline and data groups, and each group
// type gets its own time and bandwidth. Shared by the MPI and NCCL backends.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/lockstep.h"
#include "records/bus_bandwidth.h"

namespace railgauge::collectives {

// One group type of a concurrent point: its group's size, and this process's times of its
// collective per timed iteration, from the iteration's common start (every type's collective
// is enqueued or started together) to the end of this type's own. A process driving several
// GPUs keeps one row of `iterations` per GPU, consecutive, in world-rank order.
struct GroupTypeTimes {
  std::string type;
  int group_size = 0;
  std::vector<double> mine;
};

// metrics.by_group_type: for each type, the lockstep summary of its times gathered over
// `world` (per iteration the max over ranks: the group type's slowest group), and the algbw
// and busbw of that median for the type's group size:
//   {"tp": {"group_size": 8, "time_s": {...}, "algbw_gbytes_per_s": x,
//           "busbw_gbytes_per_s": y, "slowest_rank": r}, "dp": {...}}
// Every rank calls it with the same types in the same order.
nlohmann::json by_group_type_metrics(LockstepGroup &world, const std::vector<GroupTypeTimes> &types,
                                     Kind kind, std::uint64_t size_bytes, int iterations,
                                     int own_rank);

} // namespace railgauge::collectives
