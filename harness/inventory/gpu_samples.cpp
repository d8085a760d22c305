#include <algorithm>
#include <set>

#include "harness/inventory/gpu_monitor.h"
#include "harness/inventory/nvml_query.h"
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
    return {{"min", nullptr}, {"median", nullptr}, {"max", nullptr}};
  const Summary s = summarize(v);
  return {{"min", s.min}, {"median", s.median}, {"max", s.max}};
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

} // namespace

bool is_throttle_reason(const std::string &reason) {
  return reason != "gpu_idle" && reason != "applications_clocks_setting" && reason != "sync_boost";
}

nlohmann::json summarize_gpu_samples(const std::vector<GpuSample> &samples, double duration_s,
                                     const GpuCounters &start, const GpuCounters &end) {
  std::set<std::string> reasons;
  std::size_t throttled = 0, with_reasons = 0;
  for (const auto &s : samples) {
    if (!s.clocks_event_reasons)
      continue;
    ++with_reasons;
    bool holds_down = false;
    for (const auto &name : clocks_event_reason_names(*s.clocks_event_reasons)) {
      reasons.insert(name);
      holds_down = holds_down || is_throttle_reason(name);
    }
    throttled += holds_down ? 1 : 0;
  }
  const auto power = values_of<double>(samples, &GpuSample::power_w);
  const auto gens = values_of<int>(samples, &GpuSample::pcie_gen);
  const auto widths = values_of<int>(samples, &GpuSample::pcie_width);
  nlohmann::json j = {
      {"available", true},
      {"samples", samples.size()},
      {"duration_s", duration_s},
      {"sm_clock_mhz", min_median_max(values_of<double>(samples, &GpuSample::sm_clock_mhz))},
      {"power_w",
       {{"mean", power.empty() ? nlohmann::json(nullptr) : nlohmann::json(summarize(power).mean)},
        {"max", extreme(power, true)}}},
      {"temperature_c_max", extreme(values_of<double>(samples, &GpuSample::temperature_c), true)},
      {"pcie",
       {{"gen_min", extreme_int(gens, false)},
        {"gen_max", extreme_int(gens, true)},
        {"width_min", extreme_int(widths, false)},
        {"width_max", extreme_int(widths, true)}}},
      {"clocks_event_reasons", std::vector<std::string>(reasons.begin(), reasons.end())},
      {"throttled_fraction", with_reasons > 0
                                 ? nlohmann::json(double(throttled) / double(with_reasons))
                                 : nlohmann::json(nullptr)},
      {"throttled", throttled > 0},
      {"energy_j", delta(start.energy_mj, end.energy_mj, 1e-3)},
      {"power_violation_s", delta(start.power_violation_ns, end.power_violation_ns, 1e-9)},
      {"thermal_violation_s", delta(start.thermal_violation_ns, end.thermal_violation_ns, 1e-9)},
  };
  // NVML's violation counters see a power or thermal cap even between two samples.
  for (const char *violation : {"power_violation_s", "thermal_violation_s"})
    if (j[violation].is_number() && j[violation].get<double>() > 0)
      j["throttled"] = true;
  j["power_from_energy_w"] = j["energy_j"].is_number() && duration_s > 0
                                 ? nlohmann::json(j["energy_j"].get<double>() / duration_s)
                                 : nlohmann::json(nullptr);
  return j;
}

} // namespace railgauge
