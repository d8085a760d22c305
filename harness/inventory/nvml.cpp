// NVML through dlopen: the function types come from nvml.h (decltype of its declarations), the
// addresses from dlsym, so nothing links against libnvidia-ml. nvml.h maps some names to
// versioned symbols (nvmlInit -> nvmlInit_v2); dlsym is given those versioned names.
#include <dlfcn.h>

#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nvml.h>

#include "harness/inventory/gpu_processes.h"
#include "harness/inventory/inventory_fields.h"
#include "harness/inventory/nvml_api.h"
#include "harness/inventory/nvml_query.h"
#include "harness/inventory/pci_tree.h"

namespace railgauge {
namespace {

using nvml::Library;
using nvml::NvmlApi;
using nvml::NvmlSession;
using nvml::resolve_api;

// Reads one field: the value, or nullopt with the failure noted (NOT_SUPPORTED is not a failure).
class FieldReader {
public:
  FieldReader(const NvmlApi &api, nlohmann::json &errors) : api_(api), errors_(errors) {}

  template <typename T, typename Fn, typename... Args>
  std::optional<T> read(const char *field, Fn fn, Args... args) {
    if (!fn) {
      errors_[field] = "not in this libnvidia-ml";
      return std::nullopt;
    }
    T value{};
    if (check(field, fn(args..., &value)))
      return value;
    return std::nullopt;
  }

  bool check(const char *field, nvmlReturn_t status) {
    if (status == NVML_SUCCESS)
      return true;
    if (status != NVML_ERROR_NOT_SUPPORTED)
      errors_[field] = api_.error_string(status);
    return false;
  }

private:
  const NvmlApi &api_;
  nlohmann::json &errors_;
};

template <typename T> nlohmann::json opt(const std::optional<T> &value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json watts(const std::optional<unsigned> &milliwatts) {
  return milliwatts ? nlohmann::json(*milliwatts / 1000.0) : nlohmann::json(nullptr);
}

nlohmann::json enabled(const std::optional<nvmlEnableState_t> &state) {
  return state ? nlohmann::json(*state == NVML_FEATURE_ENABLED) : nlohmann::json(nullptr);
}

// One counter of NVML's field values (the NVLink error totals over every link), or null.
nlohmann::json field_count(const NvmlApi &api, nvmlDevice_t device, unsigned field) {
  const auto v = nvml::field_value(api, device, field);
  return v ? nlohmann::json(static_cast<unsigned long long>(*v)) : nlohmann::json(nullptr);
}

// The GPU's NVLink error counters summed over its links: data and flow-control CRC errors,
// replays and recoveries (DCGM level 2 reads them); a link that degrades under load counts up.
nlohmann::json nvlink_error_totals(const NvmlApi &api, nvmlDevice_t device) {
  return {{inventory_field::kCrcFlit,
           field_count(api, device, NVML_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL)},
          {inventory_field::kCrcData,
           field_count(api, device, NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL)},
          {inventory_field::kReplay,
           field_count(api, device, NVML_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL)},
          {inventory_field::kRecovery,
           field_count(api, device, NVML_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL)}};
}

// The processes with a compute context on the GPU, each with its pid, the GPU memory it holds
// and its name where /proc shows it (another PID namespace does not); null where NVML cannot
// list them.
nlohmann::json compute_processes(const NvmlApi &api, nvmlDevice_t device, FieldReader &r) {
  if (!api.compute_processes)
    return nullptr;
  std::vector<nvmlProcessInfo_t> infos(64);
  auto count = static_cast<unsigned>(infos.size());
  nvmlReturn_t status = api.compute_processes(device, &count, infos.data());
  if (status == NVML_ERROR_INSUFFICIENT_SIZE) { // more came between the calls: one retry
    infos.resize(count + 16);
    count = static_cast<unsigned>(infos.size());
    status = api.compute_processes(device, &count, infos.data());
  }
  if (!r.check("compute_processes", status))
    return nullptr;
  nlohmann::json out = nlohmann::json::array();
  // nvml.h defines NVML_VALUE_NOT_AVAILABLE as (-1), an int; usedGpuMemory is unsigned, where it
  // reads as the largest value.
  constexpr auto kNotAvailable = static_cast<unsigned long long>(NVML_VALUE_NOT_AVAILABLE);
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    const auto &p = infos[i];
    out.push_back({{inventory_field::kPid, p.pid},
                   {inventory_field::kUsedMemoryBytes, p.usedGpuMemory == kNotAvailable
                                                           ? nlohmann::json(nullptr)
                                                           : nlohmann::json(p.usedGpuMemory)},
                   {inventory_field::kName, opt(process_name(p.pid))}});
  }
  return out;
}

// Each link's error counters, as {"crc_flit": [link 0, link 1, ...], "crc_data", "replay",
// "recovery"} (a counter the driver does not give is null at that link), or null where no link
// gives any: a link that degrades under load is named, not only the GPU. Read with
// nvmlDeviceGetNvLinkErrorCounter (nvml.h: "Retrieves the specified error counter value ... For
// Pascal or newer"; nvmlNvLinkErrorCounter_t's data-link replay, recovery, flit CRC and data CRC
// counters, the four the totals sum). Not NVML's per-link field values: nvml.h's
// NVML_FI_DEV_NVLINK_*_ERROR_COUNT_L<n> stop at L11 while a Hopper GPU has 18 links
// (NVML_NVLINK_MAX_LINKS), and NVML_FI_DEV_NVLINK_ERROR_DL_* with a link in scopeId have no flit
// and data split.
nlohmann::json nvlink_errors_per_link(const NvmlApi &api, nvmlDevice_t device, unsigned links,
                                      FieldReader &r) {
  if (!api.nvlink_error_counter)
    return nullptr;
  nlohmann::json per_link = nlohmann::json::object();
  bool any = false;
  for (auto [counter, name] :
       {std::pair{NVML_NVLINK_ERROR_DL_CRC_FLIT, inventory_field::kCrcFlit},
        std::pair{NVML_NVLINK_ERROR_DL_CRC_DATA, inventory_field::kCrcData},
        std::pair{NVML_NVLINK_ERROR_DL_REPLAY, inventory_field::kReplay},
        std::pair{NVML_NVLINK_ERROR_DL_RECOVERY, inventory_field::kRecovery}}) {
    nlohmann::json counts = nlohmann::json::array();
    for (unsigned link = 0; link < links; ++link) {
      unsigned long long value = 0;
      const bool read = r.check("nvlink.errors_per_link",
                                api.nvlink_error_counter(device, link, counter, &value));
      counts.push_back(read ? nlohmann::json(value) : nlohmann::json(nullptr));
      any = any || read;
    }
    per_link[name] = std::move(counts);
  }
  return any ? per_link : nlohmann::json(nullptr);
}

// The GPU's NVLinks, up or down, and their error counters; null without NVLink. Links past the
// GPU's count answer NOT_SUPPORTED or INVALID_ARGUMENT: stop at the first.
nlohmann::json nvlink_of(const NvmlApi &api, nvmlDevice_t device, FieldReader &r) {
  if (!api.nvlink_state)
    return nullptr;
  nlohmann::json links = nlohmann::json::array();
  int up = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active{};
    if (api.nvlink_state(device, link, &active) != NVML_SUCCESS)
      break;
    links.push_back(active == NVML_FEATURE_ENABLED ? "up" : "down");
    up += active == NVML_FEATURE_ENABLED ? 1 : 0;
  }
  if (links.empty())
    return nullptr;
  const auto count = static_cast<unsigned>(links.size());
  return {{inventory_field::kLinks, links},
          {inventory_field::kUp, up},
          {inventory_field::kDown, static_cast<int>(count) - up},
          {inventory_field::kErrors, nvlink_error_totals(api, device)},
          {inventory_field::kErrorsPerLink, nvlink_errors_per_link(api, device, count, r)}};
}

// ECC mode has two outputs (current, pending): read it by hand.
nlohmann::json ecc_of(const NvmlApi &api, nvmlDevice_t device, FieldReader &r) {
  nlohmann::json ecc = {{inventory_field::kEnabledCurrent, nullptr},
                        {inventory_field::kEnabledPending, nullptr}};
  if (api.ecc_mode) {
    nvmlEnableState_t current{}, pending{};
    if (r.check("ecc.mode", api.ecc_mode(device, &current, &pending))) {
      ecc[inventory_field::kEnabledCurrent] = enabled(current);
      ecc[inventory_field::kEnabledPending] = enabled(pending);
    }
  }
  for (auto [counter, counter_name] :
       {std::pair{NVML_VOLATILE_ECC, inventory_field::kVolatile},
        std::pair{NVML_AGGREGATE_ECC, inventory_field::kAggregate}}) {
    for (auto [type, type_name] :
         {std::pair{NVML_MEMORY_ERROR_TYPE_CORRECTED, inventory_field::kCorrected},
          std::pair{NVML_MEMORY_ERROR_TYPE_UNCORRECTED, inventory_field::kUncorrected}}) {
      const std::string field = fmt::format("ecc.{}.{}", counter_name, type_name);
      ecc[counter_name][type_name] =
          opt(r.read<unsigned long long>(field.c_str(), api.ecc_total, device, type, counter));
    }
  }
  return ecc;
}

// Page retirement is pre-Ampere; Ampere and Hopper remap rows instead. Each is null where the
// GPU has the other.
nlohmann::json retired_pages_of(const NvmlApi &api, nvmlDevice_t device, FieldReader &r) {
  if (!api.retired_pages)
    return nullptr;
  nlohmann::json pages = nlohmann::json::object();
  bool supported = true;
  for (auto [cause, cause_name] :
       {std::pair{NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                  inventory_field::kSingleBit},
        std::pair{NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, inventory_field::kDoubleBit}}) {
    unsigned count = 0; // 0 with no buffer: NVML returns the count only
    const nvmlReturn_t status = api.retired_pages(device, cause, &count, nullptr);
    if (status == NVML_SUCCESS || status == NVML_ERROR_INSUFFICIENT_SIZE)
      pages[cause_name] = count;
    else
      supported = r.check("retired_pages", status) && supported;
  }
  if (!supported)
    return nullptr;
  pages[inventory_field::kPending] =
      enabled(r.read<nvmlEnableState_t>("retired_pages.pending", api.retired_pending, device));
  return pages;
}

nlohmann::json query_gpu(const NvmlApi &api, unsigned index, nvmlDevice_t device) {
  nlohmann::json errors = nlohmann::json::object();
  FieldReader r(api, errors);
  nlohmann::json gpu = {{inventory_field::kIndex, index}};

  char text[256] = {};
  gpu[inventory_field::kName] = nullptr;
  if (api.name && r.check("name", api.name(device, text, sizeof text)))
    gpu[inventory_field::kName] = text;
  gpu[inventory_field::kUuid] = nullptr;
  if (api.uuid && r.check("uuid", api.uuid(device, text, sizeof text)))
    gpu[inventory_field::kUuid] = text;
  // The board's serial number: a GPU swapped into the slot is a new part in the fleet history
  // (analysis/history/ingest.cpp). Null where NVML has none (NOT_SUPPORTED on some boards).
  gpu[inventory_field::kSerial] = nullptr;
  if (api.serial && r.check("serial", api.serial(device, text, sizeof text)))
    gpu[inventory_field::kSerial] = text;
  gpu[inventory_field::kPciBusId] = nullptr;
  if (auto pci = r.read<nvmlPciInfo_t>("pci_bus_id", api.pci_info, device))
    gpu[inventory_field::kPciBusId] = normalize_bus_id(pci->busId);

  gpu[inventory_field::kPcie] = {
      {inventory_field::kGenCurrent,
       opt(r.read<unsigned>("pcie.gen_current", api.pcie_gen_current, device))},
      {inventory_field::kGenMax, opt(r.read<unsigned>("pcie.gen_max", api.pcie_gen_max, device))},
      {inventory_field::kWidthCurrent,
       opt(r.read<unsigned>("pcie.width_current", api.pcie_width_current, device))},
      {inventory_field::kWidthMax,
       opt(r.read<unsigned>("pcie.width_max", api.pcie_width_max, device))},
      // Link-level retransmissions since the driver loaded: a marginal link or riser replays.
      {inventory_field::kReplayCount,
       opt(r.read<unsigned>("pcie.replay_count", api.pcie_replays, device))}};
  gpu[inventory_field::kSmClockMhz] = {
      {inventory_field::kCurrent,
       opt(r.read<unsigned>("sm_clock_mhz.current", api.clock, device, NVML_CLOCK_SM))},
      {inventory_field::kMax,
       opt(r.read<unsigned>("sm_clock_mhz.max", api.max_clock, device, NVML_CLOCK_SM))}};
  gpu[inventory_field::kMemClockMhz] = {
      {inventory_field::kCurrent,
       opt(r.read<unsigned>("mem_clock_mhz.current", api.clock, device, NVML_CLOCK_MEM))},
      {inventory_field::kMax,
       opt(r.read<unsigned>("mem_clock_mhz.max", api.max_clock, device, NVML_CLOCK_MEM))}};
  gpu[inventory_field::kMemoryTotalBytes] = nullptr; // the GPU's memory (calibrate's mem1 capacity)
  if (auto memory = r.read<nvmlMemory_t>("memory_total_bytes", api.memory_info, device))
    gpu[inventory_field::kMemoryTotalBytes] = memory->total;
  gpu[inventory_field::kPowerLimitW] =
      watts(r.read<unsigned>("power_limit_w", api.power_limit, device));
  gpu[inventory_field::kPowerUsageW] =
      watts(r.read<unsigned>("power_usage_w", api.power_usage, device));
  gpu[inventory_field::kTemperatureC] =
      opt(r.read<unsigned>("temperature_c", api.temperature, device, NVML_TEMPERATURE_GPU));

  gpu[inventory_field::kEcc] = ecc_of(api, device, r);

  gpu[inventory_field::kRetiredPages] = retired_pages_of(api, device, r);
  gpu[inventory_field::kRemappedRows] = nullptr;
  if (api.remapped_rows) {
    unsigned correctable = 0, uncorrectable = 0, pending = 0, failure = 0;
    if (r.check("remapped_rows",
                api.remapped_rows(device, &correctable, &uncorrectable, &pending, &failure)))
      gpu[inventory_field::kRemappedRows] = {{inventory_field::kCorrectable, correctable},
                                             {inventory_field::kUncorrectable, uncorrectable},
                                             {inventory_field::kPending, pending != 0},
                                             {inventory_field::kFailure, failure != 0}};
  }

  gpu[inventory_field::kClocksEventReasons] = nullptr;
  if (auto reasons = r.read<unsigned long long>("clocks_event_reasons", api.event_reasons, device))
    gpu[inventory_field::kClocksEventReasons] = clocks_event_reason_names(*reasons);

  gpu[inventory_field::kNvlink] = nvlink_of(api, device, r);
  gpu[inventory_field::kComputeProcesses] = compute_processes(api, device, r);
  gpu[inventory_field::kErrors] = std::move(errors);
  return gpu;
}

nlohmann::json unavailable(const std::string &library, std::string reason) {
  return {{inventory_field::kAvailable, false},
          {inventory_field::kReason, std::move(reason)},
          {inventory_field::kLibrary, library},
          {inventory_field::kGpus, nlohmann::json::array()}};
}

} // namespace

nlohmann::json query_nvml(const std::string &library) {
  dlerror(); // clear a stale message
  Library lib(dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib) {
    const char *why = dlerror();
    return unavailable(library, why ? why : "dlopen failed");
  }
  const NvmlApi api = resolve_api(lib.get());
  if (!api.init || !api.shutdown || !api.error_string || !api.device_count || !api.handle_by_index)
    return unavailable(library, "the library lacks nvmlInit_v2/nvmlDeviceGetCount_v2/"
                                "nvmlDeviceGetHandleByIndex_v2 (not an NVML library?)");
  NvmlSession session(api);
  if (session.status() != NVML_SUCCESS)
    return unavailable(library, fmt::format("nvmlInit_v2: {}", api.error_string(session.status())));

  nlohmann::json result = {{inventory_field::kAvailable, true},
                           {inventory_field::kReason, nullptr},
                           {inventory_field::kLibrary, library}};
  char text[128] = {};
  result[inventory_field::kDriverVersion] = nullptr;
  if (api.driver_version && api.driver_version(text, sizeof text) == NVML_SUCCESS)
    result[inventory_field::kDriverVersion] = text;
  result[inventory_field::kNvmlVersion] = nullptr;
  if (api.nvml_version && api.nvml_version(text, sizeof text) == NVML_SUCCESS)
    result[inventory_field::kNvmlVersion] = text;

  nlohmann::json gpus = nlohmann::json::array();
  unsigned count = 0;
  if (const nvmlReturn_t status = api.device_count(&count); status != NVML_SUCCESS)
    return unavailable(library, fmt::format("nvmlDeviceGetCount_v2: {}", api.error_string(status)));
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t device{};
    if (const nvmlReturn_t status = api.handle_by_index(i, &device); status != NVML_SUCCESS) {
      // A GPU NVML cannot open (fallen off the bus, no permission) is listed with the reason:
      // a missing GPU is exactly what an inventory is for.
      gpus.push_back(
          {{inventory_field::kIndex, i},
           {inventory_field::kErrors, {{inventory_field::kHandle, api.error_string(status)}}}});
      continue;
    }
    gpus.push_back(query_gpu(api, i, device));
  }
  result[inventory_field::kGpus] = std::move(gpus);
  return result;
}

} // namespace railgauge
