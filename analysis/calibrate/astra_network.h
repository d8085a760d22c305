#pragma once
// The ASTRA-sim analytical network file (YAML, one entry per dimension: topology, npus_count,
// bandwidth in GB/s, latency in ns; e.g. astra-sim examples/network/analytical/*.yml) of a
// calibration: dimension 0 is the scale-up tier (NVLink domain), dimension 1 the scale-out
// fabric, both `Switch`.
//   npus_count  [scale-up size, scale-out size / scale-up size]
//   bandwidth   the tier's bandwidth × efficiency: 1/β of its reference collective, in GB/s
//   latency     a measured tier: its α over the 2(n-1) steps of a ring all-reduce on its n fitted
//               ranks (the analytical backend charges latency per step, a collective's α is the
//               sum); an unmeasured one: the assumed latency as it is, never divided by steps.
// Each dimension's comment line says where its size, bandwidth and latency came from; a size
// that was neither measured nor given with --assume is marked ASSUMED.
#include <string>

#include "analysis/calibrate/calibration.h"

namespace railgauge::calibrate {

std::string astra_network_yaml(const Calibration &c);

} // namespace railgauge::calibrate
