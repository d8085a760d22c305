// GpuSettleProbe for builds without nvml.h: it cannot tell, says so, and lets the point start.
#include "harness/inventory/gpu_settle.h"

#include "harness/inventory/telemetry_fields.h"

namespace railgauge {

struct GpuSettleProbe::Impl {};

GpuSettleProbe::GpuSettleProbe(const std::string &, const std::string &) {}
GpuSettleProbe::~GpuSettleProbe() = default;
std::string_view GpuSettleProbe::method() const { return "gpu_clocks_unavailable"; }
bool GpuSettleProbe::settled() { return true; }
nlohmann::json GpuSettleProbe::last_reading() const {
  return {{telemetry::kAvailable, false},
          {telemetry::kReason, "built without nvml.h (no NVML readings)"}};
}

} // namespace railgauge
