#include <fmt/format.h>

#include "harness/inventory/nvml_query.h"

namespace railgauge {

std::vector<std::string> clocks_event_reason_names(std::uint64_t reasons) {
  // The bit values of nvml.h's nvmlClocksEventReason* / nvmlClocksThrottleReason* macros,
  // repeated here so that the stub build (no nvml.h) names them the same way.
  struct Bit {
    std::uint64_t mask;
    const char *name;
  };
  static constexpr Bit kBits[] = {
      {0x1, "gpu_idle"},
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  };
  std::vector<std::string> names;
  std::uint64_t known = 0;
  for (const Bit &bit : kBits) {
    known |= bit.mask;
    if (reasons & bit.mask)
      names.emplace_back(bit.name);
  }
  if (const std::uint64_t rest = reasons & ~known)
    names.push_back(fmt::format("0x{:x}", rest));
  return names;
}

} // namespace railgauge
