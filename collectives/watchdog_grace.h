#pragma once
// The grace period of a watchdog census (MPI and NCCL backends alike): how long a rank whose
// deadline passed waits for the others to answer. Long enough for ranks that entered the same
// collective a little later to reach their own deadline or hear the census; bounded so that a
// job with a dead rank still ends promptly.
#include <algorithm>
#include <chrono>

namespace railgauge::collectives {

inline std::chrono::milliseconds grace_period(double timeout_s) {
  const double s = std::clamp(timeout_s / 2, 0.5, 5.0);
  return std::chrono::milliseconds(static_cast<long>(s * 1000));
}

} // namespace railgauge::collectives
