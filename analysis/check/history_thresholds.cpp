#include "analysis/check/history_thresholds.h"

#include <cmath>

#include <fmt/format.h>

#include "harness/error.h"
#include "harness/number_text.h"
#include "harness/yaml_input.h"

namespace railgauge::check {
namespace {

constexpr const char *kFix = "see the history thresholds in docs/check.md";

// One field of the section: a number within [low, high] (`open_low`: above low, not at it),
// an integer where `whole`.
struct Field {
  const char *name;
  double low, high;
  bool open_low, whole;
};

std::string range_text(const Field &f) {
  if (f.whole)
    return fmt::format("a whole number from {} to {}", f.low, f.high);
  return fmt::format("a number {} {} and at most {}", f.open_low ? "above" : "from", f.low, f.high);
}

double read(const YAML::Node &map, const std::string &file, const std::string &section,
            const Field &f, double current) {
  const auto node = map[f.name];
  if (!node)
    return current;
  const auto what = fmt::format("{}.{}", section, f.name);
  const auto text = text_of(node, file, what, node);
  const auto value = finite_number(text);
  const bool in_range = value && (f.open_low ? *value > f.low : *value >= f.low) &&
                        *value <= f.high && (!f.whole || std::floor(*value) == *value);
  if (!in_range)
    throw InputError(fmt::format("'{}' is '{}'; it must be {}", what, text, range_text(f)),
                     at(file, node), fmt::format("write {}: {} ({})", f.name, range_text(f), kFix));
  return *value;
}

YAML::Node section(const YAML::Node &parent, const char *name, const std::string &file,
                   std::initializer_list<const char *> allowed) {
  const auto node = parent[name];
  if (!node)
    return YAML::Node(YAML::NodeType::Map);
  if (!node.IsMap())
    throw InputError(fmt::format("'history.{}' must be a mapping", name), at(file, node),
                     fmt::format("write {}: {{FIELD: VALUE, ...}} ({})", name, kFix));
  expect_keys(node, file, fmt::format("history.{}", name), allowed);
  return node;
}

} // namespace

void read_history_thresholds(const YAML::Node &node, const std::string &file,
                             HistoryThresholds &into) {
  if (!node.IsMap())
    throw InputError("'history' must be a mapping", at(file, node),
                     fmt::format("write history: with window_runs, drift, step or "
                                 "repeat_offender under it ({})",
                                 kFix));
  expect_keys(node, file, "history", {"window_runs", "drift", "step", "repeat_offender"});
  auto &t = into;
  t.window_runs = static_cast<int>(
      read(node, file, "history", {"window_runs", 2, 1000, false, true}, t.window_runs));
  const auto drift =
      section(node, "drift", file, {"min_runs", "min_fraction", "noise_multiple", "falling_share"});
  t.drift_min_runs = static_cast<int>(
      read(drift, file, "history.drift", {"min_runs", 3, 1000, false, true}, t.drift_min_runs));
  t.drift_min_fraction =
      read(drift, file, "history.drift", {"min_fraction", 0, 1, true, false}, t.drift_min_fraction);
  t.drift_noise_multiple = read(drift, file, "history.drift",
                                {"noise_multiple", 0, 1000, false, false}, t.drift_noise_multiple);
  t.drift_falling_share = read(drift, file, "history.drift", {"falling_share", 0.5, 1, true, false},
                               t.drift_falling_share);
  const auto step = section(node, "step", file, {"min_fraction", "noise_multiple"});
  t.step_min_fraction =
      read(step, file, "history.step", {"min_fraction", 0, 1, true, false}, t.step_min_fraction);
  t.step_noise_multiple = read(step, file, "history.step",
                               {"noise_multiple", 0, 1000, false, false}, t.step_noise_multiple);
  const auto offender = section(node, "repeat_offender", file, {"failures", "runs"});
  t.offender_failures =
      static_cast<int>(read(offender, file, "history.repeat_offender",
                            {"failures", 1, 1000, false, true}, t.offender_failures));
  t.offender_runs = static_cast<int>(read(offender, file, "history.repeat_offender",
                                          {"runs", 1, 1000, false, true}, t.offender_runs));
  // The pairs of fields that bound each other, checked once both are known.
  if (t.drift_min_runs > t.window_runs)
    throw InputError(fmt::format("history.drift.min_runs ({}) is more than history.window_runs "
                                 "({}): no drift could ever be judged",
                                 t.drift_min_runs, t.window_runs),
                     at(file, node), "make drift.min_runs at most window_runs");
  if (t.offender_failures > t.offender_runs)
    throw InputError(fmt::format("history.repeat_offender.failures ({}) is more than its runs "
                                 "({}): no host could ever be named",
                                 t.offender_failures, t.offender_runs),
                     at(file, node), "make repeat_offender.failures at most its runs");
}

} // namespace railgauge::check
