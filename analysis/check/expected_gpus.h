#pragma once
// The GPUs a node of the job must show (`check --expect-gpus N`, Slurm's gres): a node of 8 whose
// 7 GPUs fell off the bus in a way no other sign shows (no NVSwitch, nothing left on the PCI
// bus: a VM given 8 that now sees 1) looked like a healthy machine of one, and `--rules auto`
// judged it by the one-GPU profile: a PASS. Each node that shows fewer fails on the built-in rule
// `expected-gpus`, whatever the profile.
#include <map>
#include <string>

#include "analysis/check/check_result.h"
#include "analysis/run_set.h"

namespace railgauge::check {

inline constexpr const char *kExpectedGpusRule = "expected-gpus";

// The GPUs NVML listed in the inventory of each host's newest run in `runs` (to the second; the
// fewest of that second's ranks), imports, which carry no inventory, left out; a run without
// NVML's section counts 0. The most of any run once let an older run judged beside a newer one
// (check --latest-per-host) hide a GPU the node has lost since.
std::map<std::string, int> nvml_gpus_per_host(const analysis::RunSet &runs);

// A failed finding on the node part of each host of `runs` that showed fewer than `expected`
// GPUs, and the part's and the result's verdicts raised to match.
void add_expected_gpus(CheckResult &result, const analysis::RunSet &runs, int expected);

} // namespace railgauge::check
