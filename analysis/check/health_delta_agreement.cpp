#include "analysis/check/health_delta_agreement.h"

#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "analysis/check/json_path.h"
#include "harness/inventory/telemetry_fields.h"

namespace railgauge::check {
namespace {

constexpr std::string_view kDelta = ".health_delta.";

// The one number a concrete path reaches, if it reaches one.
std::optional<double> number_at(const Record &r, const std::string &path) {
  const auto found = resolve_record_path(r, path);
  if (found.size() != 1 || !found.front().value.is_number())
    return std::nullopt;
  return found.front().value.get<double>();
}

// How many Xids the kernel log after the phase holds that are newer than the log's last entry
// before it, when both snapshots read the log (as health_delta counts them).
std::optional<std::size_t> xids_after(const Record &r, const std::string &telemetry) {
  const auto before = resolve_record_path(r, telemetry + ".before." + telemetry::kKernelLog);
  const auto after = resolve_record_path(r, telemetry + ".after." + telemetry::kKernelLog);
  if (before.size() != 1 || after.size() != 1 || !before.front().value.is_object() ||
      !after.front().value.is_object())
    return std::nullopt;
  const auto &log_before = before.front().value, &log_after = after.front().value;
  const auto since = log_before.find(telemetry::kLastSeq);
  const auto xids = log_after.find(telemetry::kXids);
  if (!log_before.value(telemetry::kAvailable, false) ||
      !log_after.value(telemetry::kAvailable, false) || since == log_before.end() ||
      !since->is_number() || xids == log_after.end() || !xids->is_array())
    return std::nullopt;
  std::size_t newer = 0;
  for (const auto &x : *xids)
    if (x.is_object() && x.contains(telemetry::kSeq) && x[telemetry::kSeq].is_number() &&
        x[telemetry::kSeq].get<double>() > since->get<double>())
      ++newer;
  return newer;
}

} // namespace

std::optional<std::string> health_delta_disagreement(const Record &r, const std::string &path,
                                                     double delta) {
  const auto at = path.rfind(kDelta);
  if (at == std::string::npos)
    return std::nullopt;
  const std::string telemetry = path.substr(0, at);
  const std::string name = path.substr(at + kDelta.size());
  if (name == telemetry::kXidEvents) {
    const auto list = resolve_record_path(r, telemetry + ".health_delta." + telemetry::kXids);
    if (list.size() == 1 && list.front().value.is_array() &&
        static_cast<double>(list.front().value.size()) != delta)
      return fmt::format("{} reads {:g} and the Xid list beside it holds {}: the record "
                         "contradicts itself; read the GPU's Xid log and run again",
                         name, delta, list.front().value.size());
    if (const auto logged = xids_after(r, telemetry);
        logged && static_cast<double>(*logged) != delta)
      return fmt::format("{} reads {:g} and the kernel log after the phase holds {} Xid{} newer "
                         "than the one before it: the record contradicts itself; read the GPU's "
                         "Xid log and run again",
                         name, delta, *logged, *logged == 1 ? "" : "s");
    return std::nullopt;
  }
  // The snapshots keep NVML's replay counter under its own name.
  const std::string reading =
      name == telemetry::kPcieReplays ? std::string(telemetry::kPcieReplayCount) : name;
  const auto before = number_at(r, telemetry + ".before." + reading);
  const auto after = number_at(r, telemetry + ".after." + reading);
  if (!before || !after || std::abs((*after - *before) - delta) < 0.5)
    return std::nullopt; // counters are whole numbers: less than one apart is agreement
  return fmt::format("{} reads {:g} and its readings went from {:g} to {:g}: the record "
                     "contradicts itself; read the GPU's counters and run again",
                     name, delta, *before, *after);
}

std::optional<std::string> health_counter_unread_note(const Record &r, const std::string &path) {
  const auto at = path.rfind('.');
  if (at == std::string::npos || path.find(kDelta) == std::string::npos)
    return std::nullopt;
  const std::string parent = path.substr(0, at), name = path.substr(at + 1);
  for (const std::string &note : {name + "_note", name.substr(0, name.find('_')) + "_note"}) {
    const auto found = resolve_record_path(r, parent + "." + note);
    if (found.size() == 1 && found.front().value.is_string())
      return fmt::format("not read ({}: {})", note, found.front().value.get<std::string>());
  }
  return std::nullopt;
}

} // namespace railgauge::check
