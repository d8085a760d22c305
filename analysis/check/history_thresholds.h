#pragma once
// The thresholds of `check --history`'s rules, read from a rules file's `history:` section
// (every field optional; the defaults below are what a profile without the section gets):
//
//   history:
//     window_runs: 10          # the runs a part's drift and step are judged over
//     drift: {min_runs: 5, min_fraction: 0.02, noise_multiple: 4, falling_share: 0.8}
//     step: {min_fraction: 0.05, noise_multiple: 5}
//     repeat_offender: {failures: 3, runs: 10}
//
// analysis/history/history_rules.h says what each one bounds; docs/check.md lists them.
#include <string>

#include <yaml-cpp/yaml.h>

namespace railgauge::check {

struct HistoryThresholds {
  int window_runs = 10;             // the last runs a drift is fitted to and a step measured on
  int drift_min_runs = 5;           // fewer runs of a part: no drift judged
  double drift_min_fraction = 0.02; // a fall below this is never a drift, however quiet
  double drift_noise_multiple = 4;  // ... nor below this many times the part's own noise
  double drift_falling_share = 0.8; // the share of pairs of runs that must fall (a trend)
  double step_min_fraction = 0.05;  // a move since the previous run below this is no step
  double step_noise_multiple = 5;   // ... nor below this many times the history's noise
  int offender_failures = 3;        // failed runs of the last offender_runs that name a lemon
  int offender_runs = 10;
};

// Reads a `history:` mapping onto `into`: the fields it gives replace those there, the rest
// stay (a profile's base gave them, or the defaults). An unknown field, a value that is not a
// number, or one outside its range (a fraction not in (0, 1), fewer failures than runs...) is
// an InputError at file:line saying the range.
void read_history_thresholds(const YAML::Node &node, const std::string &file,
                             HistoryThresholds &into);

} // namespace railgauge::check
