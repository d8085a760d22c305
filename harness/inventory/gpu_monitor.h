#pragma once
// What one GPU did while a point ran: clocks, power, temperature, clock-event (throttle) reasons
// and the PCIe link, sampled on a thread of its own every few tens of milliseconds between the
// point's start and stop, plus NVML's energy counter and power/thermal violation times read at
// both ends. A snapshot before or after a point sees an idle GPU (idle clocks, no power cap);
// only samples taken while the work runs show a GPU held down by its power limit or heat, or a
// PCIe link that trains down under load.
//
// NVML is dlopen'ed (nvml_api.h); without it, or without nvml.h at build time, the summary is
// {"available": false, "reason": ...} and the point is measured as usual.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

// One sample; a field NVML did not answer is empty.
struct GpuSample {
  double t_s = 0; // since the monitor started
  std::optional<double> sm_clock_mhz;
  std::optional<double> mem_clock_mhz;
  // NVML's 1 s average power (NVML_FI_DEV_POWER_AVERAGE), else nvmlDeviceGetPowerUsage, which
  // Ampere and later also average over 1 s: never an integral of the energy counter.
  std::optional<double> power_w;
  std::optional<double> temperature_c;
  std::optional<double> memory_temperature_c; // HBM (NVML_FI_DEV_MEMORY_TEMP)
  std::optional<std::uint64_t> clocks_event_reasons; // nvmlClocksEventReason* bits
  std::optional<int> pcie_gen;
  std::optional<int> pcie_width;
};

// Energy and violation counters at the start and the end of a point, when NVML has them, and
// the power limit then.
struct GpuCounters {
  std::optional<double> power_limit_w;
  std::optional<std::uint64_t> energy_mj;
  std::optional<std::uint64_t> power_violation_ns;
  std::optional<std::uint64_t> thermal_violation_ns;
  // NVML's maximum GPU operating temperature, else its slowdown temperature (then
  // temperature_limit_is_slowdown): what DCGM's diagnostic holds a test's highest reading to.
  std::optional<double> temperature_limit_c;
  bool temperature_limit_is_slowdown = false;
  std::optional<double> memory_temperature_limit_c; // NVML's maximum memory operating temperature
};

// NVML's energy counter advances in steps of tens to hundreds of milliseconds: over windows of
// 5-440 ms it gave 0 W and up to 6,283 W on a 700 W H200 (results/reference/h200-2026-11-26*).
// Power from energy is given only over windows at least this long, and never above the limit by
// more than kEnergyPowerLimitSlack.
inline constexpr double kMinEnergyWindow_s = 2.0;
inline constexpr double kEnergyPowerLimitSlack = 1.10;
// A time series in the summary: one row per window of this length, when the point ran for at
// least two of them.
inline constexpr double kSeriesWindow_s = 1.0;

// The summary a record carries under metrics.telemetry.during (pure, tested without a GPU):
//   {"available": true, "samples", "duration_s",
//    "sm_clock_mhz": {"min", "median", "max"}, "mem_clock_mhz": {"min", "median", "max"},
//    "power_w": {"mean", "median", "max"} (NVML's averaged readings), "power_limit_w",
//    "temperature_c": {"median", "max"}, "temperature_c_max", "temperature_limit_c" and
//    "temperature_limit" ("gpu_max_operating" or "slowdown"), "memory_temperature_c_max",
//    "memory_temperature_limit_c", "pcie": {"gen_min", "gen_max",
//    "width_min", "width_max"}, "clocks_event_reasons": [names seen in any sample],
//    "reason_fraction": {name: samples with that reason / samples},
//    "throttled_fraction": samples with a reason that holds the clock down / samples,
//    "throttled": a sample held down or a violation counter moved, "energy_j",
//    "power_from_energy_w" (null, with "power_from_energy_note", over a window shorter than
//    kMinEnergyWindow_s or when it exceeds the limit by more than the slack),
//    "power_violation_s", "thermal_violation_s",
//    "series": [{"t_s", "sm_clock_mhz", "power_w", "temperature_c", "throttled_fraction"}] per
//    kSeriesWindow_s (medians, the last row possibly shorter), only over 2 windows or more}
// A statistic with no sample is null. gpu_idle, applications_clocks_setting and sync_boost are
// not throttling (is_throttle_reason).
nlohmann::json summarize_gpu_samples(const std::vector<GpuSample> &samples, double duration_s,
                                     const GpuCounters &start, const GpuCounters &end);

// summarize_gpu_samples over the part of a point from `from_s` to its end: the samples before
// it left out and the rest's t_s counted from it, the energy and violation counters (which span
// the whole point) left out, and "window_s": {"from", "to"} said. A burn phase's figure is its
// window after the clocks settled; its telemetry is that same window, not the seconds the
// phase before still heated. from_s <= 0 is summarize_gpu_samples.
nlohmann::json summarize_gpu_window(std::vector<GpuSample> samples, double duration_s,
                                    double from_s, GpuCounters start, const GpuCounters &end);

// True for a clock-event reason name that holds the clock below what the GPU would run at
// (power cap, thermal or hardware slowdown, power brake), false for idle, application clock
// settings and sync boost.
bool is_throttle_reason(const std::string &reason);

// Samples the GPU with `uuid` from construction until stop() (or destruction). Never throws:
// a GPU NVML cannot open makes stop() say why.
class GpuMonitor {
public:
  explicit GpuMonitor(std::string uuid,
                      std::chrono::milliseconds period = std::chrono::milliseconds(50),
                      std::string nvml_library = "libnvidia-ml.so.1");
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor &) = delete;
  GpuMonitor &operator=(const GpuMonitor &) = delete;

  // Stops sampling and summarises (summarize_gpu_window from `from_s` seconds after the start),
  // or {"available": false, "reason"}. A second call returns the same summary.
  nlohmann::json stop(double from_s = 0);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace railgauge
