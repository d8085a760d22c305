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
  bool no_denominator = false; // relative_to has no positive number here: cannot be judged
  // timed_noise of the path; with relative_to, of the numerator over an untimed denominator
  std::optional<double> noise_rel;
};

// The relative noise of a record's figure at `path` (a concrete metric path): stdev/mean of the
// record's time samples (metrics.time_s) where the figure is one of theirs (a time, a bandwidth
// `*_per_s`, `tflops`, `efficiency`: each the bytes or FLOPs of a call over its time); none for
// a figure the samples do not time (a counter, a temperature, a latency percentile of its own
// distribution) or a record without them (an import, a burn).
std::optional<double> timed_noise(const Record &r, const std::string &path);

// Every value the rule's metric reaches in `r`, divided by its relative_to's when it has one;
// empty when the record has no such metric.
std::vector<RuleValue> rule_values(const Rule &rule, const Record &r);

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
