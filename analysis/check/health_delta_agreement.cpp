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
    return std::nullopt;
  }
  const auto before = number_at(r, telemetry + ".before." + name);
  const auto after = number_at(r, telemetry + ".after." + name);
  if (!before || !after || std::abs((*after - *before) - delta) < 0.5)
    return std::nullopt; // counters are whole numbers: less than one apart is agreement
  return fmt::format("{} reads {:g} and its readings went from {:g} to {:g}: the record "
                     "contradicts itself; read the GPU's counters and run again",
                     name, delta, *before, *after);
}

} // namespace railgauge::check
