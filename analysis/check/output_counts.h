#pragma once
// What a check result holds, counted as its summary line and its JSON summary report it.
#include <map>

#include "analysis/check/check_result.h"

namespace railgauge::check {

// A value the profile marks on_missing: info (a GPU alone has no sibling, a one-GPU machine no
// NVLink nor 8-GPU all_reduce, one node no fleet): the rule cannot apply to those inputs, so it
// never names a part's cause; the table folds these into one counted line.
bool cannot_apply_here(const Finding &f);

// The nodes by verdict and the findings by kind, over every part of a result.
struct ResultCounts {
  int nodes = 0, parts = 0;
  std::map<Level, int> nodes_by_verdict;
  int not_covered = 0, not_applicable = 0;
  long long violations = 0; // at warn or fail
  long long notes = 0;      // findings at info that are not missing values (a history step up)
  long long missing = 0, unlisted = 0; // unlisted: counted in `missing`, not listed
  long long cannot_apply = 0;          // of `missing`: at info level (cannot_apply_here)
};

ResultCounts count_result(const CheckResult &r);

} // namespace railgauge::check
