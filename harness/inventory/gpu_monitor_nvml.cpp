// GpuMonitor over NVML (nvml_api.h): one nvmlInit for the monitor's life, the device looked up by
// UUID once, then a sampling thread that reads a handful of cheap fields per period.
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "harness/cpus_given.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/nvml_api.h"
#include "harness/inventory/telemetry_fields.h"

namespace railgauge {

using nvml::average_power_w;
using nvml::read_field;
using nvml::scaled;

struct GpuMonitor::Impl {
  nvml::DeviceByUuid gpu; // gpu.unavailable: why nothing is sampled
  const nvml::NvmlApi &api = gpu.api;
  nvmlDevice_t &device = gpu.device;
  std::chrono::milliseconds period;
  std::chrono::steady_clock::time_point started;
  GpuCounters at_start;
  std::vector<GpuSample> samples; // written by the thread until it is joined
  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;
  std::optional<nlohmann::json> summary;

  GpuSample sample() const {
    GpuSample s;
    s.t_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    s.sm_clock_mhz = scaled<double>(read_field<unsigned>(api.clock, device, NVML_CLOCK_SM));
    s.mem_clock_mhz = scaled<double>(read_field<unsigned>(api.clock, device, NVML_CLOCK_MEM));
    s.power_w = average_power_w(api, device);
    if (!s.power_w)
      s.power_w = scaled<double>(read_field<unsigned>(api.power_usage, device), 1e-3);
    s.temperature_c =
        scaled<double>(read_field<unsigned>(api.temperature, device, NVML_TEMPERATURE_GPU));
    s.memory_temperature_c = field_value(api, device, NVML_FI_DEV_MEMORY_TEMP);
    s.clocks_event_reasons = read_field<unsigned long long>(api.event_reasons, device);
    s.pcie_gen = scaled<int>(read_field<unsigned>(api.pcie_gen_current, device));
    s.pcie_width = scaled<int>(read_field<unsigned>(api.pcie_width_current, device));
    return s;
  }

  GpuCounters counters() const {
    GpuCounters c;
    c.power_limit_w = scaled<double>(read_field<unsigned>(api.power_limit, device), 1e-3);
    c.energy_mj = read_field<unsigned long long>(api.total_energy, device);
    const auto violation_ns = [&](nvmlPerfPolicyType_t policy) -> std::optional<std::uint64_t> {
      const auto v = read_field<nvmlViolationTime_t>(api.violation_status, device, policy);
      return v ? std::optional<std::uint64_t>(v->violationTime) : std::nullopt;
    };
    c.power_violation_ns = violation_ns(NVML_PERF_POLICY_POWER);
    c.thermal_violation_ns = violation_ns(NVML_PERF_POLICY_THERMAL);
    const auto threshold_c = [&](nvmlTemperatureThresholds_t which) -> std::optional<double> {
      const auto c = read_field<unsigned>(api.temperature_threshold, device, which);
      if (!c || *c == 0) // a threshold the GPU does not set reads 0 on some drivers
        return std::nullopt;
      return static_cast<double>(*c);
    };
    c.temperature_limit_c = threshold_c(NVML_TEMPERATURE_THRESHOLD_GPU_MAX);
    if (!c.temperature_limit_c) {
      c.temperature_limit_c = threshold_c(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
      c.temperature_limit_is_slowdown = c.temperature_limit_c.has_value();
    }
    c.memory_temperature_limit_c = threshold_c(NVML_TEMPERATURE_THRESHOLD_MEM_MAX);
    return c;
  }

  void run() {
    // Created by a thread bound to the point's core; sampling there would steal time from it.
    // Where unbinding fails, the sampler stays where it was: a few NVML reads per period.
    (void)unbind_this_thread();
    std::unique_lock lock(mutex);
    while (!stopping) {
      lock.unlock();
      GpuSample s = sample();
      lock.lock();
      samples.push_back(s);
      wake.wait_for(lock, period, [&] { return stopping; });
    }
  }
};

GpuMonitor::GpuMonitor(std::string uuid, std::chrono::milliseconds period, std::string nvml_library)
    : impl_(std::make_unique<Impl>()) {
  Impl &m = *impl_;
  m.period = period;
  m.started = std::chrono::steady_clock::now();
  m.gpu.open(uuid, nvml_library);
  if (!m.gpu.unavailable.empty())
    return;
  m.at_start = m.counters();
  m.started = std::chrono::steady_clock::now();
  m.thread = std::thread([&m] { m.run(); });
}

GpuMonitor::~GpuMonitor() { stop(); }

nlohmann::json GpuMonitor::stop(double from_s) {
  Impl &m = *impl_;
  if (m.summary)
    return *m.summary;
  if (!m.gpu.unavailable.empty()) {
    m.summary = {{telemetry::kAvailable, false}, {telemetry::kReason, m.gpu.unavailable}};
    return *m.summary;
  }
  {
    const std::lock_guard lock(m.mutex);
    m.stopping = true;
  }
  m.wake.notify_all();
  m.thread.join();
  const double duration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - m.started).count();
  m.samples.push_back(m.sample()); // the end of the point, however short it was
  m.summary = summarize_gpu_window(m.samples, duration_s, from_s, m.at_start, m.counters());
  (*m.summary)[telemetry::kPeriodMs] = m.period.count();
  return *m.summary;
}

} // namespace railgauge
