#pragma once
// The burn-in's console table of what each GPU did: one row per GPU, one column per phase that
// ran on every GPU at once (its headline figure for that GPU, from the point's per-GPU object),
// then what the GPU's telemetry saw during the sustained GEMM: median power against the limit,
// median SM clock, hottest temperature and the clock-event reasons that held for at least 1 % of
// the window. A slow GPU stands out in its column before check names it; a low figure beside
// "sw_power_cap" reads differently from one beside "hw_slowdown".
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge {

// The table, or "" when no record holds per-GPU objects.
std::string render_burnin_gpu_table(const std::vector<Record> &records);

} // namespace railgauge
