#pragma once
// GPU inventory through NVML, loaded at run time with dlopen so that one railgauge binary runs
// on machines without the NVIDIA driver (it then reports NVML as unavailable, with dlerror's
// text). Built from nvml.cpp when nvml.h was found (RAILGAUGE_HAS_NVML), else nvml_stub.cpp.
//
// A field NVML does not support on a GPU (NVML_ERROR_NOT_SUPPORTED: retired pages on Hopper,
// power on some boards) is null; any other failure is null too and the call's error string is
// kept under the GPU's "errors" object, keyed by field.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace railgauge {

// {"available": bool, "reason": string|null, "library": ..., "driver_version", "nvml_version",
//  "gpus": [...]}; see results/schema/inventory.schema.json ("nvml").
nlohmann::json query_nvml(const std::string &library);

// nvmlClocksEventReason* bits -> names ("sw_power_cap", "hw_thermal_slowdown", ...); bits with
// no name come back as "0x...". Pure, so that it is tested without a GPU.
std::vector<std::string> clocks_event_reason_names(std::uint64_t reasons);
// Every bit clocks_event_reason_names() has a name for (nvml.h's nine reasons).
inline constexpr std::uint64_t kKnownClocksEventReasons = 0x1ff;

} // namespace railgauge
