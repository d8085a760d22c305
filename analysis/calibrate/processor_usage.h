#pragma once
// Processor usage under overlap: the share of the processor a transfer takes from a GEMM beside
// it, from the GEMM's slowdown in the overlap points, else the user's or the assumed figure.
#include <string>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// A tier's processor usage: given (--assume <net>.processor_usage), else 1 - 1/(median GEMM
// slowdown under a concurrent collective on the tier), else assumed. `net` is the tier's
// assumption prefix ("networks.0").
Sourced tier_processor_usage(const Calibration &c, const NetworkTier &tier, const std::string &net);

// c.overlap["offload"]: the GEMM slowdown under a concurrent offload copy and the processor
// usage it implies; left out when no offload overlap was measured.
void fit_offload_overlap(Calibration &c);

} // namespace railgauge::calibrate
