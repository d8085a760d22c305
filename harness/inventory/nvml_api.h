#pragma once
// The NVML entry points railgauge uses, resolved with dlsym from a dlopen'ed libnvidia-ml (the
// function types come from nvml.h, so nothing links against the library), and nvmlInit/Shutdown
// as a scope. Included only by sources built when nvml.h was found (RAILGAUGE_HAS_NVML): the
// inventory (nvml.cpp) and the per-point monitor (gpu_monitor_nvml.cpp).
#include <dlfcn.h>

#include <memory>
#include <optional>
#include <string>

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
  decltype(&::nvmlDeviceGetSerial) serial = nullptr;    // the board's; the fleet history's identity
  decltype(&::nvmlDeviceGetPciInfo) pci_info = nullptr; // _v3
  decltype(&::nvmlDeviceGetCurrPcieLinkGeneration) pcie_gen_current = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkGeneration) pcie_gen_max = nullptr;
  decltype(&::nvmlDeviceGetCurrPcieLinkWidth) pcie_width_current = nullptr;
  decltype(&::nvmlDeviceGetMaxPcieLinkWidth) pcie_width_max = nullptr;
  decltype(&::nvmlDeviceGetPcieReplayCounter) pcie_replays = nullptr;
  decltype(&::nvmlDeviceGetClockInfo) clock = nullptr;
  decltype(&::nvmlDeviceGetMaxClockInfo) max_clock = nullptr;
  decltype(&::nvmlDeviceGetMemoryInfo) memory_info = nullptr;
  decltype(&::nvmlDeviceGetPowerManagementLimit) power_limit = nullptr;
  decltype(&::nvmlDeviceGetPowerUsage) power_usage = nullptr;
  decltype(&::nvmlDeviceGetTemperature) temperature = nullptr;
  decltype(&::nvmlDeviceGetTemperatureThreshold) temperature_threshold = nullptr;
  decltype(&::nvmlDeviceGetEccMode) ecc_mode = nullptr;
  decltype(&::nvmlDeviceGetTotalEccErrors) ecc_total = nullptr;
  decltype(&::nvmlDeviceGetRetiredPages) retired_pages = nullptr;
  decltype(&::nvmlDeviceGetRetiredPagesPendingStatus) retired_pending = nullptr;
  decltype(&::nvmlDeviceGetRemappedRows) remapped_rows = nullptr;
  decltype(&::nvmlDeviceGetCurrentClocksEventReasons) event_reasons = nullptr;
  decltype(&::nvmlDeviceGetNvLinkState) nvlink_state = nullptr;
  decltype(&::nvmlDeviceGetNvLinkErrorCounter) nvlink_error_counter = nullptr; // per link
  // The processes holding a compute context on the GPU (_v3): a co-tenant named in a verdict.
  decltype(&::nvmlDeviceGetComputeRunningProcesses) compute_processes = nullptr;
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
  resolve(lib, "nvmlDeviceGetSerial", api.serial);
  resolve(lib, "nvmlDeviceGetPciInfo_v3", api.pci_info);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkGeneration", api.pcie_gen_current);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkGeneration", api.pcie_gen_max);
  resolve(lib, "nvmlDeviceGetComputeRunningProcesses_v3", api.compute_processes);
  resolve(lib, "nvmlDeviceGetPcieReplayCounter", api.pcie_replays);
  resolve(lib, "nvmlDeviceGetCurrPcieLinkWidth", api.pcie_width_current);
  resolve(lib, "nvmlDeviceGetMaxPcieLinkWidth", api.pcie_width_max);
  resolve(lib, "nvmlDeviceGetClockInfo", api.clock);
  resolve(lib, "nvmlDeviceGetMaxClockInfo", api.max_clock);
  resolve(lib, "nvmlDeviceGetMemoryInfo", api.memory_info);
  resolve(lib, "nvmlDeviceGetPowerManagementLimit", api.power_limit);
  resolve(lib, "nvmlDeviceGetPowerUsage", api.power_usage);
  resolve(lib, "nvmlDeviceGetTemperature", api.temperature);
  resolve(lib, "nvmlDeviceGetTemperatureThreshold", api.temperature_threshold);
  resolve(lib, "nvmlDeviceGetEccMode", api.ecc_mode);
  resolve(lib, "nvmlDeviceGetTotalEccErrors", api.ecc_total);
  resolve(lib, "nvmlDeviceGetRetiredPages", api.retired_pages);
  resolve(lib, "nvmlDeviceGetRetiredPagesPendingStatus", api.retired_pending);
  resolve(lib, "nvmlDeviceGetRemappedRows", api.remapped_rows);
  resolve(lib, "nvmlDeviceGetCurrentClocksEventReasons", api.event_reasons);
  if (!api.event_reasons) // drivers before R535 only have the older name, same signature
    resolve(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", api.event_reasons);
  resolve(lib, "nvmlDeviceGetNvLinkState", api.nvlink_state);
  resolve(lib, "nvmlDeviceGetNvLinkErrorCounter", api.nvlink_error_counter);
  resolve(lib, "nvmlDeviceGetHandleByUUID", api.handle_by_uuid);
  resolve(lib, "nvmlDeviceGetTotalEnergyConsumption", api.total_energy);
  resolve(lib, "nvmlDeviceGetViolationStatus", api.violation_status);
  resolve(lib, "nvmlDeviceGetFieldValues", api.field_values);
  return api;
}

// Readers shared by the per-point monitor (gpu_monitor_nvml.cpp) and the settle probe
// (gpu_settle_nvml.cpp): a field NVML does not answer is empty.
template <typename T, typename Fn, typename... Args>
std::optional<T> read_field(Fn fn, Args... args) {
  T value{};
  if (fn && fn(args..., &value) == NVML_SUCCESS)
    return value;
  return std::nullopt;
}

template <typename To, typename From>
std::optional<To> scaled(const std::optional<From> &v, double scale = 1.0) {
  if (!v)
    return std::nullopt;
  return static_cast<To>(static_cast<double>(*v) * scale);
}

// One of NVML's field values (nvml.h's NVML_FI_*), as a number; empty where the driver lacks the
// field or answers with a type that is not an unsigned count.
inline std::optional<double> field_value(const nvml::NvmlApi &api, nvmlDevice_t device,
                                         unsigned field) {
  if (!api.field_values)
    return std::nullopt;
  nvmlFieldValue_t v{};
  v.fieldId = field;
  if (api.field_values(device, 1, &v) != NVML_SUCCESS || v.nvmlReturn != NVML_SUCCESS)
    return std::nullopt;
  switch (v.valueType) {
  case NVML_VALUE_TYPE_UNSIGNED_INT:
    return v.value.uiVal;
  case NVML_VALUE_TYPE_UNSIGNED_LONG:
    return static_cast<double>(v.value.ulVal);
  case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
    return static_cast<double>(v.value.ullVal);
  default:
    return std::nullopt;
  }
}

// NVML's 1 s average power in watts (NVML_FI_DEV_POWER_AVERAGE, Ampere and later but GA100);
// empty where the driver lacks the field.
inline std::optional<double> average_power_w(const nvml::NvmlApi &api, nvmlDevice_t device) {
  return scaled<double>(field_value(api, device, NVML_FI_DEV_POWER_AVERAGE), 1e-3);
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

// One GPU opened by UUID: the library, its API, a session and the device, or why not. Filled in
// place by open() (the session refers to `api`, so the object does not move once opened).
struct DeviceByUuid {
  Library library;
  NvmlApi api;
  std::optional<NvmlSession> session;
  nvmlDevice_t device = nullptr;
  std::string unavailable; // empty once open

  void open(const std::string &uuid, const std::string &library_name) {
    library.reset(dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (!library) {
      const char *why = dlerror();
      unavailable = library_name + ": " + (why ? why : "dlopen failed");
      return;
    }
    api = resolve_api(library.get());
    if (!api.init || !api.shutdown || !api.handle_by_uuid) {
      unavailable = library_name + " lacks nvmlInit_v2 or nvmlDeviceGetHandleByUUID";
      return;
    }
    session.emplace(api);
    if (session->status() != NVML_SUCCESS) {
      unavailable = std::string("nvmlInit: ") + api.error_string(session->status());
      return;
    }
    if (const nvmlReturn_t status = api.handle_by_uuid(uuid.c_str(), &device);
        status != NVML_SUCCESS)
      unavailable = "nvmlDeviceGetHandleByUUID(" + uuid + "): " + api.error_string(status);
  }
};

} // namespace railgauge::nvml
