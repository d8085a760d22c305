#include "analysis/check/telemetry_gpu.h"

#include <string_view>

#include "analysis/check/json_path.h"

namespace railgauge::check {
namespace {

constexpr const char *kTelemetryPrefix = "metrics.telemetry";

// The GPU a telemetry window object names; both empty where it names none.
TelemetryGpu window_gpu(const nlohmann::json &window) {
  TelemetryGpu gpu;
  if (!window.is_object())
    return gpu;
  for (const char *side : {"before", "after"})
    if (const auto it = window.find(side); it != window.end() && gpu.pci_bus_id.empty())
      gpu.pci_bus_id = text_field(*it, "pci_bus_id");
  gpu.uuid = text_field(window, "uuid");
  return gpu;
}

} // namespace

TelemetryGpu telemetry_gpu_of(const Record &r, const std::string &path) {
  if (path.rfind(kTelemetryPrefix, 0) != 0)
    return {};
  // From the value's parent outwards to metrics.telemetry itself.
  const std::string_view telemetry = kTelemetryPrefix;
  for (auto dot = path.rfind('.'); dot != std::string::npos && dot >= telemetry.size();
       dot = path.rfind('.', dot - 1))
    for (const auto &found : resolve_record_path(r, path.substr(0, dot)))
      if (auto gpu = window_gpu(found.value); !gpu.pci_bus_id.empty() || !gpu.uuid.empty())
        return gpu;
  return {};
}

std::vector<TelemetryGpu> telemetry_windows_of(const Record &r) {
  std::vector<TelemetryGpu> out;
  const auto telemetry = r.metrics.find("telemetry");
  if (!r.metrics.is_object() || telemetry == r.metrics.end() || !telemetry->is_object())
    return out;
  const auto add = [&out](const nlohmann::json &window) {
    if (auto gpu = window_gpu(window); !gpu.pci_bus_id.empty() || !gpu.uuid.empty())
      out.push_back(std::move(gpu));
  };
  add(*telemetry);
  if (const auto per_gpu = telemetry->find("per_gpu");
      per_gpu != telemetry->end() && per_gpu->is_array())
    for (const auto &window : *per_gpu)
      add(window);
  return out;
}

} // namespace railgauge::check
