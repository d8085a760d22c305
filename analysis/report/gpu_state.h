#pragma once
// At what clock and power a chart's GPU figures were measured: one line under every GPU chart,
// so that a reader tells a GPU held down by its power limit from a slow one, and a figure is not
// read as what the GPU does at its boost clock. From each record's telemetry window
// (metrics.telemetry.during, harness/inventory/gpu_telemetry.h).
#include <optional>
#include <string>
#include <vector>

#include "harness/record.h"

namespace railgauge::report {

// "GPU state while measured (NVML, 32 points): SM clock 1410-1605 MHz (median 1505 of 1980 max),
// power 665-694 W (median 688) of a 700 W limit; held at its power limit for most of the window
// in 32 of 32"
// nullopt when none of `records` has a telemetry window (a CPU or host figure).
std::optional<std::string> gpu_state_line(const std::vector<const Record *> &records);

} // namespace railgauge::report
