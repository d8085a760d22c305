#pragma once
// How a fleet-relative rule (`fleet:` in rules.h) judges the values of one fleet: the values of
// one key, params (less the rule's ignore_params) and metric path, of every node, or of one node
// with `scope: node`. Pure: `check` over run directories (evaluate_fleet.cpp) and over the fleet
// history's database (analysis/history/history_fleet.h) judge with it, so the two say the same
// of the same values.
#include <span>
#include <string>
#include <vector>

#include "analysis/check/check_result.h"
#include "analysis/check/fleet_stats.h"
#include "analysis/check/rules.h"

namespace railgauge::check {

struct FleetVerdict {
  bool judged = false; // false: too few values to judge; `detail` says why
  bool pass = false;
  double value = 0; // the value judged (with scope: node, the part's median)
  int own_values = 1;
  double threshold = 0;
  FleetStats stats;
  std::string bound, detail; // of a violation or of a fleet too small only: most values pass
};

// Each value against its fleet: the verdicts in the order of `values`.
std::vector<FleetVerdict> judge_fleet_values(const Rule &rule, std::span<const double> values);

// `scope: node`: each part (values_by_part[i], none empty) at the median of its values against
// the other parts of its node (sibling_stats): a verdict per part, in the same order.
std::vector<FleetVerdict>
judge_sibling_values(const Rule &rule, const std::vector<std::vector<double>> &values_by_part);

// A finding of the rule (its base: rule, what, key, params, run) filled in from a verdict that
// is not a pass: a violation at the rule's severity, or a missing value at on_too_small. A part
// judged at the median of several values (a row of a GPU x GPU matrix) loses the params that
// name a peer, not the point.
void fill_fleet_finding(const Rule &rule, const FleetVerdict &verdict, Finding &f);

} // namespace railgauge::check
