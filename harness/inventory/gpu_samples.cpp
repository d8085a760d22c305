#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/nvml_query.h"
#include "harness/inventory/telemetry_fields.h"
#include "harness/metric_names.h"
#include "harness/stats.h"

namespace railgauge {
namespace {

// The samples' values of one field, those NVML answered.
template <typename T, typename Field>
std::vector<double> values_of(const std::vector<GpuSample> &samples, Field field) {
  std::vector<double> v;
  for (const auto &s : samples)
    if (const std::optional<T> &x = s.*field)
      v.push_back(static_cast<double>(*x));
  return v;
}

nlohmann::json min_median_max(const std::vector<double> &v) {
  if (v.empty())
    return {{metric::summary::kMin, nullptr},
            {metric::summary::kMedian, nullptr},
            {metric::summary::kMax, nullptr}};
  const Summary s = summarize(v);
  return {{metric::summary::kMin, s.min},
          {metric::summary::kMedian, s.median},
          {metric::summary::kMax, s.max}};
}

nlohmann::json extreme(const std::vector<double> &v, bool largest) {
  if (v.empty())
    return nullptr;
  return largest ? *std::max_element(v.begin(), v.end()) : *std::min_element(v.begin(), v.end());
}

// The PCIe generation and width are whole numbers in the record (pcie_link.h reads them so).
nlohmann::json extreme_int(const std::vector<double> &v, bool largest) {
  const nlohmann::json x = extreme(v, largest);
  return x.is_null() ? x : nlohmann::json(static_cast<int>(x.get<double>()));
}

// end - start of a counter both ends read, else null (a counter that went backwards, e.g. after a
// driver reload, is not a difference either).
nlohmann::json delta(const std::optional<std::uint64_t> &start,
                     const std::optional<std::uint64_t> &end, double scale) {
  if (!start || !end || *end < *start)
    return nullptr;
  return static_cast<double>(*end - *start) * scale;
}

bool holds_clock_down(std::uint64_t reasons) {
  for (const auto &name : clocks_event_reason_names(reasons))
    if (is_throttle_reason(name))
      return true;
  return false;
}

nlohmann::json median_or_null(const std::vector<double> &v) {
  return v.empty() ? nlohmann::json(nullptr) : nlohmann::json(median(v));
}

// One row per kSeriesWindow_s of the samples' own times: what a burn-in plots per GPU.
nlohmann::json series_of(const std::vector<GpuSample> &samples, double duration_s) {
  nlohmann::json rows = nlohmann::json::array();
  const auto windows = static_cast<std::size_t>(std::ceil(duration_s / kSeriesWindow_s));
  std::size_t next = 0;
  for (std::size_t w = 0; w < windows; ++w) {
    std::vector<GpuSample> in;
    const double end_s = static_cast<double>(w + 1) * kSeriesWindow_s;
    while (next < samples.size() && (samples[next].t_s < end_s || w + 1 == windows))
      in.push_back(samples[next++]);
    if (in.empty())
      continue;
    std::size_t held = 0, with_reasons = 0;
    for (const auto &s : in)
      if (s.clocks_event_reasons) {
        ++with_reasons;
        held += holds_clock_down(*s.clocks_event_reasons) ? 1 : 0;
      }
    rows.push_back(
        {{telemetry::kTS, static_cast<double>(w) * kSeriesWindow_s},
         {telemetry::kSmClockMhz, median_or_null(values_of<double>(in, &GpuSample::sm_clock_mhz))},
         {telemetry::kPowerW, median_or_null(values_of<double>(in, &GpuSample::power_w))},
         {telemetry::kTemperatureC,
          median_or_null(values_of<double>(in, &GpuSample::temperature_c))},
         {telemetry::kThrottledFraction, with_reasons > 0
                                             ? nlohmann::json(double(held) / double(with_reasons))
                                             : nlohmann::json(nullptr)}});
  }
  return rows;
}

// Energy over the window, as power, where the counter can say it (kMinEnergyWindow_s).
void add_power_from_energy(nlohmann::json &j, double duration_s,
                           const std::optional<double> &limit_w) {
  j[telemetry::kPowerFromEnergyW] = nullptr;
  if (!j[telemetry::kEnergyJ].is_number() || !(duration_s > 0))
    return;
  if (duration_s < kMinEnergyWindow_s) {
    j[telemetry::kPowerFromEnergyNote] =
        fmt::format("a window of {:.3g} s is shorter than the {} s NVML's energy counter needs",
                    duration_s, kMinEnergyWindow_s);
    return;
  }
  const double w = j[telemetry::kEnergyJ].get<double>() / duration_s;
  if (limit_w && w > kEnergyPowerLimitSlack * *limit_w) {
    j[telemetry::kPowerFromEnergyNote] = fmt::format(
        "{:.0f} W from the energy counter exceeds the {:.0f} W limit by more than {:.0f}%", w,
        *limit_w, (kEnergyPowerLimitSlack - 1) * 100);
    return;
  }
  j[telemetry::kPowerFromEnergyW] = w;
}

nlohmann::json number_or_null(const std::optional<double> &v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// The GPU's and its HBM's highest temperatures beside the limits NVML read at the window's start,
// which DCGM's diagnostic holds a test's highest readings to (telemetry_fields.h).
void add_temperature_limits(nlohmann::json &j, const std::vector<GpuSample> &samples,
                            const GpuCounters &start) {
  j[telemetry::kTemperatureLimitC] = number_or_null(start.temperature_limit_c);
  j[telemetry::kTemperatureLimit] = nullptr;
  if (start.temperature_limit_c)
    j[telemetry::kTemperatureLimit] =
        start.temperature_limit_is_slowdown ? telemetry::kSlowdown : telemetry::kGpuMaxOperating;
  j[telemetry::kMemoryTemperatureCMax] =
      extreme(values_of<double>(samples, &GpuSample::memory_temperature_c), true);
  j[telemetry::kMemoryTemperatureLimitC] = number_or_null(start.memory_temperature_limit_c);
}

} // namespace

bool is_throttle_reason(const std::string &reason) {
  return reason != "gpu_idle" && reason != "applications_clocks_setting" && reason != "sync_boost";
}

nlohmann::json summarize_gpu_samples(const std::vector<GpuSample> &samples, double duration_s,
                                     const GpuCounters &start, const GpuCounters &end) {
  std::map<std::string, std::size_t> reasons; // samples that carried each reason
  std::size_t throttled = 0, with_reasons = 0;
  for (const auto &s : samples) {
    if (!s.clocks_event_reasons)
      continue;
    ++with_reasons;
    for (const auto &name : clocks_event_reason_names(*s.clocks_event_reasons))
      ++reasons[name];
    throttled += holds_clock_down(*s.clocks_event_reasons) ? 1 : 0;
  }
  std::vector<std::string> reason_names;
  // Every reason NVML names, 0 where no sample had it, so a rule on one reads 0, not "missing".
  nlohmann::json reason_fraction = nlohmann::json::object();
  if (with_reasons > 0)
    for (const auto &name : clocks_event_reason_names(kKnownClocksEventReasons))
      reason_fraction[name] = 0.0;
  for (const auto &[name, n] : reasons) {
    reason_names.push_back(name);
    reason_fraction[name] = double(n) / double(with_reasons);
  }
  const auto temperatures = values_of<double>(samples, &GpuSample::temperature_c);
  const auto power = values_of<double>(samples, &GpuSample::power_w);
  const auto gens = values_of<int>(samples, &GpuSample::pcie_gen);
  const auto widths = values_of<int>(samples, &GpuSample::pcie_width);
  nlohmann::json j = {
      {telemetry::kAvailable, true},
      {telemetry::kSamples, samples.size()},
      {telemetry::kDurationS, duration_s},
      {telemetry::kSmClockMhz,
       min_median_max(values_of<double>(samples, &GpuSample::sm_clock_mhz))},
      {telemetry::kMemClockMhz,
       min_median_max(values_of<double>(samples, &GpuSample::mem_clock_mhz))},
      {telemetry::kPowerW,
       {{metric::summary::kMean,
         power.empty() ? nlohmann::json(nullptr) : nlohmann::json(summarize(power).mean)},
        {metric::summary::kMedian, median_or_null(power)},
        {metric::summary::kMax, extreme(power, true)}}},
      {telemetry::kPowerLimitW,
       start.power_limit_w ? nlohmann::json(*start.power_limit_w) : nlohmann::json(nullptr)},
      {telemetry::kTemperatureC,
       {{metric::summary::kMedian, median_or_null(temperatures)},
        {metric::summary::kMax, extreme(temperatures, true)}}},
      {telemetry::kTemperatureCMax, extreme(temperatures, true)},
      {telemetry::kPcie,
       {{telemetry::kGenMin, extreme_int(gens, false)},
        {telemetry::kGenMax, extreme_int(gens, true)},
        {telemetry::kWidthMin, extreme_int(widths, false)},
        {telemetry::kWidthMax, extreme_int(widths, true)}}},
      {telemetry::kClocksEventReasons, reason_names},
      {telemetry::kReasonFraction, reason_fraction},
      {telemetry::kThrottledFraction, with_reasons > 0
                                          ? nlohmann::json(double(throttled) / double(with_reasons))
                                          : nlohmann::json(nullptr)},
      {telemetry::kThrottled, throttled > 0},
      {telemetry::kEnergyJ, delta(start.energy_mj, end.energy_mj, 1e-3)},
      {telemetry::kPowerViolationS, delta(start.power_violation_ns, end.power_violation_ns, 1e-9)},
      {telemetry::kThermalViolationS,
       delta(start.thermal_violation_ns, end.thermal_violation_ns, 1e-9)},
  };
  // NVML's violation counters see a power or thermal cap even between two samples.
  for (const char *violation : {telemetry::kPowerViolationS, telemetry::kThermalViolationS})
    if (j[violation].is_number() && j[violation].get<double>() > 0)
      j[telemetry::kThrottled] = true;
  add_power_from_energy(j, duration_s, start.power_limit_w);
  add_temperature_limits(j, samples, start);
  if (duration_s >= 2 * kSeriesWindow_s)
    j[telemetry::kSeries] = series_of(samples, duration_s);
  return j;
}

nlohmann::json summarize_gpu_window(std::vector<GpuSample> samples, double duration_s,
                                    double from_s, GpuCounters start, const GpuCounters &end) {
  if (!(from_s > 0))
    return summarize_gpu_samples(samples, duration_s, start, end);
  std::vector<GpuSample> kept;
  for (auto &s : samples)
    if (s.t_s >= from_s) {
      s.t_s -= from_s;
      kept.push_back(s);
    }
  // The counters at the start belong to the whole point: over the window they would count the
  // seconds left out.
  start.energy_mj.reset();
  start.power_violation_ns.reset();
  start.thermal_violation_ns.reset();
  const double to_s = std::max(duration_s, from_s);
  nlohmann::json j = summarize_gpu_samples(kept, to_s - from_s, start, end);
  j[telemetry::kWindowS] = {{telemetry::kFrom, from_s}, {telemetry::kTo, to_s}};
  return j;
}

} // namespace railgauge
