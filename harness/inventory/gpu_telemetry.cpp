#include "harness/inventory/gpu_telemetry.h"

#include <exception>
#include <utility>

#include <fmt/format.h>

#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/nvml_query.h"

namespace railgauge {
namespace {

nlohmann::json field(const nlohmann::json &gpu, const char *object, const char *name) {
  const auto it = gpu.find(object);
  if (it == gpu.end() || !it->is_object())
    return nullptr;
  return it->value(name, nlohmann::json(nullptr));
}

} // namespace

nlohmann::json gpu_telemetry_from_nvml(const nlohmann::json &nvml, std::string_view uuid) {
  if (!nvml.value("available", false))
    return {{"available", false},
            {"reason", nvml.value("reason", std::string("NVML unavailable"))}};
  for (const auto &gpu : nvml.value("gpus", nlohmann::json::array())) {
    if (gpu.value("uuid", nlohmann::json(nullptr)) != uuid)
      continue;
    nlohmann::json t = {{"sm_clock_mhz", field(gpu, "sm_clock_mhz", "current")},
                        {"sm_clock_max_mhz", field(gpu, "sm_clock_mhz", "max")},
                        {"mem_clock_mhz", field(gpu, "mem_clock_mhz", "current")},
                        {"power_w", gpu.value("power_usage_w", nlohmann::json(nullptr))},
                        {"power_limit_w", gpu.value("power_limit_w", nlohmann::json(nullptr))},
                        {"temperature_c", gpu.value("temperature_c", nlohmann::json(nullptr))}};
    const auto reasons = gpu.value("clocks_event_reasons", nlohmann::json(nullptr));
    t["clocks_event_reasons"] = reasons;
    bool throttled = false;
    if (reasons.is_array())
      for (const auto &r : reasons)
        throttled = throttled || (r.is_string() && is_throttle_reason(r.get<std::string>()));
    t["throttled"] = throttled;
    return t;
  }
  return {{"available", false}, {"reason", fmt::format("NVML lists no GPU with uuid {}", uuid)}};
}

nlohmann::json sample_gpu_telemetry(std::string_view uuid) {
  try {
    return gpu_telemetry_from_nvml(query_nvml("libnvidia-ml.so.1"), uuid);
  } catch (const std::exception &e) {
    return {{"available", false}, {"reason", e.what()}};
  }
}

nlohmann::json telemetry_pair(nlohmann::json before, nlohmann::json during, nlohmann::json after) {
  const bool throttled = before.value("throttled", false) || during.value("throttled", false) ||
                         after.value("throttled", false);
  return {{"before", std::move(before)},
          {"during", std::move(during)},
          {"after", std::move(after)},
          {"throttled", throttled}};
}

GpuTelemetryWindow::GpuTelemetryWindow(std::string uuid)
    : uuid_(std::move(uuid)), before_(sample_gpu_telemetry(uuid_)),
      monitor_(std::make_unique<GpuMonitor>(uuid_)) {}

GpuTelemetryWindow::~GpuTelemetryWindow() = default;

nlohmann::json GpuTelemetryWindow::finish() {
  if (result_.is_null())
    result_ = telemetry_pair(before_, monitor_->stop(), sample_gpu_telemetry(uuid_));
  return result_;
}

GpuTelemetryWindows::GpuTelemetryWindows(const std::vector<std::string> &uuids) : uuids_(uuids) {
  for (const auto &uuid : uuids)
    windows_.push_back(std::make_unique<GpuTelemetryWindow>(uuid));
}

nlohmann::json GpuTelemetryWindows::finish() {
  if (windows_.size() == 1)
    return windows_.front()->finish();
  nlohmann::json per_gpu = nlohmann::json::array();
  bool throttled = false;
  for (std::size_t i = 0; i < windows_.size(); ++i) {
    nlohmann::json t = windows_[i]->finish();
    throttled = throttled || t.value("throttled", false);
    t["uuid"] = uuids_[i];
    per_gpu.push_back(std::move(t));
  }
  return {{"per_gpu", std::move(per_gpu)}, {"throttled", throttled}};
}

} // namespace railgauge
