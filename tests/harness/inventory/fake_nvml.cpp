// A scripted libnvidia-ml for tests: the NVML entry points railgauge resolves
// (harness/inventory/nvml_api.h), answering from a JSON file named by RAILGAUGE_FAKE_NVML_SCRIPT,
// so that the NVML path is tested with values on a machine without a GPU. Built for tests only,
// never installed. An entry point railgauge resolves but this file does not define (retired
// pages, energy, violations) is absent, as on an old driver, and the readers must cope.
//
// The script is read at every nvmlInit_v2, so a test rewrites it between two queries (a counter
// that grew during a phase):
//   {"driver_version": "550.54.15", "nvml_version": "12.550.54.15",
//    "init": "NVML_ERROR_DRIVER_NOT_LOADED",           (optional: nvmlInit_v2 fails so)
//    "gpus": [{"handle": "NVML_ERROR_GPU_IS_LOST"},     (the handle call fails so)
//             {"name", "uuid", "serial", "pci_bus_id", "pcie": {"gen_current", "gen_max",
//              "width_current", "width_max", "replay_count"}, "sm_clock_mhz": {"current", "max"},
//              "mem_clock_mhz": {...}, "memory_total_bytes", "power_limit_mw", "power_usage_mw",
//              "temperature_c", "clocks_event_reasons", "ecc_mode": {"current", "pending"},
//              "ecc": {"volatile": {"corrected", "uncorrected"}, "aggregate": {...}},
//              "remapped_rows": {"correctable", "uncorrectable", "pending", "failure"},
//              "nvlink": {"links": ["up", "down", ...], "errors": {"crc_flit", "crc_data",
//                         "replay", "recovery"} (the totals' field values),
//                         "per_link": {"7": {"crc_flit": 12, ...}} (a counter not given is 0;
//                         "*": {"replay": "NVML_ERROR_..."}: that counter errs on every link)},
//              "compute_processes": [{"pid", "used_memory_bytes"}]}]}
// A field the script leaves out answers NVML_ERROR_NOT_SUPPORTED; a string "NVML_ERROR_*" in its
// place answers that error (per_link as a string: every link's counters).
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <nvml.h>

using nlohmann::json;

struct nvmlDevice_st {
  unsigned index;
};

namespace {

// NVML's API is C without a context argument: the library's state has to live at file scope.
// It holds the parsed script and one handle per scripted GPU, re-read at every nvmlInit_v2.
struct FakeState {
  json script;
  std::vector<nvmlDevice_st> devices;
};
FakeState &state() {
  static FakeState s;
  return s;
}

struct ErrorName {
  nvmlReturn_t code;
  const char *name;
  const char *text; // as libnvidia-ml's nvmlErrorString words it
};
constexpr ErrorName kErrors[] = {
    {NVML_SUCCESS, "NVML_SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT", "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION", "Insufficient Permissions"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE", "Insufficient Size"},
    {NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    {NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN", "Unknown Error"}};

nvmlReturn_t error_named(const std::string &name) {
  for (const auto &e : kErrors)
    if (name == e.name)
      return e.code;
  return NVML_ERROR_UNKNOWN;
}

const json *gpu_of(nvmlDevice_t device) {
  const auto &gpus = state().script["gpus"];
  if (!device || device->index >= gpus.size())
    return nullptr;
  return &gpus[device->index];
}

bool is_error_name(const json &v) {
  return v.is_string() && v.get_ref<const std::string &>().rfind("NVML_ERROR_", 0) == 0;
}

// The scripted value at `pointer` of the GPU: absent is NOT_SUPPORTED, "NVML_ERROR_*" that error.
template <typename T> nvmlReturn_t scripted(nvmlDevice_t device, const char *pointer, T *out) {
  const json *gpu = gpu_of(device);
  if (!gpu || !out)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json::json_pointer at(pointer);
  if (!gpu->contains(at))
    return NVML_ERROR_NOT_SUPPORTED;
  const json &v = (*gpu)[at];
  if (is_error_name(v))
    return error_named(v.get<std::string>());
  *out = v.get<T>();
  return NVML_SUCCESS;
}

nvmlReturn_t copy_text(const std::string &s, char *out, unsigned length) {
  if (!out || s.size() + 1 > length)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t text(nvmlDevice_t device, const char *pointer, char *out, unsigned length) {
  std::string s;
  const nvmlReturn_t status = scripted(device, pointer, &s);
  return status == NVML_SUCCESS ? copy_text(s, out, length) : status;
}

nvmlReturn_t system_text(const char *key, char *out, unsigned length) {
  const auto &script = state().script;
  if (!script.contains(key))
    return NVML_ERROR_NOT_SUPPORTED;
  return copy_text(script[key].get<std::string>(), out, length);
}

const char *kErrorNames[] = {"crc_flit", "crc_data", "replay", "recovery"};

// One NVLink error counter of one link: its per_link entry, 0 when the link has none scripted.
nvmlReturn_t link_counter(nvmlDevice_t device, unsigned link, const char *counter,
                          unsigned long long *out) {
  const json *gpu = gpu_of(device);
  if (!gpu || !out)
    return NVML_ERROR_INVALID_ARGUMENT;
  const json::json_pointer at("/nvlink/per_link");
  if (!gpu->contains(at))
    return NVML_ERROR_NOT_SUPPORTED;
  const json &per_link = (*gpu)[at];
  if (is_error_name(per_link))
    return error_named(per_link.get<std::string>());
  if (link >= gpu->at("nvlink").value("links", json::array()).size())
    return NVML_ERROR_INVALID_ARGUMENT;
  // A counter scripted as "*": every link's answers that error (a driver without it).
  const json every = per_link.value("*", json::object()).value(counter, json());
  if (is_error_name(every))
    return error_named(every.get<std::string>());
  *out = per_link.value(std::to_string(link), json::object()).value(counter, 0ULL);
  return NVML_SUCCESS;
}

} // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() {
  const char *path = std::getenv("RAILGAUGE_FAKE_NVML_SCRIPT");
  std::ifstream in(path ? path : "");
  if (!in)
    return NVML_ERROR_LIBRARY_NOT_FOUND;
  auto &s = state();
  s.script = json::parse(in);
  if (s.script.contains("init"))
    return error_named(s.script["init"].get<std::string>());
  s.devices.clear();
  for (unsigned i = 0; i < s.script.value("gpus", json::array()).size(); ++i)
    s.devices.push_back({i});
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown() { return NVML_SUCCESS; }

const char *nvmlErrorString(nvmlReturn_t result) {
  for (const auto &e : kErrors)
    if (e.code == result)
      return e.text;
  return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned length) {
  return system_text("driver_version", version, length);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned length) {
  return system_text("nvml_version", version, length);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
  *count = static_cast<unsigned>(state().devices.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *device) {
  auto &s = state();
  if (index >= s.devices.size())
    return NVML_ERROR_INVALID_ARGUMENT;
  if (const auto &gpu = s.script["gpus"][index]; gpu.contains("handle"))
    return error_named(gpu["handle"].get<std::string>());
  *device = &s.devices[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned length) {
  return text(device, "/name", name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned length) {
  return text(device, "/uuid", uuid, length);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned length) {
  return text(device, "/serial", serial, length);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) {
  if (!pci)
    return NVML_ERROR_INVALID_ARGUMENT;
  *pci = {};
  return text(device, "/pci_bus_id", pci->busId, sizeof pci->busId);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned *gen) {
  return scripted(device, "/pcie/gen_current", gen);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned *gen) {
  return scripted(device, "/pcie/gen_max", gen);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned *width) {
  return scripted(device, "/pcie/width_current", width);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned *width) {
  return scripted(device, "/pcie/width_max", width);
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned *count) {
  return scripted(device, "/pcie/replay_count", count);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned *mhz) {
  return scripted(device,
                  type == NVML_CLOCK_MEM ? "/mem_clock_mhz/current" : "/sm_clock_mhz/current", mhz);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned *mhz) {
  return scripted(device, type == NVML_CLOCK_MEM ? "/mem_clock_mhz/max" : "/sm_clock_mhz/max", mhz);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
  if (!memory)
    return NVML_ERROR_INVALID_ARGUMENT;
  *memory = {};
  return scripted(device, "/memory_total_bytes", &memory->total);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned *milliwatts) {
  return scripted(device, "/power_limit_mw", milliwatts);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned *milliwatts) {
  return scripted(device, "/power_usage_mw", milliwatts);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t,
                                      unsigned *celsius) {
  return scripted(device, "/temperature_c", celsius);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device,
                                                    unsigned long long *reasons) {
  return scripted(device, "/clocks_event_reasons", reasons);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current,
                                  nvmlEnableState_t *pending) {
  bool c = false, p = false;
  if (const auto status = scripted(device, "/ecc_mode/current", &c); status != NVML_SUCCESS)
    return status;
  if (const auto status = scripted(device, "/ecc_mode/pending", &p); status != NVML_SUCCESS)
    return status;
  *current = c ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  *pending = p ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t type,
                                         nvmlEccCounterType_t counter, unsigned long long *count) {
  const std::string pointer =
      std::string(counter == NVML_VOLATILE_ECC ? "/ecc/volatile/" : "/ecc/aggregate/") +
      (type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? "corrected" : "uncorrected");
  return scripted(device, pointer.c_str(), count);
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned *correctable,
                                       unsigned *uncorrectable, unsigned *pending,
                                       unsigned *failure) {
  for (auto [pointer, out] :
       {std::pair{"/remapped_rows/correctable", correctable},
        std::pair{"/remapped_rows/uncorrectable", uncorrectable},
        std::pair{"/remapped_rows/pending", pending}, std::pair{"/remapped_rows/failure", failure}})
    if (const auto status = scripted(device, pointer, out); status != NVML_SUCCESS)
      return status;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned link,
                                      nvmlEnableState_t *active) {
  std::string state_text;
  const std::string pointer = "/nvlink/links/" + std::to_string(link);
  const json *gpu = gpu_of(device);
  if (!gpu || !gpu->contains(json::json_pointer("/nvlink")))
    return NVML_ERROR_NOT_SUPPORTED;
  if (!gpu->contains(json::json_pointer(pointer)))
    return NVML_ERROR_INVALID_ARGUMENT; // past the GPU's links
  if (const auto status = scripted(device, pointer.c_str(), &state_text); status != NVML_SUCCESS)
    return status;
  *active = state_text == "up" ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned link,
                                             nvmlNvLinkErrorCounter_t counter,
                                             unsigned long long *value) {
  switch (counter) {
  case NVML_NVLINK_ERROR_DL_CRC_FLIT:
    return link_counter(device, link, kErrorNames[0], value);
  case NVML_NVLINK_ERROR_DL_CRC_DATA:
    return link_counter(device, link, kErrorNames[1], value);
  case NVML_NVLINK_ERROR_DL_REPLAY:
    return link_counter(device, link, kErrorNames[2], value);
  case NVML_NVLINK_ERROR_DL_RECOVERY:
    return link_counter(device, link, kErrorNames[3], value);
  default:
    return NVML_ERROR_NOT_SUPPORTED;
  }
}

// The NVLink error totals only (the fields nvml.cpp reads); any other field is NOT_SUPPORTED.
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t *values) {
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t &v = values[i];
    const char *name = nullptr;
    switch (v.fieldId) {
    case NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL:
      name = "/nvlink/errors/crc_flit";
      break;
    case NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL:
      name = "/nvlink/errors/crc_data";
      break;
    case NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL:
      name = "/nvlink/errors/replay";
      break;
    case NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL:
      name = "/nvlink/errors/recovery";
      break;
    default:
      v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
      continue;
    }
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    v.nvmlReturn = scripted(device, name, &v.value.ullVal);
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned *count,
                                                     nvmlProcessInfo_t *infos) {
  json processes;
  if (const auto status = scripted(device, "/compute_processes", &processes);
      status != NVML_SUCCESS)
    return status;
  if (processes.size() > *count) {
    *count = static_cast<unsigned>(processes.size());
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  *count = static_cast<unsigned>(processes.size());
  for (std::size_t i = 0; i < processes.size(); ++i) {
    infos[i] = {};
    infos[i].pid = processes[i].at("pid").get<unsigned>();
    infos[i].usedGpuMemory = processes[i].at("used_memory_bytes").get<unsigned long long>();
  }
  return NVML_SUCCESS;
}

} // extern "C"
