#pragma once
// How a rule with an absolute bound (`min`, `max`, `none_of`, `any_of`; no `fleet:`) judges one
// value. Pure: `check` over run directories (evaluate_fleet.cpp) and over the fleet history's
// database (analysis/history/history_fleet.h) judge with it, so the two say the same of the same
// value.
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/check/check_result.h"
#include "analysis/check/rules.h"

namespace railgauge::check {

// A number or a bool, or for none_of/any_of also a string or a list; anything else cannot be
// judged (a missing value: "value ... is not a number").
bool judgeable(const Rule &rule, const nlohmann::json &value);

// The level of a value the rule cannot judge. null is nothing read (a field NVML does not
// support), at on_missing; a value of another type was read and is wrong ("3" for an Xid count,
// which load-xid's on_missing warn, meant for an unreadable kernel log, let pass as a warning):
// never below the rule's severity.
Level unjudgeable_level(const Rule &rule, const nlohmann::json &value);

// Does a judgeable value pass the rule's bound?
bool absolute_pass(const Rule &rule, const nlohmann::json &value);

// The bound as a finding states it: ">= 706.1", "none_of [a, b]".
std::string absolute_bound(const Rule &rule);

// A violation's finding (its base: rule, what, key, params, run) filled in: the rule's severity,
// the value, the threshold and the bound.
void fill_absolute_finding(const Rule &rule, const nlohmann::json &value, Finding &f);

// A bool counts as 1 or 0.
double number_of(const nlohmann::json &value);

} // namespace railgauge::check
