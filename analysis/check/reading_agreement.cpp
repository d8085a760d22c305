#include "analysis/check/reading_agreement.h"

#include <algorithm>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "analysis/check/json_path.h"
#include "harness/inventory/telemetry_fields.h"

namespace railgauge::check {
namespace {

// The one value a concrete path reaches, or null.
nlohmann::json value_at(const Record &r, const std::string &path) {
  auto found = resolve_record_path(r, path);
  return found.size() == 1 ? std::move(found.front().value) : nlohmann::json();
}

bool ends_with(const std::string &s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

constexpr std::string_view kForeignCount = ".foreign_processes.count";
constexpr std::string_view kDowntrained = "pcie_link_downtrained";
constexpr std::string_view kReasonFraction = ".reason_fraction.";

std::optional<std::string> foreign_count_disagreement(const Record &r, const std::string &path,
                                                      double count) {
  const auto base = path.substr(0, path.size() - kForeignCount.size()) + ".foreign_processes";
  const auto list = value_at(r, base + ".processes");
  // In another PID namespace (a container) railgauge's own process is one of the list, under a
  // host pid it cannot see: the writer counts one fewer and says so in its note.
  const bool own_listed =
      value_at(r, base + ".note").is_string() && list.is_array() && !list.empty();
  if (list.is_array() && static_cast<double>(list.size()) != count + (own_listed ? 1 : 0))
    return fmt::format("count reads {:g} and the list beside it names {} process{}: the record "
                       "contradicts itself; list the GPU's processes (nvidia-smi) and run again",
                       count, list.size(), list.size() == 1 ? "" : "es");
  // The count and list are taken from the window's before and after snapshots of the GPU's
  // compute processes, railgauge's own among them (gpu_processes.cpp): every pid there but one is
  // another's. A count of 0 and an empty list beside snapshots that held cotenant_spin passed.
  const auto telemetry_path = path.substr(0, path.size() - kForeignCount.size());
  std::set<unsigned> pids;
  for (const char *when : {telemetry::kBefore, telemetry::kAfter}) {
    const auto snapshot =
        value_at(r, fmt::format("{}.{}.{}", telemetry_path, when, telemetry::kComputeProcesses));
    if (snapshot.is_array())
      for (const auto &p : snapshot)
        if (p.is_object() && p.contains(telemetry::kPid) && p[telemetry::kPid].is_number_unsigned())
          pids.insert(p[telemetry::kPid].get<unsigned>());
  }
  if (pids.size() < 2 || count >= static_cast<double>(pids.size() - 1))
    return std::nullopt;
  return fmt::format("count reads {:g} and the window's snapshots of the GPU's processes hold {} "
                     "process{} beside railgauge's own: the record contradicts itself; list the "
                     "GPU's processes (nvidia-smi) and run again",
                     count, pids.size() - 1, pids.size() == 2 ? "" : "es");
}

std::optional<std::string> downtrained_disagreement(const Record &r, const std::string &path,
                                                    double flag) {
  if (flag != 0)
    return std::nullopt; // a flag that fails the link is never a wrong pass
  const auto prefix = path.substr(0, path.size() - kDowntrained.size());
  const auto gen = value_at(r, prefix + "pcie_gen"), gen_max = value_at(r, prefix + "pcie_gen_max");
  const auto width = value_at(r, prefix + "pcie_width"),
             width_max = value_at(r, prefix + "pcie_width_max");
  if (!gen.is_number() || !gen_max.is_number() || !width.is_number() || !width_max.is_number() ||
      (gen.get<double>() >= gen_max.get<double>() &&
       width.get<double>() >= width_max.get<double>()))
    return std::nullopt;
  return fmt::format("reads false and the link sampled beside it ran at Gen{} x{} of Gen{} x{}: "
                     "the record contradicts itself; read the link (lspci -vv) and run again",
                     gen.dump(), width.dump(), gen_max.dump(), width_max.dump());
}

std::optional<std::string> reason_disagreement(const Record &r, const std::string &path,
                                               double share) {
  // A share of the window's time is never below 0: -0.3 passed the `<= 0` rule beside a window
  // whose clock events saw the reason.
  if (share < 0)
    return fmt::format("reads {}, and a share of a window's time is never negative: the record is "
                       "not as railgauge writes it; run again",
                       share);
  if (share != 0)
    return std::nullopt;
  const auto at = path.rfind(kReasonFraction);
  const auto reason = path.substr(at + kReasonFraction.size());
  const auto seen = value_at(r, path.substr(0, at) + ".clocks_event_reasons");
  if (!seen.is_array() || std::find(seen.begin(), seen.end(), reason) == seen.end())
    return std::nullopt;
  return fmt::format("reads 0 and the window's clocks_event_reasons saw {} in some sample: the "
                     "record contradicts itself; read the GPU's clock events and run again",
                     reason);
}

} // namespace

std::optional<std::string> reading_disagreement(const Record &r, const std::string &path,
                                                double value) {
  if (ends_with(path, kForeignCount))
    return foreign_count_disagreement(r, path, value);
  if (ends_with(path, kDowntrained))
    return downtrained_disagreement(r, path, value);
  if (path.rfind(kReasonFraction) != std::string::npos)
    return reason_disagreement(r, path, value);
  // A time the GPU spent throttled (thermal_violation_s, power_violation_s) is never negative.
  if (value < 0 && path.find("violation") != std::string::npos && path.ends_with("_s"))
    return fmt::format("reads {} s, and a time spent throttled is never negative: the record is "
                       "not as railgauge writes it; run again",
                       value);
  return std::nullopt;
}

} // namespace railgauge::check
