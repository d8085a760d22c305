#pragma once
// Clocks, power, temperature and clock-event (throttle) reasons of one GPU, read through the
// inventory's NVML wrapper (harness/inventory/nvml_query.h: dlopen, so it works on machines
// without the driver and says why). Snapshots before and after each GPU point (with the limits
// and maximum clocks), beside the GpuMonitor's samples taken while the point ran, so that a slow
// point shows whether the GPU was throttling (power cap, thermal slowdown). Every GPU family
// (gemm, memory, offload, collectives, block) writes it as metrics.telemetry.
//
// Each sample is a whole NVML inventory query (init, every GPU, shutdown): tens of
// milliseconds, outside the timed region, once before and once after a point.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

class GpuMonitor;

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

// {"before": .., "during": .., "after": .., "throttled", "health_delta", "foreign_processes"};
// "throttled": over a window of 2 s or more, whether its samples held the clock down; over a
// shorter one, whether any of the three says so;
// `during` is a GpuMonitor summary of the measurement itself (harness/inventory/gpu_monitor.h).
// health_delta: after - before of the GPU's ECC counts (volatile) and remapped rows, and
// "xid_events", the Xid events the kernel logged for this GPU in between (with "xids"), or null
// with "xid_note" when the log could not be read (kernel_xids.h); a snapshot holds the counters
// and its "kernel_log" for that. "foreign_processes": the GPU's other compute processes in either
// snapshot (gpu_processes.h), null where NVML could not list them. "nvlink_errors": the growth
// of the NVLink error totals (CRC flit and data, replay, recovery) together;
// "nvlink_errors_per_link": [{"link", "crc_flit", "crc_data", "replay", "recovery"}] for the links
// that counted up ([] where none did), null where the driver gives no per-link counters.
nlohmann::json telemetry_pair(nlohmann::json before, nlohmann::json during, nlohmann::json after);

// telemetry_pair() over the life of this object: the snapshot before at construction, a
// GpuMonitor sampling until finish(), the snapshot after then. Construct it just before the
// measured work (after the buffers are ready) and finish it right after. Never throws.
class GpuTelemetryWindow {
public:
  explicit GpuTelemetryWindow(std::string uuid);
  ~GpuTelemetryWindow();
  GpuTelemetryWindow(const GpuTelemetryWindow &) = delete;
  GpuTelemetryWindow &operator=(const GpuTelemetryWindow &) = delete;
  // {"before", "during", "after", "throttled"}, `during` from `from_s` seconds after the
  // construction (GpuMonitor::stop); a second call returns the same.
  nlohmann::json finish(double from_s = 0);

private:
  std::string uuid_;
  nlohmann::json before_;
  std::unique_ptr<GpuMonitor> monitor_;
  nlohmann::json result_;
};

// The telemetry of the GPUs one process drove, as GpuTelemetryWindows writes it: one window as it
// is, several as {"per_gpu": [{"uuid", ...window}], "throttled": any of them}.
nlohmann::json gpus_telemetry(std::vector<nlohmann::json> windows,
                              const std::vector<std::string> &uuids);

// Windows over the GPUs one process drives (a rank of an NCCL group may drive several): one GPU's
// telemetry as GpuTelemetryWindow gives it, several as {"per_gpu": [{"uuid", ...}], "throttled":
// any of them}.
class GpuTelemetryWindows {
public:
  explicit GpuTelemetryWindows(const std::vector<std::string> &uuids);
  nlohmann::json finish();

private:
  std::vector<std::string> uuids_;
  std::vector<std::unique_ptr<GpuTelemetryWindow>> windows_;
};

} // namespace railgauge
