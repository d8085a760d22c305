#pragma once
// One network tier of a calibration (scale_up, scale_out): an α-β fit per collective op, the
// joint model of Calculon's four ops, and the tier's bandwidth, efficiency, op scalars, latency,
// size and processor usage from it (each given, measured or assumed, and said which).
#include <string>
#include <vector>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// Calculon's four collective ops, in the order its system file lists them.
const std::vector<std::string> &calculon_op_names();

// Fills `tier` (its index and name set) from c.samples.collectives, c.assumptions and
// c.networks[0] (for a scale-out tier taken apart); adds its notes to c.notes.
void fit_tier(Calibration &c, NetworkTier &tier);

} // namespace railgauge::calibrate
