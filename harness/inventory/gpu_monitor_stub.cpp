// GpuMonitor for builds without nvml.h: every summary says why nothing was sampled.
#include "harness/inventory/gpu_monitor.h"

#include "harness/inventory/telemetry_fields.h"

namespace railgauge {

struct GpuMonitor::Impl {};

GpuMonitor::GpuMonitor(std::string, std::chrono::milliseconds, std::string) {}

GpuMonitor::~GpuMonitor() = default;

nlohmann::json GpuMonitor::stop(double) {
  return {{telemetry::kAvailable, false},
          {telemetry::kReason, "built without nvml.h (no NVML telemetry)"}};
}

} // namespace railgauge
