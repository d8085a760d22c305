#pragma once
// The NVML entry points railgauge uses, resolved with dlsym from a dlopen'ed libnvidia-ml (the
// function types come from nvml.h, so nothing links against the library), and nvmlInit/Shutdown
// as a scope. Included only by sources built when nvml.h was found (RAILGAUGE_HAS_NVML): the
// inventory (nvml.cpp) and the per-point monitor (gpu_monitor_nvml.cpp).
#include <dlfcn.h>

#include <memory>

#include <nvml.h>

namespace railgauge::nvml {

struct DlClose {
  void operator()(void *handle) const {
    if (handle)
      dlclose(handle);
  }
};
using Library = std::unique_ptr<void, DlClose>;

// The entry points the inventory uses. Optional ones may be null on old drivers.
struct NvmlApi {
  decltype(&::nvmlInit) init = nullptr; // nvmlInit_v2
  decltype(&::nvmlShutdown) shutdown = nullptr;
  decltype(&::nvmlErrorString) error_string = nullptr;
  decltype(&::nvmlDeviceGetCount) device_count = nullptr;            // _v2
  decltype(&::nvmlDeviceGetHandleByIndex) handle_by_index = nullptr; // _v2
  decltype(&::nvmlSystemGetDriverVersion) driver_version = nullptr;
  decltype(&::nvmlSystemGetNVMLVersion) nvml_version = nullptr;
  decltype(&::nvmlDeviceGetName) name = nullptr;
  decltype(&::nvmlDeviceGetUUID) uuid = nullptr;
  decltype(&::nvmlDeviceGetPciInfo) pci_info = nullptr; // _v3
  decltype(&::nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen_current = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max = nullptr;
  decltype(&::nvmlDeviceGetCurrPcieLinkWidth) pcie_width_current = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max = nullptr;
  decltype(&::nvmlDeviceGetClockInfo) clock = nullptr;
  decltype(&::nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  decltype(&::nvmlDeviceGetMemoryInfo) memory_info = nullptr;
  decltype(&::nvmlDeviceGetPowerManagementLimit) power_limit = nullptr;
  decltype(&::nvmlDeviceGetPowerUsage) power_usage = nullptr;
  decltype(&::nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&::nvmlDeviceGetEccMode) ecc_mode = nullptr;
  decltype(&::nvmlDeviceGetTotalEccErrors) ecc_total = nullptr;
  decltype(&::nvmlDeviceGetRetiredPages) retired_pages = nullptr;
  decltype(&::nvmlDeviceGetRetiredPagesPendingStatus) retired_pending = nullptr;
  decltype(&::nvmlDeviceGetRemappedRows) remapped_rows = nullptr;
  decltype(&::nvmlDeviceGetCurrentClocksEventReasons) event_reasons = nullptr;
  decltype(&::nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  // For the per-point monitor (gpu_monitor.h).
  decltype(&::nvmlDeviceGetHandleByUUID) handle_by_uuid = nullptr;
  decltype(&::nvmlDeviceGetTotalEnergyConsumption) total_energy = nullptr;
  decltype(&::nvmlDeviceGetViolationStatus) violation_status = nullptr;
  decltype(&::nvmlDeviceGetFieldValues) field_values = nullptr;
};

template <typename Fn> inline void resolve(void *library, const char *symbol, Fn &out) {
  out = reinterpret_cast<Fn>(dlsym(library, symbol));
}

inline NvmlApi resolve_api(void *lib) {
  NvmlApi api;
  resolve(lib, "nvmlInit_v2", api.init);
  resolve(lib, "nvmlShutdown", api.shutdown);
  resolve(lib, "nvmlErrorString", api.error_string);
  resolve(lib, "nvmlDeviceGetCount_v2", api.device_count);
  resolve(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle_by_index);
  resolve(lib, "nvmlSystemGetDriverVersion", api.driver_version);
  resolve(lib, "nvmlSystemGetNVMLVersion", api.nvml_version);
  resolve(lib, "nvmlDeviceGetName", api.name);
  resolve(lib, "nvmlDeviceGetUUID", api.uuid);
  resolve(lib, "nvmlDeviceGetPciInfo_v3", api.pci_info);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkGeneration", api.pcie_gen_current);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkGeneration", api.pcie_gen_max);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkWidth", api.pcie_width_current);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkWidth", api.pcie_width_max);
  resolve(lib, "nvmlDeviceGetClockInfo", api.clock);
  resolve(lib, "nvmlDeviceGetMaxClockInfo", api.max_clock);
  resolve(lib, "nvmlDeviceGetMemoryInfo", api.memory_info);
  resolve(lib, "nvmlDeviceGetPowerManagementLimit", api.power_limit);
  resolve(lib, "nvmlDeviceGetPowerUsage", api.power_usage);
  resolve(lib, "nvmlDeviceGetTemperature", api.temperature);
  resolve(lib, "nvmlDeviceGetEccMode", api.ecc_mode);
  resolve(lib, "nvmlDeviceGetTotalEccErrors", api.ecc_total);
  resolve(lib, "nvmlDeviceGetRetiredPages", api.retired_pages);
  resolve(lib, "nvmlDeviceGetRetiredPagesPendingStatus", api.retired_pending);
  resolve(lib, "nvmlDeviceGetRemappedRows", api.remapped_rows);
  resolve(lib, "nvmlDeviceGetCurrentClocksEventReasons", api.event_reasons);
  if (!api.event_reasons) // drivers before R535 only have the older name, same signature
    resolve(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.event_reasons);
  resolve(lib, "nvmlDeviceGetNvLinkState", api.nvlink_state);
  resolve(lib, "nvmlDeviceGetHandleByUUID", api.handle_by_uuid);
  resolve(lib, "nvmlDeviceGetTotalEnergyConsumption", api.total_energy);
  resolve(lib, "nvmlDeviceGetViolationStatus", api.violation_status);
  resolve(lib, "nvmlDeviceGetFieldValues", api.field_values);
  return api;
}

// nvmlInit/nvmlShutdown as a scope. NVML counts inits, so nesting with other users is safe.
class NvmlSession {
public:
  explicit NvmlSession(const NvmlApi &api) : api_(api), status_(api.init()) {}
  ~NvmlSession() {
    if (status_ == NVML_SUCCESS)
      api_.shutdown();
  }
  NvmlSession(const NvmlSession &) = delete;
  NvmlSession &operator=(const NvmlSession &) = delete;
  nvmlReturn_t status() const { return status_; }

private:
  const NvmlApi &api_;
  nvmlReturn_t status_;
};

} // namespace railgauge::nvml
