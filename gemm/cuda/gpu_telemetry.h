#pragma once
// Clocks, power, temperature and clock-event (throttle) reasons of one GPU, read through the
// inventory's NVML wrapper (harness/inventory/nvml_query.h: dlopen, so it works on machines
// without the driver and says why). Snapshots before and after each GPU GEMM point (with the
// limits and maximum clocks), beside the GpuMonitor's samples taken while the point ran, so that
// a slow point shows whether the GPU was throttling (power cap, thermal slowdown).
//
// Each sample is a whole NVML inventory query (init, every GPU, shutdown): tens of
// milliseconds, outside the timed region, once before and once after a point.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace railgauge::gemm {

// The telemetry of the GPU with `uuid` out of a query_nvml() answer:
//   {"sm_clock_mhz", "sm_clock_max_mhz", "mem_clock_mhz", "power_w", "power_limit_w",
//    "temperature_c", "clocks_event_reasons": [...], "throttled": bool}
// (a field NVML does not report is null); or {"available": false, "reason": "..."} when NVML is
// unavailable or has no GPU with that uuid. `throttled` is true when a reason other than
// gpu_idle, applications_clocks_setting or sync_boost holds the clock down (power cap,
// thermal or hardware slowdown, power brake).
nlohmann::json gpu_telemetry_from_nvml(const nlohmann::json &nvml, std::string_view uuid);

// query_nvml("libnvidia-ml.so.1") then gpu_telemetry_from_nvml(). Never throws.
nlohmann::json sample_gpu_telemetry(std::string_view uuid);

// {"before": .., "during": .., "after": .., "throttled": any of them throttled}; `during` is a
// GpuMonitor summary of the measurement itself (harness/inventory/gpu_monitor.h).
nlohmann::json telemetry_pair(nlohmann::json before, nlohmann::json during, nlohmann::json after);

} // namespace railgauge::gemm
