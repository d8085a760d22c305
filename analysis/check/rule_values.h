#pragma once
// The values a record rule reads from one ok record, and the fleet a value is judged in: shared
// by `check` over run directories (evaluate.cpp) and over the fleet history's database
// (analysis/history/history_fleet.h), so both read and group the same values.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"
#include "harness/record.h"

namespace railgauge::check {

struct RuleValue {
  std::string path;   // the concrete path the rule's metric reached
  std::string what;   // the path, or "path / relative_to"
  std::string detail; // with relative_to: "value over denominator"; then the rule's detail:
  nlohmann::json value;
  // Why the value cannot be judged ("" where it can): relative_to has no positive number here,
  // or the value beside it is none; at `unreadable_level` (rules.h, on_missing_relative_to).
  std::string unreadable;
  Level unreadable_level = Level::fail;
  // The value is a figure of the record's time samples (timed_figure), so as noisy as they are
  // (relative_noise, harness/noise_bound.h); with relative_to, over a denominator that is not
  // one of them.
  bool timed = false;
  // A `*` of the metric met an empty list (no NVLink link counted an error) in a rule with
  // `empty_list: pass`: nothing to judge, a pass, not a missing value.
  bool empty = false;
};

// A figure at `path` (a concrete metric path) is one of the record's time samples' (a time, a
// bandwidth `*_per_s`, `tflops`, `efficiency`: each the bytes or FLOPs of a call over its time),
// not one they do not time (a counter, a temperature, a latency percentile of its own
// distribution).
bool timed_figure(const std::string &path);

// Every value the rule's metric reaches in `r`, divided by its relative_to's when it has one;
// empty when the record has no such metric.
std::vector<RuleValue> rule_values(const Rule &rule, const Record &r);

// The level of a rule's value that `r` does not hold: on_missing_relative_to where the record has
// no positive relative_to either (the value could not have been judged), else on_missing.
Level no_metric_level(const Rule &rule, const Record &r);

// The rule's detail of one record (rules.h, DetailSpec): "" where its path holds nothing.
std::string detail_of(const DetailSpec &spec, const Record &r);

// A record's params as a grouping key, leaving out the named ones (and `also_leave_out`).
std::string params_key(const nlohmann::json &params, const std::vector<std::string> &leave_out,
                       const std::string &also_leave_out = "");

// The fleet a fleet rule judges a value of `r` in: the same key, params less ignore_params and
// concrete path, and with `scope: node` the same host.
std::string fleet_group(const Rule &rule, const Record &r, const PartKey &part,
                        const std::string &path);

// A value the rule selected and cannot judge, as a missing finding.
Finding missing_finding(const Rule &rule, std::string what, std::string detail, Level level);

// Why a node of an import has no value of a rule (a `not_covered` finding at info).
inline constexpr const char *kNotCoveredDetail =
    "the imported output of this node does not hold it (another tool prints other figures)";

// A number read from a record (a bool counts as 0 or 1) into `out`; false when it is none.
bool number_into(const nlohmann::json &v, double &out);

} // namespace railgauge::check
