// GpuMonitor over NVML (nvml_api.h): one nvmlInit for the monitor's life, the device looked up by
// UUID once, then a sampling thread that reads a handful of cheap fields per period.
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "harness/cpus_given.h"
#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/nvml_api.h"

namespace railgauge {
namespace {

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

// NVML's 1 s average power in watts (NVML_FI_DEV_POWER_AVERAGE, Ampere and later but GA100);
// empty where the driver lacks the field.
std::optional<double> average_power_w(const nvml::NvmlApi &api, nvmlDevice_t device) {
  if (!api.field_values)
    return std::nullopt;
  nvmlFieldValue_t v{};
  v.fieldId = NVML_FI_DEV_POWER_AVERAGE;
  if (api.field_values(device, 1, &v) != NVML_SUCCESS || v.nvmlReturn != NVML_SUCCESS)
    return std::nullopt;
  switch (v.valueType) {
  case NVML_VALUE_TYPE_UNSIGNED_INT:
    return v.value.uiVal * 1e-3;
  case NVML_VALUE_TYPE_UNSIGNED_LONG:
    return static_cast<double>(v.value.ulVal) * 1e-3;
  case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
    return static_cast<double>(v.value.ullVal) * 1e-3;
  default:
    return std::nullopt;
  }
}

} // namespace

struct GpuMonitor::Impl {
  nvml::Library library;
  nvml::NvmlApi api;
  std::optional<nvml::NvmlSession> session;
  nvmlDevice_t device = nullptr;
  std::string unavailable; // why nothing is sampled; empty when sampling
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
  m.library.reset(dlopen(nvml_library.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!m.library) {
    const char *why = dlerror();
    m.unavailable = fmt::format("{}: {}", nvml_library, why ? why : "dlopen failed");
    return;
  }
  m.api = nvml::resolve_api(m.library.get());
  if (!m.api.init || !m.api.shutdown || !m.api.handle_by_uuid) {
    m.unavailable = fmt::format("{} lacks nvmlInit_v2 or nvmlDeviceGetHandleByUUID", nvml_library);
    return;
  }
  m.session.emplace(m.api);
  if (m.session->status() != NVML_SUCCESS) {
    m.unavailable = fmt::format("nvmlInit: {}", m.api.error_string(m.session->status()));
    return;
  }
  if (const nvmlReturn_t status = m.api.handle_by_uuid(uuid.c_str(), &m.device);
      status != NVML_SUCCESS) {
    m.unavailable =
        fmt::format("nvmlDeviceGetHandleByUUID({}): {}", uuid, m.api.error_string(status));
    return;
  }
  m.at_start = m.counters();
  m.started = std::chrono::steady_clock::now();
  m.thread = std::thread([&m] { m.run(); });
}

GpuMonitor::~GpuMonitor() { stop(); }

nlohmann::json GpuMonitor::stop() {
  Impl &m = *impl_;
  if (m.summary)
    return *m.summary;
  if (!m.unavailable.empty()) {
    m.summary = {{"available", false}, {"reason", m.unavailable}};
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
  m.summary = summarize_gpu_samples(m.samples, duration_s, m.at_start, m.counters());
  (*m.summary)["period_ms"] = m.period.count();
  return *m.summary;
}

} // namespace railgauge
