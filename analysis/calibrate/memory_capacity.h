#pragma once
// The memory capacities the runs' inventories (run.json) list, for mem1's size.
#include "analysis/run_set.h"

namespace railgauge::calibrate {

// The host memory of the NUMA nodes of the first inventory that lists any, in GiB; 0 when none.
double host_memory_gib(const analysis::RunSet &runs);

// The memory of the smallest GPU any run's inventory lists (NVML), in GiB; 0 when none does.
double gpu_memory_gib(const analysis::RunSet &runs);

} // namespace railgauge::calibrate
