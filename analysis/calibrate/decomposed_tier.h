#pragma once
// A scale-out tier taken apart from the runs (tier_decomposition.h): whether its points allow it,
// the reference op's largest group taken apart, and the notes that say what came of it.
#include <map>
#include <string>
#include <vector>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

// A scale-out tier is taken apart when every point of Calculon's ops on it says its nodes, lays
// its ranks out in whole nodes and some hold more than one GPU per node: a bus byte of such a
// point crosses NVLink as well as the fabric (tier_decomposition.h).
bool decomposable(const NetworkTier &tier,
                  const std::map<std::string, std::vector<CollectiveSample>> &by_op);

// The reference op's largest group on the tier, taken apart: its own busbw, the per-GPU fabric
// rate of the joint fit, the intra-node figure it is checked against and the latency split.
TierDecomposition decomposition_of(const Calibration &c, const NetworkTier &tier,
                                   const std::string &ref,
                                   const std::vector<CollectiveSample> &samples);

// The notes on tier.decomposition (set): what it came to, a possible NVLS tree, and a ring that
// was not bound by the fabric. `net` is the tier's assumption prefix ("networks.1").
void note_decomposition(Calibration &c, const NetworkTier &tier, const std::string &ref,
                        const std::string &net);

} // namespace railgauge::calibrate
