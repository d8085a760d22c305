// GpuSettleProbe over NVML (nvml_api.h): one session for the probe's life, a reading of the SM
// clock and the averaged power at most every kSettlePeriod_s.
#include <chrono>

#include "harness/inventory/gpu_settle.h"
#include "harness/inventory/nvml_api.h"
#include "harness/inventory/telemetry_fields.h"

namespace railgauge {

struct GpuSettleProbe::Impl {
  nvml::DeviceByUuid gpu;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::vector<SettleReading> readings;
  bool settled = false;

  double now_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  void read() {
    SettleReading r;
    r.t_s = now_s();
    r.sm_clock_mhz =
        nvml::scaled<double>(nvml::read_field<unsigned>(gpu.api.clock, gpu.device, NVML_CLOCK_SM));
    r.power_w = nvml::average_power_w(gpu.api, gpu.device);
    if (!r.power_w)
      r.power_w =
          nvml::scaled<double>(nvml::read_field<unsigned>(gpu.api.power_usage, gpu.device), 1e-3);
    readings.push_back(r);
  }
};

GpuSettleProbe::GpuSettleProbe(const std::string &uuid, const std::string &nvml_library)
    : impl_(std::make_unique<Impl>()) {
  impl_->gpu.open(uuid, nvml_library);
  if (impl_->gpu.unavailable.empty())
    impl_->read();
}

GpuSettleProbe::~GpuSettleProbe() = default;

std::string_view GpuSettleProbe::method() const {
  return impl_->gpu.unavailable.empty() ? "gpu_clocks" : "gpu_clocks_unavailable";
}

bool GpuSettleProbe::settled() {
  Impl &m = *impl_;
  if (!m.gpu.unavailable.empty() || m.settled)
    return true; // without NVML nothing tells: the point starts as it always did
  if (m.readings.empty() || m.now_s() - m.readings.back().t_s >= kSettlePeriod_s)
    m.read();
  m.settled = readings_settled(m.readings);
  return m.settled;
}

nlohmann::json GpuSettleProbe::last_reading() const {
  const Impl &m = *impl_;
  if (!m.gpu.unavailable.empty())
    return {{telemetry::kAvailable, false}, {telemetry::kReason, m.gpu.unavailable}};
  if (m.readings.empty())
    return nullptr;
  const auto &r = m.readings.back();
  const auto or_null = [](const std::optional<double> &x) {
    return x ? nlohmann::json(*x) : nlohmann::json(nullptr);
  };
  return {{telemetry::kSmClockMhz, or_null(r.sm_clock_mhz)},
          {telemetry::kPowerW, or_null(r.power_w)},
          {telemetry::kReadings, m.readings.size()}};
}

} // namespace railgauge
