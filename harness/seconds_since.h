#pragma once
// Seconds of the steady clock since `start`: how the core measures a budget, a warmup or a wait,
// never the wall clock, which NTP may step.
#include <chrono>

namespace railgauge {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace railgauge
