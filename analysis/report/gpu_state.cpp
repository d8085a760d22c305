#include "analysis/report/gpu_state.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/inventory/telemetry_fields.h"
#include "harness/metric_names.h"
#include "harness/record_fields.h"
#include "harness/stats.h"

namespace railgauge::report {
namespace {

namespace t = telemetry;
namespace f = record_fields;

// "1410-1605", or "1505" when the two are one
std::string range_text(const std::vector<double> &values) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo == *hi ? fmt::format("{:.0f}", *lo) : fmt::format("{:.0f}-{:.0f}", *lo, *hi);
}

} // namespace

std::optional<std::string> gpu_state_line(const std::vector<const Record *> &records) {
  std::vector<double> clocks, powers, limits, max_clocks;
  std::size_t windows = 0, capped = 0;
  for (const Record *r : records) {
    const auto *tel = f::field(r->metrics, metric::kTelemetry);
    const auto *during = tel ? f::field(*tel, t::kDuring) : nullptr;
    const auto *available = during ? f::field(*during, t::kAvailable) : nullptr;
    if (!available || !available->is_boolean() || !available->get<bool>())
      continue;
    ++windows;
    if (const auto *clock = f::field(*during, t::kSmClockMhz))
      if (const auto v = f::number(*clock, metric::summary::kMedian))
        clocks.push_back(*v);
    if (const auto *power = f::field(*during, t::kPowerW))
      if (const auto v = f::number(*power, metric::summary::kMedian))
        powers.push_back(*v);
    if (const auto v = f::number(*during, t::kPowerLimitW))
      limits.push_back(*v);
    if (const auto *before = f::field(*tel, t::kBefore))
      if (const auto v = f::number(*before, t::kSmClockMaxMhz))
        max_clocks.push_back(*v);
    if (const auto *reasons = f::field(*during, t::kReasonFraction))
      // NVML's reason name (harness/inventory/nvml_reasons.cpp): the power limit held the clock
      if (const auto v = f::number(*reasons, "sw_power_cap"); v && *v > 0.5)
        ++capped;
  }
  if (windows == 0)
    return std::nullopt;
  std::string line =
      fmt::format("GPU state while measured (NVML, {} point{})", windows, windows == 1 ? "" : "s");
  std::string sep = ": ";
  if (!clocks.empty()) {
    line += fmt::format("{}SM clock {} MHz (median {:.0f}", sep, range_text(clocks),
                        railgauge::median(clocks));
    line += max_clocks.empty() ? ")" : fmt::format(" of {:.0f} max)", max_clocks.front());
    sep = ", ";
  }
  if (!powers.empty()) {
    line += fmt::format("{}power {} W (median {:.0f})", sep, range_text(powers),
                        railgauge::median(powers));
    if (!limits.empty())
      line += fmt::format(" of a {:.0f} W limit", limits.front());
    sep = ", ";
  }
  return line + fmt::format("; held at its power limit for most of the window in {} of {}", capped,
                            windows);
}

} // namespace railgauge::report
